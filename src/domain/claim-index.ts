/**
 * What occupies resources: claims (bookings and active holds) indexed per resource, sorted by start
 * with the running maximum of end times, so that "does anything overlap [a, b)?" is one binary search;
 * and, for capacity types, the spots used and held per slot.
 */
/** Something that occupies a resource: a booking or an active hold. */
export interface Claim {
  resourceId: string;
  /** The BLOCKED interval, buffers included. */
  startMs: number;
  endMs: number;
  /** slotKey() of the slot it was made on. */
  slotKey: string;
  /** Booking id or hold id. */
  ownerId: string;
  /** Party size / held spots. */
  spots: number;
  isHold: boolean;
}

/** Claims of one resource sorted by start, with the running maximum of end times. */
export interface ClaimIndex {
  starts: Float64Array;
  ends: Float64Array;
  maxEnd: Float64Array;
  keys: string[];
}

/** The index of a resource with no claims. */
export const EMPTY_INDEX: ClaimIndex = {
  starts: new Float64Array(0),
  ends: new Float64Array(0),
  maxEnd: new Float64Array(0),
  keys: [],
};

/** One index per resource in `wanted` that has claims (empty or inverted claims dropped). */
export function buildClaimIndexes(claims: readonly Claim[], wanted: ReadonlySet<string>): Map<string, ClaimIndex> {
  const byResource = new Map<string, Claim[]>();
  for (const id of wanted) byResource.set(id, []);
  for (const c of claims) {
    const list = byResource.get(c.resourceId);
    if (list && c.endMs > c.startMs) list.push(c);
  }
  const out = new Map<string, ClaimIndex>();
  for (const [rid, list] of byResource) {
    if (list.length === 0) continue;
    sortByStart(list);
    const n = list.length;
    const ix: ClaimIndex = {
      starts: new Float64Array(n),
      ends: new Float64Array(n),
      maxEnd: new Float64Array(n),
      keys: new Array(n),
    };
    let max = -Infinity;
    for (let i = 0; i < n; i++) {
      const c = list[i];
      ix.starts[i] = c.startMs;
      ix.ends[i] = c.endMs;
      if (c.endMs > max) max = c.endMs;
      ix.maxEnd[i] = max;
      ix.keys[i] = c.slotKey;
    }
    out.set(rid, ix);
  }
  return out;
}

/**
 * Claims in ascending start, in place and stable. Claims arrive nearly sorted (by day, in any order
 * within a day), which an insertion sort puts right in a few moves each without a comparator call;
 * past 8 moves per claim on average it hands over to the general sort.
 */
function sortByStart(list: Claim[]): void {
  const budget = 8 * list.length;
  let moves = 0;
  for (let i = 1; i < list.length; i++) {
    const c = list[i];
    let j = i - 1;
    while (j >= 0 && list[j].startMs > c.startMs) {
      list[j + 1] = list[j];
      j--;
    }
    list[j + 1] = c;
    moves += i - 1 - j;
    if (moves > budget) {
      list.sort((a, b) => a.startMs - b.startMs);
      return;
    }
  }
}

/** The first index of the sorted `a` whose value is >= x (a.length when none is). */
export function lowerBound(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Does any claim overlap [a, b)? With `sharedKey`, claims made on that same slot are ignored
 * (capacity types: they consume spots instead of blocking).
 */
export function isBlocked(ix: ClaimIndex, a: number, b: number, sharedKey: string | null): boolean {
  return blockedUpTo(ix, lowerBound(ix.starts, b) - 1, a, sharedKey);
}

/**
 * `isBlocked` once `j`, the last claim starting before the interval's end, is known (slot generation
 * walks starts in ascending order and advances `j` instead of searching for it).
 */
export function blockedUpTo(ix: ClaimIndex, j: number, a: number, sharedKey: string | null): boolean {
  if (j < 0 || ix.maxEnd[j] <= a) return false;
  if (sharedKey === null) return true;
  for (; j >= 0 && ix.maxEnd[j] > a; j--) {
    if (ix.ends[j] > a && ix.keys[j] !== sharedKey) return true;
  }
  return false;
}

/** Spots used (bookings) and held (holds) per slotKey, each owner counted once per slot. */
export function capacityUsage(
  claims: readonly Claim[],
  serviceId: string,
): Map<string, { used: number; held: number }> {
  const prefix = `${serviceId}|`;
  const seen = new Set<string>();
  const out = new Map<string, { used: number; held: number }>();
  for (const c of claims) {
    if (!c.slotKey.startsWith(prefix)) continue;
    const ownerKey = `${c.slotKey}\u0000${c.ownerId}`;
    if (seen.has(ownerKey)) continue;
    seen.add(ownerKey);
    let u = out.get(c.slotKey);
    if (!u) out.set(c.slotKey, (u = { used: 0, held: 0 }));
    const spots = Number.isFinite(c.spots) && c.spots > 0 ? c.spots : 0;
    if (c.isHold) u.held += spots;
    else u.used += spots;
  }
  return out;
}
