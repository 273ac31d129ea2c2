/**
 * What the front desk types for a walk-in or a phone booking, turned into what a booking needs:
 * the person (a name, and an email and/or a phone number; a phone-only client gets a placeholder
 * email at a reserved domain, since the protocol's buyer carries one) and, when the business books
 * over its normal rules, the slot at a chosen start on a chosen staff member or resource.
 */
import { z } from 'zod';
import {
  type Buyer,
  type ServiceDef,
  type SlotCandidate,
  blockedInterval,
  decodeSlotId,
  encodeSlotId,
  localToUtcMs,
  parseInstant,
  phoneOnlyEmail,
  serviceCombinations,
  slotDurationMs,
  slotKey,
  slotTagIndex,
} from '../../domain/index.js';
import type { Business } from '../business.js';
import { oneLine } from '../schemas.js';
import type { Tx } from '../../store/index.js';

export const WalkInBuyer = z
  .object({
    first_name: oneLine(z.string().trim().min(1, 'a name is required').max(200)),
    last_name: oneLine(z.string().trim().max(200)).optional(),
    email: oneLine(z.email().max(320)).optional(),
    phone_number: oneLine(z.string().trim().max(50)).optional(),
  })
  .refine((b) => !!b.email || !!b.phone_number, { message: 'an email or a phone number is required', path: ['email'] })
  .describe('The person at the counter or on the phone: a name, and an email and/or a phone number.');

/** The protocol's buyer for a walk-in: a missing last name is '-', a missing email the phone's placeholder. */
export function walkInBuyer(b: z.output<typeof WalkInBuyer>): Buyer {
  const buyer: Buyer = {
    first_name: b.first_name,
    last_name: b.last_name || '-',
    email: b.email ?? phoneOnlyEmail(b.phone_number ?? ''),
  };
  if (b.phone_number) buyer.phone_number = b.phone_number;
  return buyer;
}

/** An RFC 3339 instant, or a local date-time without offset (a form's datetime-local) read in the business's zone. */
export function instantOrLocal(s: string, zone: string): number | null {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?$/.exec(s);
  return m ? localToUtcMs(m[1], m[2], zone) : parseInstant(s);
}

export type OverrideSlot = { ok: true; slot: SlotCandidate } | { ok: false; field: string; why: string };

/**
 * The slot a business books over its rules: at `startMs` (or a slot id's start), on the resource
 * combination that includes `resourceId` (or the slot id's, or the first), wherever the booking
 * window and opening hours would have put it. Only the claims decide: a resource already busy
 * at any instant of the blocked interval (buffers included) refuses it, so double-booking never
 * happens. Locks the resources until commit, like every check-and-reserve.
 */
export async function overrideSlot(
  tx: Tx,
  biz: Business,
  service: ServiceDef,
  at: { startMs?: number; slotId?: string; resourceId?: string },
  nowMs: number,
): Promise<OverrideSlot> {
  let startMs = at.startMs;
  let combination: string[] | undefined;
  if (at.slotId !== undefined) {
    const ref = decodeSlotId(at.slotId);
    const fromTag = ref ? slotTagIndex(service, biz.resources).get(ref.tag) : undefined;
    if (!ref || !fromTag) return { ok: false, field: 'slot_id', why: 'That slot id does not belong to this service.' };
    startMs ??= ref.startMs;
    combination = [...fromTag];
  }
  if (startMs === undefined) return { ok: false, field: 'start', why: 'Give the start (or a slot id) of the booking.' };
  const all = serviceCombinations(service, biz.resources);
  if (at.resourceId !== undefined) combination = all.find((c) => c.includes(at.resourceId!));
  combination ??= all[0];
  if (!combination)
    return {
      ok: false,
      field: 'resource_id',
      why: at.resourceId ? `${at.resourceId} does not deliver this service.` : 'No resource delivers this service.',
    };
  const resourceIds = combination;
  await tx.lock([...resourceIds].sort().map((r) => `resource:${r}`));
  const blocked = blockedInterval(service, startMs);
  const claims = await tx.claims.active(resourceIds, blocked.startMs, blocked.endMs, nowMs);
  const busy = claims.find((c) => c.start_ms < blocked.endMs && c.end_ms > blocked.startMs);
  if (busy) {
    const who = biz.resources.get(busy.resource_id)?.name ?? 'This service';
    return {
      ok: false,
      field: 'start',
      why: `${who} is already booked then; a resource is never double-booked, even over the rules.`,
    };
  }
  const durationMs = slotDurationMs(service);
  const parts = { serviceId: service.id, startMs, resourceIds };
  const slot: SlotCandidate = {
    key: slotKey(parts),
    id: encodeSlotId(parts),
    serviceId: service.id,
    startMs,
    endMs: startMs + durationMs,
    durationMs,
    resourceIds: [...resourceIds],
    state: 'available',
  };
  const locationId = locationOf(biz, service, resourceIds);
  if (locationId) slot.locationId = locationId;
  return { ok: true, slot };
}

function locationOf(biz: Business, service: ServiceDef, resourceIds: readonly string[]): string | undefined {
  for (const id of resourceIds) {
    const loc = biz.resources.get(id)?.location_id;
    if (loc) return loc;
  }
  return service.location_ids && service.location_ids.length === 1 ? service.location_ids[0] : undefined;
}
