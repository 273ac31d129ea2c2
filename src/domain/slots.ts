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
import { EMPTY_INDEX, blockedUpTo, buildClaimIndexes, capacityUsage, type ClaimIndex } from './claim-index.js';
import type { Iv } from './intervals.js';
import { compareIds, type Combination } from './resource-combinations.js';
import { comboParts, GeneratedSlot, type ComboParts } from './generated-slot.js';
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

/**
 * The decimal text of each start, shared by every combination of one query (capacity types key their
 * claims by it): a combination's n-th candidate start is usually every combination's n-th (same
 * hours), so it is remembered by that ordinal.
 */
interface StartTexts {
  starts: number[];
  digits: string[];
}

/** One combination's constants and position while its starts are walked in ascending order. */
interface ComboGrid {
  combo: Combination;
  parts: ComboParts;
  indexes: ClaimIndex[];
  /** Per index: how many of its claims start before the current blocked interval's end. */
  before: Int32Array;
  texts: StartTexts;
  /** Ordinal of the next candidate start. */
  n: number;
}

/** Step 4: candidate starts of one combination, window by window. */
function combinationSlots(
  plan: Plan,
  occupancy: Occupancy,
  combo: Combination,
  windows: readonly Iv[],
  midnights: readonly number[],
  texts: StartTexts,
  out: SlotCandidate[],
): void {
  const grid: ComboGrid = {
    combo,
    parts: comboParts(plan.service.id, combo.resourceIds),
    indexes: combo.resourceIds.map((id) => occupancy.claimIndexes.get(id) ?? EMPTY_INDEX),
    before: new Int32Array(combo.resourceIds.length),
    texts,
    n: 0,
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

/** A start's decimal digits, written once per ordinal while the combinations agree. */
function startDigits(grid: ComboGrid, s: number): string {
  const t = grid.texts;
  const n = grid.n++;
  if (t.starts[n] !== s) {
    t.starts[n] = s;
    t.digits[n] = String(s);
  }
  return t.digits[n];
}

/** Step 5: the slot starting at `s` unless a claim blocks it (buffers included) or, for capacity types, it is full. */
function slotAt(plan: Plan, occupancy: Occupancy, grid: ComboGrid, s: number): SlotCandidate | null {
  const end = s + plan.durationMs;
  const sharedKey = plan.capacity ? grid.parts.keyPrefix + startDigits(grid, s) + grid.parts.keySuffix : null;
  const a = s - plan.before;
  const b = end + plan.after;
  for (let r = 0; r < grid.indexes.length; r++) {
    const ix = grid.indexes[r];
    let j = grid.before[r];
    while (j < ix.starts.length && ix.starts[j] < b) j++;
    grid.before[r] = j;
    if (blockedUpTo(ix, j - 1, a, sharedKey)) return null;
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
  const slot = new GeneratedSlot(plan.service.id, grid.parts, s, plan.durationMs, state);
  if (grid.combo.locationId !== undefined) slot.locationId = grid.combo.locationId;
  if (cap) slot.capacity = cap;
  return slot;
}

/**
 * Runs sorted by start (each start at most once per run) merged into one sorted list; on equal
 * starts the earlier run's slot comes first. Each step takes the least head start and then every
 * run's slot at that start, in run order: combinations with the same hours move together, so a start
 * costs two passes over the runs' heads, whatever their number.
 */
function mergeRuns(runs: SlotCandidate[][]): SlotCandidate[] {
  if (runs.length <= 1) return runs[0] ?? [];
  const k = runs.length;
  const pos = new Int32Array(k);
  const head = new Float64Array(k);
  for (let r = 0; r < k; r++) head[r] = runs[r][0].startMs; // runs are never empty
  const out: SlotCandidate[] = [];
  for (;;) {
    let least = Number.POSITIVE_INFINITY;
    for (let r = 0; r < k; r++) if (head[r] < least) least = head[r];
    if (least === Number.POSITIVE_INFINITY) return out;
    for (let r = 0; r < k; r++) {
      if (head[r] !== least) continue;
      const run = runs[r];
      out.push(run[pos[r]]);
      const p = ++pos[r];
      head[r] = p < run.length ? run[p].startMs : Number.POSITIVE_INFINITY;
    }
  }
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
  const texts: StartTexts = { starts: [], digits: [] };
  // Each combination's slots come out in ascending start: one sorted run per combination, taken in
  // resource-id order, merged by start (ties keep that order).
  const ordered = located.length > 1 ? [...located].sort((x, y) => compareIds(x.resourceIds, y.resourceIds)) : located;
  const runs: SlotCandidate[][] = [];
  for (const combo of ordered) {
    const windows = combinationWindows(combo, serviceHours, workingOf);
    if (windows.length === 0) continue;
    const run: SlotCandidate[] = [];
    combinationSlots(plan, occupancy, combo, windows, midnights, texts, run);
    if (run.length > 0) runs.push(run);
  }
  return mergeRuns(runs);
}

/** Offerable slots with start in [fromMs, toMs), ascending by start, then by resource ids. */
export function generateSlots(q: SlotQuery): SlotCandidate[] {
  return generate(q);
}
