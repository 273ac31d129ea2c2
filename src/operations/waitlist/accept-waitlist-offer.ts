/** Accept a waitlist offer (spec 11.1): books the offered place atomically, in the same transaction. */
import { z } from 'zod';
import { errorMessage, nextWaitlistStatus, type WaitlistRecord } from '../../domain/index.js';
import { defineOperation, ok, outcome } from '../core/define.js';
import { checkSlot } from '../availability/slots.js';
import { bookingCredentialExpiry, checkRevision, createBookingRecord } from '../bookings/lifecycle.js';
import { enterEntryStatus, loadEntry, partyOf } from './offers.js';
import { entryConflict, entryNotFound } from './entries.js';
import type { OperationContext } from '../core/context.js';
import { id, Out } from '../schemas.js';
import { holdView } from '../availability/holds.js';
import { serviceUnavailable } from '../availability/slot-refusals.js';

const CAP = 'dev.usp-protocol.services.waitlist' as const;

export const acceptWaitlistOffer = defineOperation({
  name: 'accept_waitlist_offer',
  tool: 'usp_waitlist_accept',
  view: 'booking_card',
  rest: { method: 'POST', path: '/waitlist/{entry_id}/accept', input: 'body' },
  resource: { kind: 'waitlist_entry', key: 'entry_id' },
  access: 'privileged_scoped',
  scopes: ['usp:booking'],
  rate: { bucket: 'bookings' },
  capability: CAP,
  page: 'waitlist_offer_accept',
  mutating: true,
  conditional: true,
  writes: true,
  output: { entry: Out.object, booking: Out.object },
  summary: 'Accept the offered place: books it in the same step.',
  input: z.object({ entry_id: id('The waitlist entry id.'), hold_id: z.string().max(512).optional() }),
  async handle(inp, ctx) {
    const rec = await loadEntry(ctx, inp.entry_id);
    if (!rec) throw entryNotFound(inp.entry_id);
    const e = rec.entry;
    if (e.status === 'accepted')
      return outcome(errorMessage('offer_already_accepted', 'This offer was already accepted.'), { entry: e });
    if (e.status === 'expired')
      return outcome(
        errorMessage(
          'offer_expired',
          'The offer window has passed; the buyer stays off the list until they join again.',
        ),
        { entry: e },
      );
    if (!nextWaitlistStatus(e.status, 'accept')) throw entryConflict(rec, 'accepted: there is no open offer');
    checkRevision(ctx, e.revision);
    return acceptOffer(ctx, rec);
  },
});

async function acceptOffer(ctx: OperationContext, rec: WaitlistRecord) {
  const e = rec.entry;
  const service = ctx.biz.services.get(e.service_id)!;
  if (ctx.biz.published.get(service.id)?.status !== 'active')
    return outcome(serviceUnavailable(ctx, service.id), { entry: e });
  const hold = rec.priv.offer_hold_id ? await ctx.tx.holds.get(rec.priv.offer_hold_id) : null;
  const heldOk = hold && holdView(hold, ctx.now).status === 'active';
  const check = await checkSlot(
    ctx.tx,
    ctx.biz,
    service,
    e.offered_slot!.slot_id,
    partyOf(rec),
    ctx.now,
    heldOk ? [hold!.hold.id] : [],
  );
  if (!check.ok)
    return outcome(errorMessage('slot_unavailable', 'The offered place is no longer available.'), { entry: e });
  const booking = await createBookingRecord(ctx, {
    service,
    slot: check.slot,
    buyer: e.buyer,
    partySize: partyOf(rec),
    hold: heldOk ? hold! : undefined,
    waitlistEntryId: e.id,
  });
  await enterEntryStatus(ctx, rec, 'accept', (r) => {
    r.priv.booking_id = booking.booking.id;
  });
  const credential = await ctx.issueCredential('booking', booking.booking.id, bookingCredentialExpiry(booking));
  return ok({ entry: e, booking: booking.booking, ...(credential ? { booking_scoped_credential: credential } : {}) });
}
