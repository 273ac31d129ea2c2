/**
 * Availability as the operations need it: load the claims that matter from the store, hand them to
 * the pure slot generator, and present slots in the protocol's shape. Expired holds and expired
 * pending bookings are ignored here (their claims carry an expiry), so no sweeper is needed for
 * correctness.
 */
import {
  type ServiceDef,
  blockedInterval,
  clipToBookingWindow,
  findSlot,
  generateSlots,
  isCapacityType,
  type Claim,
  type SlotCandidate,
  decodeSlotId,
  type SlotIdParts,
  slotTagIndex,
  DAY_MS,
  formatDuration,
  formatInstant,
  isoUtc,
  localDate,
  selfResourceId,
  mergeScheduleChanges,
  type ResourceDef,
  type ScheduleChange,
} from '../../domain/index.js';
import type { ClaimRow, ScheduleChangeRow, Tx } from '../../store/index.js';
import type { Business } from '../business.js';

export function candidateResourceIds(service: ServiceDef): string[] {
  if (service.requirements.length === 0) return [selfResourceId(service.id)];
  const ids = new Set<string>();
  for (const r of service.requirements) for (const id of r.resource_ids) ids.add(id);
  return [...ids];
}

function toClaim(r: ClaimRow): Claim {
  return {
    resourceId: r.resource_id,
    startMs: r.start_ms,
    endMs: r.end_ms,
    slotKey: r.slot_key,
    ownerId: r.owner_id,
    spots: r.spots,
    isHold: r.is_hold,
  };
}

/** Claims that can affect slots starting in [fromMs, toMs), minus those owned by `ignoreOwners`. */
export async function loadClaims(
  tx: Tx,
  service: ServiceDef,
  fromMs: number,
  toMs: number,
  nowMs: number,
  ignoreOwners: readonly string[] = [],
  resourceIds: readonly string[] = candidateResourceIds(service),
): Promise<Claim[]> {
  const rows = await tx.claims.active(resourceIds, fromMs - DAY_MS, toMs + DAY_MS, nowMs);
  const out: Claim[] = [];
  for (const r of rows) if (!ignoreOwners.includes(r.owner_id)) out.push(toClaim(r));
  return out;
}

/** A stored run-time schedule change in the domain's terms. */
function scheduleChangeOf(r: ScheduleChangeRow): ScheduleChange {
  const reason = r.reason ?? undefined;
  return r.kind === 'time_off'
    ? { kind: 'time_off', resource_id: r.resource_id, start: isoUtc(r.start_ms!), end: isoUtc(r.end_ms!), reason }
    : { kind: 'exception', resource_id: r.resource_id, date: r.date!, hours: r.hours ?? [], reason };
}

/**
 * The business file's resources with the run-time time off and dated exceptions of `resourceIds`
 * merged in: what slots are generated from, so a change in the dashboard shows at once.
 */
export async function scheduledResources(
  tx: Tx,
  biz: Business,
  resourceIds: readonly string[],
): Promise<ReadonlyMap<string, ResourceDef>> {
  const rows = await tx.admin.scheduleChanges(resourceIds);
  return mergeScheduleChanges(biz.resources, rows.map(scheduleChangeOf));
}

export interface SlotFilters {
  partySize: number;
  resourceId?: string;
  locationId?: string;
}

/** The slots a query offers, with what a cache needs to know about how long they hold. */
export interface ComputedSlots {
  slots: SlotCandidate[];
  /** The first instant after `nowMs` at which a claim read stops counting by itself (a hold or pending booking expiring); Infinity when none will. */
  claimsChangeAtMs: number;
}

/**
 * The slots a query offers at `nowMs`, also offering starts up to `aheadMs` past the booking window's far end (see
 * SlotQuery.aheadMs), and saying when the claims it read change by the clock alone.
 */
