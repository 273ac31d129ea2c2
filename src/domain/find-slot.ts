/**
 * One exact slot re-validated without generating any: the write path's check (hold, booking,
 * reschedule) that a slot id still names an offerable slot.
 */
import type { Claim } from './claim-index.js';
import type { Iv } from './intervals.js';
import type { Combination } from './resource-combinations.js';
import { comboParts, GeneratedSlot } from './generated-slot.js';
import { slotKeyMaker } from './slot-id.js';
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

/**
 * Re-validates one exact slot with the same rules as generateSlots (the same answer as generating
 * its day and looking it up; null when it is not offered), without generating anything: the
 * booking window, the combination and its location, the window of working time holding the slot
 * and its place on that window's grid, then the claims on its resources. Hold, booking and
 * reschedule run it inside their transaction, so it is on every write's path.
 */
export function findSlot(
  q: Omit<SlotQuery, 'fromMs' | 'toMs' | 'resourceId'>,
  parts: { startMs: number; resourceIds: readonly string[] },
): SlotCandidate | null {
  if (!Number.isSafeInteger(parts.startMs) || !Array.isArray(parts.resourceIds)) return null;
  const s = parts.startMs;
  const iq: InternalQuery = { ...q, fromMs: s, toMs: s + 1, onlyCombination: parts.resourceIds };
  // The booking window: the range clipped to it is [s, s + 1) or nothing.
  const plan = planQuery(iq);
  if (!plan || plan.from !== s) return null;
  const combo = locatedCombinations(iq, plan)[0];
  if (!combo) return null;
  // The window of working time holding [s, s + duration]: from the slot's day (and the day before,
  // as generation has it) to the day its end falls on.
  const days = expandDays(plan, q.zone);
  const serviceHours =
    !plan.selfResource && plan.service.hours ? workingTime({ schedule: plan.service.hours }, days, q.zone) : null;
  const windows = combinationWindows(combo, serviceHours, workingTimes(iq, plan, days));
  const end = s + plan.durationMs;
  let w: Iv | undefined;
  for (const x of windows) {
    if (x.s <= s && s < x.e) {
      w = x;
      break;
    }
  }
  if (!w || end > w.e) return null;
  // On the grid: starts step by the interval from the window start and from each local midnight
  // inside the window, so the anchor is the latest of those at or before s.
  let anchor = w.s;
  for (const d of days) if (d.startMs > anchor && d.startMs <= s) anchor = d.startMs;
  if ((s - anchor) % plan.intervalMs !== 0) return null;
  return slotAgainstClaims(plan, combo, q.claims, s);
}

/** Step 5 for one start, straight from the claims (no per-resource index for a single slot). */
function slotAgainstClaims(plan: Plan, combo: Combination, claims: readonly Claim[], s: number): SlotCandidate | null {
  const end = s + plan.durationMs;
  const key = slotKeyMaker(plan.service.id, combo.resourceIds)(s);
  const sharedKey = plan.capacity ? key : null;
  const a = s - plan.before;
  const b = end + plan.after;
  const ids = combo.resourceIds;
  let used = 0;
  let held = 0;
  const counted = plan.capacity ? new Set<string>() : null;
  for (const c of claims) {
    if (counted && c.slotKey === key && !counted.has(c.ownerId)) {
      counted.add(c.ownerId);
      const spots = Number.isFinite(c.spots) && c.spots > 0 ? c.spots : 0;
      if (c.isHold) held += spots;
      else used += spots;
    }
    if (!(c.endMs > c.startMs) || !ids.includes(c.resourceId)) continue;
    if (c.startMs < b && c.endMs > a && (sharedKey === null || c.slotKey !== sharedKey)) return null;
  }
  let state: SlotState = 'available';
  let cap: SlotCandidate['capacity'];
  if (plan.capacity) {
    cap = capacityLeft(plan, used, held);
    const st = capacityState(plan, cap);
    if (!st) return null;
    state = st;
  }
  const slot = new GeneratedSlot(plan.service.id, comboParts(plan.service.id, ids), s, plan.durationMs, state);
  if (combo.locationId !== undefined) slot.locationId = combo.locationId;
  if (cap) slot.capacity = cap;
  return slot;
}
