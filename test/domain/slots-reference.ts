/**
 * The slot generator as it was before the sorted-runs rewrite (2026-12-06), kept word for word as the
 * reference the property test compares `generateSlots` with: candidate slots of every combination
 * gathered, then sorted by start and resource ids; claims indexed with a comparator sort; each
 * blocked check a binary search; ids and keys written per slot.
 */
import { EMPTY_INDEX, capacityUsage, isBlocked, type Claim, type ClaimIndex } from '../../src/domain/claim-index.js';
import type { Iv } from '../../src/domain/intervals.js';
import { compareIds, type Combination } from '../../src/domain/resource-combinations.js';
import { slotIdEncoder, slotKeyMaker } from '../../src/domain/slot-id.js';
import {
  capacityLeft,
  capacityState,
  combinationWindows,
  expandDays,
  locatedCombinations,
  planQuery,
  workingTimes,
  type InternalQuery,
  type Plan,
} from '../../src/domain/slot-plan.js';
import type { SlotCandidate, SlotQuery, SlotState } from '../../src/domain/slot-query.js';
import { workingTime } from '../../src/domain/working-time.js';

/** What occupies the query's resources: claims indexed per resource, and same-slot usage for capacity types. */
interface Occupancy {
  claimIndexes: Map<string, ClaimIndex>;
  usage: Map<string, { used: number; held: number }> | null;
}

function occupancyOf(q: InternalQuery, plan: Plan, located: readonly Combination[]): Occupancy {
  const wanted = new Set<string>();
  for (const c of located) for (const id of c.resourceIds) wanted.add(id);
  return {
    claimIndexes: buildClaimIndexes(q.claims, wanted),
    usage: plan.capacity ? capacityUsage(q.claims, plan.service.id) : null,
  };
}

/** One combination's constants while its starts are walked. */
interface ComboGrid {
  combo: Combination;
  indexes: ClaimIndex[];
  encodeId: (startMs: number) => string;
  /** slotKey() of a start in this combination. */
  keyOf: (startMs: number) => string;
}

/** Step 4: candidate starts of one combination, window by window. */
function combinationSlots(
  plan: Plan,
  occupancy: Occupancy,
  combo: Combination,
  windows: readonly Iv[],
  midnights: readonly number[],
  out: SlotCandidate[],
): void {
  const grid: ComboGrid = {
    combo,
    indexes: combo.resourceIds.map((id) => occupancy.claimIndexes.get(id) ?? EMPTY_INDEX),
    encodeId: slotIdEncoder(plan.service.id, combo.resourceIds),
    keyOf: slotKeyMaker(plan.service.id, combo.resourceIds),
  };
  let m = 0; // index into midnights
  for (const w of windows) {
    if (w.s >= plan.to || w.e - w.s < plan.durationMs) continue;
    if (w.e < plan.from) continue;
    while (m < midnights.length && midnights[m] <= w.s) m++;
    windowSlots(plan, occupancy, grid, w, midnights, m, out);
  }
}

/**
 * Step 4 within one window: starts step by the slot interval from each anchor (the window start and
 * each local midnight strictly inside the window, `midnights[m]` onwards), and a slot fits when it
 * ends inside the window.
 */
function windowSlots(
  plan: Plan,
  occupancy: Occupancy,
  grid: ComboGrid,
  w: Iv,
  midnights: readonly number[],
  m: number,
  out: SlotCandidate[],
): void {
  const { from, to, intervalMs, durationMs } = plan;
  let anchor = w.s;
  let k = m;
  while (anchor < w.e && anchor < to) {
    const segEnd = k < midnights.length && midnights[k] < w.e ? midnights[k] : w.e;
    let s = anchor;
    if (s < from) s = anchor + Math.ceil((from - anchor) / intervalMs) * intervalMs;
    for (; s < segEnd && s < to; s += intervalMs) {
      if (s + durationMs > w.e) break;
      const slot = slotAt(plan, occupancy, grid, s);
      if (slot) out.push(slot);
    }
    if (segEnd >= w.e) break;
    anchor = segEnd;
    k++;
  }
}

/** Step 5: the slot starting at `s` unless a claim blocks it (buffers included) or, for capacity types, it is full. */
function slotAt(plan: Plan, occupancy: Occupancy, grid: ComboGrid, s: number): SlotCandidate | null {
  const end = s + plan.durationMs;
  const sharedKey = plan.capacity ? grid.keyOf(s) : null;
  const a = s - plan.before;
  const b = end + plan.after;
  for (let r = 0; r < grid.indexes.length; r++) {
    if (isBlocked(grid.indexes[r], a, b, sharedKey)) return null;
  }
  let state: SlotState = 'available';
  let cap: SlotCandidate['capacity'];
  if (plan.capacity) {
    const u = occupancy.usage!.get(sharedKey as string);
    cap = capacityLeft(plan, u ? u.used : 0, u ? u.held : 0);
    const st = capacityState(plan, cap);
    if (!st) return null;
    state = st;
  }
  const slot: SlotCandidate = {
    key: sharedKey ?? grid.keyOf(s),
    id: grid.encodeId(s),
    serviceId: plan.service.id,
    startMs: s,
    endMs: end,
    durationMs: plan.durationMs,
    resourceIds: grid.combo.resourceIds,
    state,
  };
  if (grid.combo.locationId !== undefined) slot.locationId = grid.combo.locationId;
  if (cap) slot.capacity = cap;
  return slot;
}

function generate(q: InternalQuery): SlotCandidate[] {
  const plan = planQuery(q);
  if (!plan) return [];
  const located = locatedCombinations(q, plan);
  if (located.length === 0) return [];
  const days = expandDays(plan, q.zone);
  const workingOf = workingTimes(q, plan, days);
  const serviceHours =
    !plan.selfResource && plan.service.hours ? workingTime({ schedule: plan.service.hours }, days, q.zone) : null;
  const occupancy = occupancyOf(q, plan, located);
  const midnights = days.map((d) => d.startMs);
  const out: SlotCandidate[] = [];
  for (const combo of located) {
    const windows = combinationWindows(combo, serviceHours, workingOf);
    if (windows.length > 0) combinationSlots(plan, occupancy, combo, windows, midnights, out);
  }
  out.sort((x, y) => x.startMs - y.startMs || compareIds(x.resourceIds, y.resourceIds));
  // Each slot gets its own resourceIds array (combinations share theirs while generating).
  for (const s of out) s.resourceIds = [...s.resourceIds];
  return out;
}

/** Offerable slots with start in [fromMs, toMs), ascending by start, then by resource ids. */
export function referenceSlots(q: SlotQuery): SlotCandidate[] {
  return generate(q);
}

/** The claim index as it was built before: claims of each resource sorted with a comparator. */
function buildClaimIndexes(claims: readonly Claim[], wanted: ReadonlySet<string>): Map<string, ClaimIndex> {
  const byResource = new Map<string, Claim[]>();
  for (const c of claims) {
    if (!wanted.has(c.resourceId) || !(c.endMs > c.startMs)) continue;
    let list = byResource.get(c.resourceId);
    if (!list) byResource.set(c.resourceId, (list = []));
    list.push(c);
  }
  const out = new Map<string, ClaimIndex>();
  for (const [rid, list] of byResource) {
    list.sort((a, b) => a.startMs - b.startMs);
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
