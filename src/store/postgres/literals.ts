/**
 * Statements with their parameters written in as SQL literals, so that several can share one
 * simple query (session.ts): only kinds written exactly (strings escaped, finite numbers, booleans,
 * NULL, text arrays, and number or boolean arrays where the statement casts them); anything else
 * keeps its parameters and a round trip of its own.
 */

/**
 * A string as an SQL literal, exactly as pg's `escapeLiteral` writes it (quotes doubled; with a
 * backslash, doubled too and the literal written ` E'...'`), in one regular-expression pass instead
 * of pg's character-by-character concatenation: the documents written here are kilobytes long.
 */
export function escapeLiteral(s: string): string {
  return s.includes('\\') ? ` E'${s.replace(/['\\]/g, '$&$&')}'` : `'${s.replace(/'/g, "''")}'`;
}

/** One parameter as an SQL literal, or undefined when it is not of a kind written here (then it stays a parameter). */
function literal(v: unknown): string | undefined {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  // Parenthesized when negative: "x -$1" must not become the comment "x --5".
  if (typeof v === 'number') return Number.isFinite(v) ? (v < 0 ? `(${v})` : String(v)) : undefined;
  if (typeof v === 'string') return escapeLiteral(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string'))
    return v.length === 0 ? "'{}'" : `ARRAY[${v.map((x) => escapeLiteral(x)).join(', ')}]`;
  // Arrays of one scalar kind (and NULLs) where the statement casts them (`$n::bigint[]`, as the claims insert does).
  if (Array.isArray(v) && v.length > 0) {
    const kinds = new Set(v.filter((x) => x !== null).map((x) => typeof x));
    if (kinds.size === 1 && (kinds.has('number') || kinds.has('boolean'))) {
      const items = v.map(literal);
      if (items.every((x) => x !== undefined)) return `ARRAY[${items.join(', ')}]`;
    }
  }
  return undefined;
}

/** A statement with its parameters written in as literals (to share a simple query with the statements around it), or undefined. */
export function inlined(text: string, values: readonly unknown[] | undefined, typedArrays = false): string | undefined {
  if (!values || values.length === 0) return text;
  // A number or boolean array is written only where the statement casts every use of it.
  if (!typedArrays && values.some((v) => Array.isArray(v) && v.some((x) => typeof x !== 'string'))) return undefined;
  const lits = values.map(literal);
  if (lits.some((l) => l === undefined)) return undefined;
  let unknown = false;
  const out = text.replace(/\$(\d+)/g, (_, n: string) => lits[Number(n) - 1] ?? ((unknown = true), ''));
  return unknown ? undefined : out;
}

/** Whether every number or boolean array parameter is used only with an array cast (`$n::type[]`). */
export function typedArrays(text: string, values: readonly unknown[]): boolean {
  return values.every((v, i) => {
    if (!Array.isArray(v) || v.every((x) => typeof x === 'string')) return true;
    const uses = text.match(new RegExp(`\\$${i + 1}(?!\\d)(::\\w+\\[\\])?`, 'g')) ?? [];
    return uses.length > 0 && uses.every((u) => u.includes('::'));
  });
}