export async function computeSlots(
  tx: Tx,
  biz: Business,
  service: ServiceDef,
  fromMs: number,
  toMs: number,
  nowMs: number,
  f: SlotFilters,
  aheadMs = 0,
): Promise<ComputedSlots> {
  const rows = await tx.claims.active(candidateResourceIds(service), fromMs - DAY_MS, toMs + DAY_MS, nowMs);
  let claimsChangeAtMs = Infinity;
  for (const r of rows)
    if (r.expires_at_ms !== null && r.expires_at_ms < claimsChangeAtMs) claimsChangeAtMs = r.expires_at_ms;
  const resources = await scheduledResources(tx, biz, candidateResourceIds(service));
  const slots = generateSlots({
    service,
    resources,
    zone: biz.zone,
    fromMs,
    toMs,
    nowMs,
    claims: rows.map(toClaim),
    partySize: f.partySize,
    resourceId: f.resourceId,
    locationId: f.locationId,
    aheadMs,
  });
  return { slots, claimsChangeAtMs };
}

export type SlotCheck =
  | { ok: true; slot: SlotCandidate; parts: SlotIdParts }
  | { ok: false; reason: 'malformed' | 'wrong_service' | 'window' | 'unavailable' | 'capacity' };

/**
 * Re-validate one slot at hold, booking or reschedule time, against the store as it is now inside
 * this transaction. Claims of `ignoreOwners` (the caller's own hold, or the booking being moved)
 * do not count against it.
 */
export async function checkSlot(
  tx: Tx,
  biz: Business,
  service: ServiceDef,
  slotId: string,
  partySize: number,
  nowMs: number,
  ignoreOwners: readonly string[] = [],
): Promise<SlotCheck> {
  // A suspended or archived service offers nothing (spec 3.3 status): no hold, booking or move onto it.
  if ((service.status ?? 'active') !== 'active') return { ok: false, reason: 'unavailable' };
  const ref = decodeSlotId(slotId);
  if (!ref) return { ok: false, reason: 'malformed' };
  // The id's tag names a resource combination of one service (tags are unique in a loaded business).
  const combination = slotTagIndex(service, biz.resources).get(ref.tag);
  if (
    !combination &&
    [...biz.services.values()].some((s) => s !== service && slotTagIndex(s, biz.resources).has(ref.tag))
  ) {
    return { ok: false, reason: 'wrong_service' };
  }
  const window = clipToBookingWindow(service, nowMs, ref.startMs, ref.startMs + 1);
  if (window.from >= window.to) return { ok: false, reason: 'window' };
  // A tag of no current combination: a resource left the service since the id was issued.
  if (!combination) return { ok: false, reason: 'unavailable' };
  const parts: SlotIdParts = { serviceId: service.id, startMs: ref.startMs, resourceIds: [...combination] };
  // Check-and-reserve: hold the slot's resources until commit so no other process can take them
  // meanwhile. The claims read follows at once: the locks may travel with it.
  await tx.lock(
    [...parts.resourceIds].sort().map((r) => `resource:${r}`),
    { beforeRead: true },
  );
  // Only the slot's own resources can make it unavailable. Their claims and schedule changes are
  // independent reads: a store may send both with the locks, in one round trip.
  const [claims, resources] = await tx.together(
    () => loadClaims(tx, service, parts.startMs, parts.startMs + 1, nowMs, ignoreOwners, parts.resourceIds),
    () => scheduledResources(tx, biz, parts.resourceIds),
  );
  const base = { service, resources, zone: biz.zone, nowMs, claims, partySize };
  const slot = findSlot(base, { startMs: parts.startMs, resourceIds: parts.resourceIds });
  if (slot && slot.state !== 'waitlist') return { ok: true, slot, parts };
  if (isCapacityType(service)) {
    // Distinguish "full for this party" from "gone": a single spot may still fit.
    const single =
      partySize > 1
        ? findSlot({ ...base, partySize: 1 }, { startMs: parts.startMs, resourceIds: parts.resourceIds })
        : null;
    if ((slot && slot.state === 'waitlist') || (single && single.state !== 'waitlist'))
      return { ok: false, reason: 'capacity' };
  }
  return { ok: false, reason: 'unavailable' };
}

