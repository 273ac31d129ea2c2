/**
 * Answers kept for pure functions asked again and again on the hot path: a request header or URL
 * (a platform sends the same one on every call), and what a business snapshot gives (a snapshot never
 * changes; a new definition is a new snapshot).
 */

/** `compute` kept by its string argument, at most `max` answers (the oldest forgotten first); a throw is never kept. */
export function memoByString<V>(max: number, compute: (key: string) => V): (key: string) => V {
  const kept = new Map<string, V>();
  return (key) => {
    if (kept.has(key)) return kept.get(key) as V;
    const value = compute(key);
    if (kept.size >= max) kept.delete(kept.keys().next().value!);
    kept.set(key, value);
    return value;
  };
}

/**
 * `compute` kept per object (held weakly: gone with it) and string key, unbounded per object: for
 * what one business snapshot answers for each of its services. `undefined` and `null` are not kept.
 */
export function memoPerObject<O extends object, V>(
  compute: (owner: O, key: string) => V,
): (owner: O, key: string) => V {
  const kept = new WeakMap<O, Map<string, V>>();
  return (owner, key) => {
    let mine = kept.get(owner);
    const known = mine?.get(key);
    if (known !== undefined && known !== null) return known;
    const value = compute(owner, key);
    if (value === undefined || value === null) return value;
    if (!mine) kept.set(owner, (mine = new Map()));
    mine.set(key, value);
    return value;
  };
}
