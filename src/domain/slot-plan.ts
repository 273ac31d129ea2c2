/**
 * The plan of one slot query and the steps that need no claims (USP §4.1): the query's constants
 * (slot grid, buffers, range clipped to the booking window), the combinations it allows with their
 * location (step 0), the local days it touches (step 1), working time per resource (step 2) and
 * per combination (step 3), and the spots and state of a capacity slot (step 5's rule).
 */
import type { ResourceDef, ServiceDef } from './business.js';
import { intersectIntervals, type Iv } from './intervals.js';
import { combinationLocation, combinations, type Combination } from './resource-combinations.js';
import {
  bufferMs,
  clipToBookingWindow,
  isCapacityType,
  selfResourceId,
  slotDurationMs,
  type SlotCandidate,
  type SlotQuery,
  type SlotState,
} from './slot-query.js';
import { DAY_MS, addDays, localDate, parseDuration } from './time.js';
import { dayInfo, workingTime, type DayInfo, type ScheduleSource } from './working-time.js';

/** A slot query as the steps see it: `onlyCombination` narrows it to one combination (findSlot). */
export interface InternalQuery extends Omit<SlotQuery, 'resourceId'> {
  resourceId?: string;
  onlyCombination?: readonly string[];
}

/** The query's constants: the slot grid, the buffers and the range clipped to the booking window. */
export interface Plan {
  service: ServiceDef;
  selfResource: boolean;
  durationMs: number;
  intervalMs: number;
  before: number;
  after: number;
  /** Candidate starts lie in [from, to). */
  from: number;
  to: number;
  /** A capacity type: same-slot claims share the slot (counted) instead of blocking it. */
  capacity: boolean;
  total: number;
  waitlist: boolean;
  partySize: number;
}

/** The grid and range of a query; null when it can offer nothing (no duration, an empty window). */
export function planQuery(q: InternalQuery): Plan | null {
  const { service } = q;
  const selfResource = service.requirements.length === 0;
  if (selfResource && !service.hours) return null;
  const durationMs = slotDurationMs(service);
  const interval = service.policies.booking_window?.slot_interval;
  let intervalMs = interval ? parseDuration(interval) : Number.NaN;
  if (!(intervalMs > 0)) intervalMs = durationMs;
  if (!(intervalMs > 0) || !(durationMs > 0)) return null;
  const { from, to } = clipToBookingWindow(service, q.nowMs, q.fromMs, q.toMs, q.aheadMs);
  if (!(from < to)) return null;
  return {
    service,
    selfResource,
    durationMs,
    intervalMs,
    before: bufferMs(service.duration.buffer_before),
    after: bufferMs(service.duration.buffer_after),
    from,
    to,
    capacity: isCapacityType(service),
    total: service.capacity?.max ?? 1,
    waitlist: service.capacity?.waitlist === true,
    partySize: Math.max(1, Math.floor(Number.isFinite(q.partySize) ? q.partySize : 1)),
  };
}

/** The resource combinations the query allows, each with the location it serves (step 0). */
export function locatedCombinations(q: InternalQuery, plan: Plan): Combination[] {
  const { service } = plan;
  let combos: string[][];
  if (plan.selfResource) {
    const only = q.onlyCombination;
    const self = selfResourceId(service.id);
    combos = !only || (only.length === 1 && only[0] === self) ? [[self]] : [];
  } else {
    combos = combinations(service, q.resources, q.onlyCombination);
  }
  if (q.resourceId !== undefined) combos = combos.filter((c) => c.includes(q.resourceId as string));
  const located: Combination[] = [];
  for (const ids of combos) {
    const loc = plan.selfResource
      ? combinationLocation(service, [])
      : combinationLocation(
          service,
          ids.map((id) => q.resources.get(id)),
        );
    if (!loc.ok) continue;
    if (q.locationId !== undefined && loc.locationId !== q.locationId) continue;
    located.push({ resourceIds: ids, locationId: loc.locationId });
  }
  return located;
}

/** Step 1: the local days touched by [from, to) plus margins (a slot and its buffers may run into later days). */
export function expandDays(plan: Plan, zone: string): DayInfo[] {
  const firstDate = addDays(localDate(plan.from, zone), -1);
  const lastDate = addDays(localDate(plan.to - 1, zone), 1 + Math.ceil((plan.durationMs + plan.after) / DAY_MS));
  const days: DayInfo[] = [];
  for (let d = firstDate; d <= lastDate; d = addDays(d, 1)) days.push(dayInfo(zone, d));
  return days;
}

/** Step 2: working time per resource, computed once per resource on first use. */
export function workingTimes(q: InternalQuery, plan: Plan, days: readonly DayInfo[]): (id: string) => Iv[] {
  const working = new Map<string, Iv[]>();
  return (id) => {
    let w = working.get(id);
    if (!w) {
      const src: ScheduleSource = plan.selfResource
        ? { schedule: plan.service.hours }
        : (q.resources.get(id) as ResourceDef);
      w = workingTime(src, days, q.zone);
      working.set(id, w);
    }
    return w;
  };
}

/** Step 3: the windows where every resource of a combination works (within the service hours, if any). */
export function combinationWindows(
  combo: Combination,
  serviceHours: Iv[] | null,
  workingOf: (id: string) => Iv[],
): Iv[] {
  let windows: Iv[] | null = serviceHours;
  for (const id of combo.resourceIds) {
    windows = windows === null ? workingOf(id) : intersectIntervals(windows, workingOf(id));
    if (windows.length === 0) break;
  }
  return windows ?? [];
}

/** The spots of a capacity slot: its total, what is left after the spots used and held, and the held ones. */
export function capacityLeft(plan: Plan, used: number, held: number): NonNullable<SlotCandidate['capacity']> {
  return { total: plan.total, remaining: Math.max(0, plan.total - used - held), held };
}

/** A capacity slot's state: available or limited while the party fits, else waitlist where offered; null when full. */
export function capacityState(plan: Plan, cap: NonNullable<SlotCandidate['capacity']>): SlotState | null {
  if (cap.remaining >= plan.partySize)
    return cap.remaining < 3 || cap.remaining < 0.2 * plan.total ? 'limited' : 'available';
  return plan.waitlist ? 'waitlist' : null;
}