/** A slot in the protocol's TimeSlot shape, times written in `zone`. */
export function presentSlot(
  slot: SlotCandidate,
  biz: Business,
  service: ServiceDef,
  zone: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: slot.id,
    service_id: slot.serviceId,
    start: formatInstant(slot.startMs, zone),
    end: formatInstant(slot.endMs, zone),
    duration: formatDuration(slot.durationMs),
    state: slot.state,
  };
  if (slot.capacity) out.capacity = { ...slot.capacity };
  if (slot.resourceIds.length > 0 && service.requirements.length > 0) {
    out.resources = slot.resourceIds.map((id) => {
      const r = biz.resources.get(id);
      return { id, type: r?.type ?? 'other', name: r?.name ?? id };
    });
  }
  if (slot.locationId) {
    const loc = biz.def.business.locations.find((l) => l.id === slot.locationId);
    if (loc) out.location = { id: loc.id, name: loc.name };
  }
  return out;
}

export function slotResources(
  biz: Business,
  resourceIds: readonly string[],
): Array<{ id: string; type: string; name: string }> {
  return resourceIds
    .filter((id) => !id.startsWith('service:'))
    .map((id) => {
      const r = biz.resources.get(id);
      return { id, type: r?.type ?? 'other', name: r?.name ?? id };
    });
}

export interface AvailabilityHint {
  summary: string;
  generated_at: string;
  next_available_date?: string;
}

const HINT_TTL_MS = 5 * 60_000;
const hintCache = new WeakMap<Business, Map<string, { at: number; hint: AvailabilityHint }>>();

/** Forget the cached hints of these services (their schedule changed at run time). */
export function forgetHints(biz: Business, serviceIds: readonly string[]): void {
  const perBiz = hintCache.get(biz);
  if (perBiz) for (const id of serviceIds) perBiz.delete(id);
}

/** `availability_hint` (spec 3.6) from real availability over the next 7 days, cached for five minutes. */
export async function availabilityHint(
  tx: Tx,
  biz: Business,
  service: ServiceDef,
  nowMs: number,
): Promise<AvailabilityHint> {
  let perBiz = hintCache.get(biz);
  if (!perBiz) hintCache.set(biz, (perBiz = new Map()));
  const cached = perBiz.get(service.id);
  if (cached && nowMs - cached.at < HINT_TTL_MS) return cached.hint;
  const { slots } = await computeSlots(tx, biz, service, nowMs, nowMs + 7 * DAY_MS, nowMs, { partySize: 1 });
  const open = slots.filter((s) => s.state !== 'waitlist');
  const hint: AvailabilityHint = { summary: '', generated_at: isoUtc(nowMs) };
  if (open.length === 0) {
    hint.summary = 'No openings in the next 7 days.';
  } else {
    const first = open[0];
    hint.next_available_date = localDate(first.startMs, biz.zone);
    const starts = new Set(open.map((s) => s.startMs));
    hint.summary = `${starts.size} start times open in the next 7 days; the next is ${formatInstant(first.startMs, biz.zone)} (${biz.zone}).`;
  }
  perBiz.set(service.id, { at: nowMs, hint });
  return hint;
}

export function claimRows(
  service: ServiceDef,
  slot: { key: string; startMs: number; resourceIds: readonly string[] },
  ownerId: string,
  spots: number,
  isHold: boolean,
  expiresAtMs: number | null,
): ClaimRow[] {
  const blocked = blockedInterval(service, slot.startMs);
  return slot.resourceIds.map((resource_id) => ({
    resource_id,
    start_ms: blocked.startMs,
    end_ms: blocked.endMs,
    slot_key: slot.key,
    owner_id: ownerId,
    spots,
    is_hold: isHold,
    service_id: service.id,
    expires_at_ms: expiresAtMs,
  }));
}
