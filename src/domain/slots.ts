/**
 * Slot generation (USP §4.1): a slot is one start time for one combination of resources, exactly one
 * resource per requirement of the service ("one slot per resource combination").
 *
 * Pipeline for one query (each step is one function: steps 0 to 3 in `slot-plan.ts`, 4 and 5 here,
 * called from `generate`; `findSlot` in `find-slot.ts` runs the same steps for one exact slot):
 *  0. the resource combinations the query allows, each with the location it serves, and the booking
 *     window's range and slot grid;
 *  1. the local dates the (booking-window-clipped) range touches, plus margins, are expanded once;
 *     each date's wall-clock intervals become UTC instants with one zone lookup per date
 *     (per time only on a day with a UTC-offset change);
 *  2. per resource: weekly hours (or the dated exception) per date, merged, minus time off;
 *  3. per combination: intersection of its resources' working time (and service hours);
 *  4. candidate starts step by `slot_interval` from each window start and from each local midnight
 *     inside a window (so a day's grid never depends on the queried range); a slot fits when
 *     [start, start + duration] lies inside one window;
 *  5. the blocked interval (buffers included) is checked against per-resource sorted claims with a
 *     binary search over prefix-maximum end times; capacity types count same-slot claims instead.
 */
import { EMPTY_INDEX, buildClaimIndexes, capacityUsage, isBlocked, type ClaimIndex } from './claim-index.js';
import type { Iv } from './intervals.js';
import { compareIds, type Combination } from './resource-combinations.js';
import { slotIdEncoder, slotKeyMaker } from './slot-id.js';
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
} from './slot-plan.js';
import type { SlotCandidate, SlotQuery, SlotState } from './slot-query.js';
import { workingTime } from './working-time.js';

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
export function generateSlots(q: SlotQuery): SlotCandidate[] {
  return generate(q);
}
