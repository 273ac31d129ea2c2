/**
 * The slot query and its answer, and what a service's definition says about its slots: their length,
 * buffers and booking window, and whether it sells spots of a shared slot (capacity types).
 */
import type { ResourceDef, ServiceDef } from './business.js';
import type { Claim } from './claim-index.js';
import { parseDuration } from './time.js';

/** How a slot is offered: available, limited (few spots left), or waitlist (full, with a waitlist). */
export type SlotState = 'available' | 'limited' | 'waitlist';

/** One offerable slot: a start time for one combination of resources. */
export interface SlotCandidate {
  /** slotKey() and encodeSlotId() of the same parts (a generated slot writes them when read). */
  readonly key: string;
  readonly id: string;
  serviceId: string;
  startMs: number;
  endMs: number;
  durationMs: number;
  /** One per requirement, in requirement order (a generated slot's is its combination's, frozen). */
  resourceIds: readonly string[];
  locationId?: string;
  /** Only for capacity types (group, reservation). */
  capacity?: { total: number; remaining: number; held: number };
  state: SlotState;
}

/** What slot generation needs: the service, its resources and zone, the range, the clock and the claims. */
export interface SlotQuery {
  service: ServiceDef;
  resources: ReadonlyMap<string, ResourceDef>;
  /** Business IANA zone: schedules are local to it. */
  zone: string;
  /** Slot START times in [fromMs, toMs). */
  fromMs: number;
  toMs: number;
  nowMs: number;
  /** Active claims (expired ones already dropped), on any resource. */
  claims: readonly Claim[];
  /** >= 1; only matters for capacity types. */
  partySize: number;
  /** Only combinations containing this resource. */
  resourceId?: string;
  /** Only slots at this location. */
  locationId?: string;
  /**
   * Also offer starts up to this much past the booking window's far end (default 0). For a caller
   * that keeps the answer while the clock moves and narrows it to `bookingWindow` at each use: the
   * near end only moves forward, so narrowing is exact, and the far end is covered for this long.
   */
  aheadMs?: number;
}

/**
 * Slot starts a service offers at `nowMs`: [from, to), from the minimum notice (and never in the
 * past) to the maximum advance, inclusive (`to` is one millisecond past it).
 */
function bookingWindow(service: ServiceDef, nowMs: number): { from: number; to: number } {
  // An omitted member is a limit the business does not enforce (spec-next 3.9): no notice, no horizon
  // (a query's own range, at most max_query_days, still bounds every answer).
  const w = service.policies.booking_window ?? {};
  const from = w.min_advance ? Math.max(nowMs + parseDuration(w.min_advance), nowMs) : nowMs;
  return { from, to: w.max_advance ? nowMs + parseDuration(w.max_advance) + 1 : Number.POSITIVE_INFINITY };
}

/**
 * The booking-window check, written once: the part of the starts [fromMs, toMs) that `service`
 * offers at `nowMs`, also reaching `aheadMs` past the window's far end (see `SlotQuery.aheadMs`).
 * Empty when `from >= to`. A query clips its range with it, the availability cache narrows a kept
 * list with it, and the write path asks it of one start (`[start, start + 1)`).
 */
export function clipToBookingWindow(
  service: ServiceDef,
  nowMs: number,
  fromMs: number,
  toMs: number,
  aheadMs = 0,
): { from: number; to: number } {
  const w = bookingWindow(service, nowMs);
  return { from: Math.max(fromMs, w.from), to: Math.min(toMs, w.to + Math.max(0, aheadMs)) };
}

/** Resource id of a service that is its own resource (empty `requirements`). */
export function selfResourceId(serviceId: string): string {
  return `service:${serviceId}`;
}

/** Group and reservation services sell spots of a shared slot (they carry `capacity.max`). */
export function isCapacityType(service: ServiceDef): boolean {
  return service.type === 'group' || service.type === 'reservation';
}

/** The length of a slot: fixed duration; range -> range.min; undetermined -> slot_interval. */
export function slotDurationMs(service: ServiceDef): number {
  const d = service.duration;
  if (d.fixed) return parseDuration(d.fixed);
  if (d.range) return parseDuration(d.range.min);
  const interval = service.policies.booking_window?.slot_interval;
  return interval ? parseDuration(interval) : Number.NaN;
}

/** A buffer's length (an ISO 8601 duration), 0 when absent. */
export function bufferMs(iso: string | undefined): number {
  return iso ? parseDuration(iso) : 0;
}

/** The interval a slot starting at `startMs` keeps its resources busy: start - buffer_before .. end + buffer_after. */
export function blockedInterval(service: ServiceDef, startMs: number): { startMs: number; endMs: number } {
  return {
    startMs: startMs - bufferMs(service.duration.buffer_before),
    endMs: startMs + slotDurationMs(service) + bufferMs(service.duration.buffer_after),
  };
}
