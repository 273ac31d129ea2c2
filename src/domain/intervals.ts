/**
 * Interval arithmetic for slot generation and opening hours: half-open [s, e) intervals, kept sorted
 * and disjoint, merged, intersected and subtracted in one linear pass each.
 */
/** A half-open interval [s, e) of instants (or of minutes of a day). */
export type Iv = { s: number; e: number };

/** Sorts and merges overlapping or touching intervals (in place on a fresh array). */
export function mergeIntervals(list: Iv[]): Iv[] {
  if (list.length <= 1) return list;
  list.sort((a, b) => a.s - b.s || a.e - b.e);
  const out: Iv[] = [];
  let cur = { s: list[0].s, e: list[0].e };
  for (let i = 1; i < list.length; i++) {
    const iv = list[i];
    if (iv.s <= cur.e) {
      if (iv.e > cur.e) cur.e = iv.e;
    } else {
      out.push(cur);
      cur = { s: iv.s, e: iv.e };
    }
  }
  out.push(cur);
  return out;
}

/** a intersected with b (both sorted, disjoint): the parts that lie in both. */
export function intersectIntervals(a: readonly Iv[], b: readonly Iv[]): Iv[] {
  const out: Iv[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const s = Math.max(a[i].s, b[j].s);
    const e = Math.min(a[i].e, b[j].e);
    if (s < e) out.push({ s, e });
    if (a[i].e < b[j].e) i++;
    else j++;
  }
  return out;
}

/** a minus b (both sorted, disjoint). */
export function subtractIntervals(a: readonly Iv[], b: readonly Iv[]): Iv[] {
  if (b.length === 0) return a as Iv[];
  const out: Iv[] = [];
  let j = 0;
  for (const iv of a) {
    let s = iv.s;
    const e = iv.e;
    while (j < b.length && b[j].e <= s) j++;
    let k = j;
    while (k < b.length && b[k].s < e) {
      if (b[k].s > s) out.push({ s, e: b[k].s });
      if (b[k].e > s) s = b[k].e;
      if (s >= e) break;
      k++;
    }
    if (s < e) out.push({ s, e });
  }
  return out;
}
