/** Ids made from names, for a business file written by `usp-server init` and for objects added without an id. */

/** An id made from a name: the prefix + its letters and digits, lower case, joined by underscores ("Rosa's Studio" is biz_rosas_studio). */
export function idFrom(prefix: string, name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60);
  return `${prefix}_${slug || 'main'}`;
}

/** `idFrom`, with `_2`, `_3`... added when the id is already taken. */
export function uniqueIdFrom(prefix: string, name: string, taken: Iterable<unknown>): string {
  const used = new Set(taken);
  const base = idFrom(prefix, name);
  if (!used.has(base)) return base;
  let n = 2;
  while (used.has(`${base}_${n}`)) n++;
  return `${base}_${n}`;
}
