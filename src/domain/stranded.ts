/**
 * Bookings a change of the business definition would strand: a live booking that fitted the old
 * definition and no longer fits the new one, because the hours under it shrank (a resource's weekly
 * hours or exceptions, a service's own hours), a resource it holds was removed from its service or
 * from the business, or its service's length grew into the next claim on one of its resources.
 * Run-time schedule changes are not part of the definition and are left out on both sides.
 */
import type { BusinessDef, ServiceDef } from './business.js';
import { workingTime, dayInfo, type ScheduleSource } from './working-time.js';
import { addDays, localDate } from './time.js';
import { blockedInterval, selfResourceId, slotDurationMs } from './slot-query.js';

export interface BookedInterval {
  id: string;
  service_id: string;
  start_ms: number;
  end_ms: number;
  resource_ids: readonly string[];
}

export interface OtherClaim {
  resource_id: string;
  owner_id: string;
  start_ms: number;
  end_ms: number;
}

export type StrandReason = 'hours' | 'resource_removed' | 'duration';

export interface StrandedBooking {
  booking_id: string;
  reason: StrandReason;
  /** The resource concerned, and for `duration` the claim the longer appointment would run into. */
  resource_id?: string;
  runs_into?: string;
}

function covered(src: ScheduleSource, zone: string, startMs: number, endMs: number): boolean {
  const days = [];
  for (let d = localDate(startMs, zone), last = localDate(endMs - 1, zone); d <= last; d = addDays(d, 1))
    days.push(dayInfo(zone, d));
  return workingTime(src, days, zone).some((iv) => iv.s <= startMs && iv.e >= endMs);
}

/** Why `b` does not fit `def` (the first reason found), or undefined when it fits. */
function misfit(def: BusinessDef, b: BookedInterval, claims: readonly OtherClaim[]): StrandedBooking | undefined {
  const service = def.services.find((s) => s.id === b.service_id);
  if (!service) return { booking_id: b.id, reason: 'resource_removed' };
  const zone = def.business.timezone;
  const allowed = new Set(service.requirements.flatMap((r) => r.resource_ids));
  for (const rid of b.resource_ids) {
    if (rid === selfResourceId(service.id)) continue;
    const resource = def.resources.find((r) => r.id === rid);
    if (!resource || !allowed.has(rid)) return { booking_id: b.id, reason: 'resource_removed', resource_id: rid };
    if (!covered(resource, zone, b.start_ms, b.end_ms)) return { booking_id: b.id, reason: 'hours', resource_id: rid };
  }
  if (service.hours && !covered({ schedule: service.hours }, zone, b.start_ms, b.end_ms))
    return { booking_id: b.id, reason: 'hours' };
  return lengthMisfit(service, b, claims);
}

function lengthMisfit(
  service: ServiceDef,
  b: BookedInterval,
  claims: readonly OtherClaim[],
): StrandedBooking | undefined {
  if (!service.duration.fixed || slotDurationMs(service) <= b.end_ms - b.start_ms) return undefined;
  const blocked = blockedInterval(service, b.start_ms);
  for (const c of claims) {
    if (c.owner_id === b.id || !b.resource_ids.includes(c.resource_id)) continue;
    if (c.start_ms < blocked.endMs && blocked.startMs < c.end_ms)
      return { booking_id: b.id, reason: 'duration', resource_id: c.resource_id, runs_into: c.owner_id };
  }
  return undefined;
}

/** The bookings that fit `before` and would not fit `after`, in the order given. */
export function strandedBookings(
  before: BusinessDef,
  after: BusinessDef,
  bookings: readonly BookedInterval[],
  claims: readonly OtherClaim[],
): StrandedBooking[] {
  const out: StrandedBooking[] = [];
  for (const b of bookings) {
    if (misfit(before, b, claims)) continue;
    const m = misfit(after, b, claims);
    if (m) out.push(m);
  }
  return out;
}
