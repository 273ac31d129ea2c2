/**
 * Waitlist extension operations (spec 11.1). Entries are visible only to the principal that
 * created them (decision D15); accepting an offer books atomically in the same transaction.
 */
import { z } from 'zod';
import { errorMessage, type WaitlistRecord, decodeSlotId } from '../../domain/index.js';
import { ProtocolError, invalidRequest } from '../errors.js';
import { defineOperation, ok, outcome } from '../define.js';
import { checkSlot } from '../steps/slots.js';
import { bookingCredentialExpiry, checkRevision, createBookingRecord } from '../steps/booking-lifecycle.js';
import { announcePositions, emitWaitlistEvent, endOffer, loadEntry, settleEntry } from '../steps/waitlist-offers.js';
import { iso, newRevision, type OperationContext } from '../context.js';
import { Buyer, decodeCursor, encodeCursor, id } from '../schemas.js';
import { holdView } from '../availability/release-hold.js';

const CAP = 'dev.usp-protocol.services.waitlist' as const;
/** A waitlist entry stays actionable this long (its credential's lifetime). */
const WAITLIST_CREDENTIAL_DAYS = 90;
const WAITLIST_STATUSES = ['waiting', 'offered', 'accepted', 'expired', 'declined', 'removed'] as const;

const entryNotFound = (entryId: string) =>
  outcome(errorMessage('entry_not_found', `No waitlist entry ${JSON.stringify(entryId)} belongs to this platform.`, '$.entry_id'));

export const joinWaitlist = defineOperation({
  name: 'join_waitlist',
  tool: 'usp_waitlist_join',
  rest: { method: 'POST', path: '/waitlist', input: 'body' },
  access: 'privileged_platform',
  rate: { bucket: 'bookings' },
  capability: CAP,
  mutating: true,
  conditional: false,
  writes: true,
  summary: 'Put a buyer on the waitlist of a full service or slot.',
  input: z.object({
    service_id: id('The service to wait for.'),
    slot_id: z.string().max(512).optional().describe('A specific full slot to wait for; omit to take any matching place.'),
    buyer: Buyer,
    preferred_slots: z
      .array(
        z.object({
          start_date: z.iso.date().optional(),
          end_date: z.iso.date().optional(),
          time_of_day: z.string().max(50).optional().describe('morning, afternoon or evening'),
        }),
      )
      .max(20)
      .optional(),
  }),
  async handle(inp, ctx) {
    const service = ctx.biz.services.get(inp.service_id);
    if (!service) return outcome(errorMessage('validation_error', `No service has the id ${JSON.stringify(inp.service_id)}.`, '$.service_id'));
    if (!service.capacity?.waitlist) {
      return outcome(errorMessage('waitlist_not_available', 'This service has no waitlist; query availability for open slots instead.', '$.service_id'));
    }
    if (inp.slot_id) {
      const p = decodeSlotId(inp.slot_id);
      if (!p || p.serviceId !== service.id) return outcome(errorMessage('validation_error', 'That slot id does not belong to this service.', '$.slot_id'));
    }
    const line = await ctx.tx.waitlist.byService(service.id, ['waiting', 'offered']);
    if (line.length >= ctx.biz.def.settings.max_waitlist_entries) {
      return outcome(errorMessage('waitlist_full', 'The waitlist for this service is full.'));
    }
    const rec: WaitlistRecord = {
      entry: {
        id: ctx.ids.next('wle'),
        service_id: service.id,
        buyer: inp.buyer,
        status: 'waiting',
        position: line.length + 1,
        created_at: iso(ctx.now),
        revision: newRevision(ctx),
      },
      // Queue order is (created_ms, id) and ids are random: keep created_ms strictly increasing in line so same-millisecond joins stay in join order.
      priv: { principal: ctx.caller.principal, profile: ctx.caller.profile, created_ms: line.reduce((m, w) => Math.max(m, w.priv.created_ms + 1), ctx.now) },
    };
    if (inp.slot_id) rec.entry.slot_id = inp.slot_id;
    if (inp.preferred_slots) rec.entry.preferred_slots = inp.preferred_slots;
    await ctx.tx.waitlist.insert(rec);
    const credential = await ctx.issueCredential('waitlist_entry', rec.entry.id, ctx.now + WAITLIST_CREDENTIAL_DAYS * 86_400_000);
    return ok({ entry: rec.entry, ...(credential ? { booking_scoped_credential: credential } : {}) }, 201);
  },
});

export const listWaitlist = defineOperation({
  name: 'list_waitlist',
  tool: 'usp_waitlist_list',
  rest: { method: 'POST', path: '/waitlist/list', input: 'body' },
  access: 'privileged_platform',
  capability: CAP,
  mutating: false,
  conditional: false,
  writes: true,
  summary: "List this platform's waitlist entries.",
  input: z.object({
    service_id: z.string().max(512).optional(),
    status: z.enum(WAITLIST_STATUSES).optional(),
    pagination: z.object({ cursor: z.string().max(2048).nullable().optional(), limit: z.number().int().min(1).max(100).optional() }).optional(),
  }),
  async handle(inp, ctx) {
    const limit = inp.pagination?.limit ?? 20;
    let after: { m: number; i: string } | undefined;
    if (inp.pagination?.cursor) {
      const c = decodeCursor(inp.pagination.cursor);
      if (!c || typeof c.m !== 'number' || typeof c.i !== 'string') {
        throw invalidRequest('pagination.cursor is not a cursor this business issued.', [{ field: 'pagination.cursor', message: 'unknown cursor' }]);
      }
      after = { m: c.m, i: c.i };
    }
    const rows = await ctx.tx.waitlist.list({
      principal: ctx.caller.business ? null : ctx.caller.principal,
      serviceId: inp.service_id,
      status: inp.status,
      afterCreatedMs: after?.m,
      afterId: after?.i,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    for (const r of page) await settleEntry(ctx, r);
    const last = page[page.length - 1];
    const more = rows.length > limit;
    const next = more && last ? encodeCursor({ m: last.priv.created_ms, i: last.entry.id }) : null;
    return ok({ entries: page.map((r) => r.entry), pagination: { cursor: next, has_more: more, ...(next ? { next_cursor: next } : {}) } });
  },
});

const byEntry = z.object({ entry_id: id('The waitlist entry id.') });

export const getWaitlistEntry = defineOperation({
  name: 'get_waitlist_entry',
  tool: 'usp_waitlist_get',
  rest: { method: 'GET', path: '/waitlist/{entry_id}', input: 'none' },
  resource: { kind: 'waitlist_entry', key: 'entry_id' },
  access: 'privileged_scoped',
  capability: CAP,
  mutating: false,
  conditional: false,
  writes: true,
  summary: 'Read a waitlist entry: position, and the offered slot when one is offered.',
  input: byEntry,
  async handle(inp, ctx) {
    const rec = await loadEntry(ctx, inp.entry_id);
    if (!rec) return entryNotFound(inp.entry_id);
    return ok({ entry: rec.entry });
  },
});

function entryConflict(rec: WaitlistRecord, what: string): ProtocolError {
  return new ProtocolError('booking_state_conflict', `This waitlist entry is ${rec.entry.status}; it cannot be ${what}.`, {
    detailCode: 'entry_state_conflict',
    extra: { current_status: rec.entry.status },
  });
}

export const leaveWaitlist = defineOperation({
  name: 'leave_waitlist',
  tool: 'usp_waitlist_leave',
  rest: { method: 'DELETE', path: '/waitlist/{entry_id}', input: 'none' },
  resource: { kind: 'waitlist_entry', key: 'entry_id' },
  access: 'privileged_scoped',
  capability: CAP,
  mutating: true,
  conditional: true,
  writes: true,
  summary: 'Take a buyer off the waitlist.',
  input: byEntry,
  async handle(inp, ctx) {
    const rec = await loadEntry(ctx, inp.entry_id);
    if (!rec) return entryNotFound(inp.entry_id);
    if (rec.entry.status === 'removed') return ok({ entry: rec.entry });
    if (rec.entry.status === 'accepted') throw entryConflict(rec, 'left after its offer was accepted');
    checkRevision(ctx, rec.entry.revision);
    if (rec.entry.status === 'offered') await endOffer(ctx, rec, 'declined');
    rec.entry.status = 'removed';
    rec.entry.revision = newRevision(ctx);
    await ctx.tx.waitlist.update(rec);
    await ctx.tx.security.revokeCredentials(rec.entry.id);
    await announcePositions(ctx, rec.entry.service_id);
    return ok({ entry: rec.entry });
  },
});

export const acceptWaitlistOffer = defineOperation({
  name: 'accept_waitlist_offer',
  tool: 'usp_waitlist_accept',
  rest: { method: 'POST', path: '/waitlist/{entry_id}/accept', input: 'body' },
  resource: { kind: 'waitlist_entry', key: 'entry_id' },
  access: 'privileged_scoped',
  rate: { bucket: 'bookings' },
  capability: CAP,
  mutating: true,
  conditional: true,
  writes: true,
  summary: 'Accept the offered place: books it in the same step.',
  input: z.object({ entry_id: id('The waitlist entry id.'), hold_id: z.string().max(512).optional() }),
  async handle(inp, ctx) {
    const rec = await loadEntry(ctx, inp.entry_id);
    if (!rec) return entryNotFound(inp.entry_id);
    const e = rec.entry;
    if (e.status === 'accepted') return outcome(errorMessage('offer_already_accepted', 'This offer was already accepted.'), { entry: e });
    if (e.status === 'expired') return outcome(errorMessage('offer_expired', 'The offer window has passed; the buyer stays off the list until they join again.'), { entry: e });
    if (e.status !== 'offered') throw entryConflict(rec, 'accepted: there is no open offer');
    checkRevision(ctx, e.revision);
    return acceptOffer(ctx, rec);
  },
});

async function acceptOffer(ctx: OperationContext, rec: WaitlistRecord) {
  const e = rec.entry;
  const service = ctx.biz.services.get(e.service_id)!;
  const hold = rec.priv.offer_hold_id ? await ctx.tx.holds.get(rec.priv.offer_hold_id) : null;
  const heldOk = hold && holdView(hold, ctx.now).status === 'active';
  const check = await checkSlot(ctx.tx, ctx.biz, service, e.offered_slot!.slot_id, 1, ctx.now, heldOk ? [hold!.hold.id] : []);
  if (!check.ok) return outcome(errorMessage('slot_unavailable', 'The offered place is no longer available.'), { entry: e });
  const booking = await createBookingRecord(ctx, {
    service,
    slot: check.slot,
    buyer: e.buyer,
    partySize: 1,
    hold: heldOk ? hold! : undefined,
    waitlistEntryId: e.id,
  });
  e.status = 'accepted';
  e.revision = newRevision(ctx);
  delete e.offer_expires_at;
  rec.priv.offer_expires_ms = undefined;
  rec.priv.booking_id = booking.booking.id;
  await ctx.tx.waitlist.update(rec);
  emitWaitlistEvent(ctx, 'waitlist.converted', rec);
  await ctx.tx.security.revokeCredentials(e.id);
  await announcePositions(ctx, e.service_id);
  const credential = await ctx.issueCredential('booking', booking.booking.id, bookingCredentialExpiry(booking));
  return ok({ entry: e, booking: booking.booking, ...(credential ? { booking_scoped_credential: credential } : {}) });
}

export const declineWaitlistOffer = defineOperation({
  name: 'decline_waitlist_offer',
  tool: 'usp_waitlist_decline',
  rest: { method: 'POST', path: '/waitlist/{entry_id}/decline', input: 'body' },
  resource: { kind: 'waitlist_entry', key: 'entry_id' },
  access: 'privileged_scoped',
  capability: CAP,
  mutating: true,
  conditional: true,
  writes: true,
  summary: 'Decline the offered place; it goes to the next buyer in line.',
  input: byEntry,
  async handle(inp, ctx) {
    const rec = await loadEntry(ctx, inp.entry_id);
    if (!rec) return entryNotFound(inp.entry_id);
    if (rec.entry.status === 'declined') return ok({ entry: rec.entry });
    if (rec.entry.status === 'expired') return outcome(errorMessage('offer_expired', 'The offer had already expired.'), { entry: rec.entry });
    if (rec.entry.status !== 'offered') throw entryConflict(rec, 'declined: there is no open offer');
    checkRevision(ctx, rec.entry.revision);
    await endOffer(ctx, rec, 'declined');
    return ok({ entry: rec.entry });
  },
});
