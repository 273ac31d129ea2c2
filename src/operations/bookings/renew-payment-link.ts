/**
 * A fresh payment link for a booking whose link lapsed unpaid while its time is still free. The
 * lapsed booking stays canceled (spec 5.2: an expired booking is canceled and stays readable); the
 * same booking (service, time, party, buyer, notes, return address, platform) is made again with a
 * new payment action whose window is the business's (paymentDeadline), and the old one names it, so
 * a second call answers with the same new booking. Ours (the official documents have no such
 * operation), under our tool prefix and path. Refused in words when the time was taken since, when
 * the start has passed, or when nothing waits to be paid on the booking; a link still open is
 * answered with the booking as it is.
 */
import { z } from 'zod';
import { errorMessage, formatInstant, infoMessage, type BookingRecord } from '../../domain/index.js';
import { PLATFORM_BOOKING_CHANGE } from '../change-rows.js';
import { defineOperation, outcome } from '../core/define.js';
import {
  bookingCredentialExpiry,
  bookingNotFound,
  checkRevision,
  createBookingRecord,
  loadBooking,
} from './lifecycle.js';
import { checkSlot } from '../availability/slots.js';
import { serviceUnavailable } from '../availability/slot-refusals.js';
import { id, BOOKING_OUTPUT } from '../schemas.js';

/** Canceled by the system because its only payment action lapsed unpaid. */
export function lapsedUnpaid(rec: BookingRecord): boolean {
  const b = rec.booking;
  return (
    b.status === 'canceled' &&
    b.cancellation?.canceled_by === 'system' &&
    rec.priv.amount_paid === 0 &&
    (b.actions ?? []).some((a) => a.type === 'payment' && a.status === 'expired')
  );
}

export const renewPaymentLink = defineOperation({
  name: 'renew_payment_link',
  tool: 'uspserver_bookings_renew_payment',
  rest: { method: 'POST', path: '/ext/usp-server/bookings/{booking_id}/renew-payment', input: 'body' },
  extension: 'dev.usp-server.services.bookings',
  ...PLATFORM_BOOKING_CHANGE,
  output: BOOKING_OUTPUT,
  summary:
    'A booking whose payment link lapsed unpaid while its time is still free: the same booking made again with a fresh payment link (a new booking id; the lapsed one stays canceled).',
  input: z.object({ booking_id: id('The booking whose payment link lapsed.') }),
  async handle(inp, ctx) {
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) throw bookingNotFound(inp.booking_id);
    const b = rec.booking;
    const zone = ctx.biz.zone;
    // Renewed already (a second call, a retry without its key): the booking it became.
    if (rec.priv.renewed_as) {
      const made = await loadBooking(ctx, rec.priv.renewed_as);
      if (made)
        return outcome(
          infoMessage('already_in_state', `Booking ${b.id} was already made again as ${made.booking.id}.`),
          { booking: made.booking },
        );
    }
    const open =
      b.status === 'requires_action'
        ? b.actions?.find((a) => a.type === 'payment' && a.status === 'pending')
        : undefined;
    if (open) {
      return outcome(
        infoMessage(
          'already_in_state',
          `The payment link of booking ${b.id} is still open until ${formatInstant(Date.parse(open.expires_at), zone)}: ${open.continue_url}`,
        ),
        { booking: b },
      );
    }
    if (!lapsedUnpaid(rec)) {
      const why =
        b.status === 'canceled'
          ? `was canceled (${b.cancellation?.canceled_by ?? 'canceled'}), not for a lapsed payment link`
          : `is ${b.status}`;
      return outcome(
        errorMessage(
          'invalid_transition',
          `Booking ${b.id} ${why}: nothing waits to be paid on it, so there is no payment link to renew.`,
          '$.booking_id',
        ),
        {
          booking: b,
        },
      );
    }
    checkRevision(ctx, b.revision);
    const service = ctx.biz.services.get(b.service_id);
    if (!service || ctx.biz.published.get(service.id)?.status !== 'active')
      return outcome(serviceUnavailable(ctx, b.service_id), { booking: b });
    if (rec.priv.start_ms <= ctx.now) {
      return outcome(
        errorMessage(
          'slot_unavailable',
          `The time of booking ${b.id} (${b.slot.start}) has passed; a new booking needs another time.`,
          '$.booking_id',
        ),
        {
          booking: b,
        },
      );
    }
    const check = await checkSlot(ctx.tx, ctx.biz, service, b.slot.id, b.party_size, ctx.now, []);
    if (!check.ok) {
      return outcome(
        errorMessage(
          'slot_unavailable',
          `The time of booking ${b.id} (${b.slot.start}) was taken after its payment link lapsed; it cannot be made again.`,
          '$.booking_id',
        ),
        { booking: b },
      );
    }
    const made = await createBookingRecord(ctx, {
      service,
      slot: check.slot,
      buyer: b.buyer,
      recipient: b.recipient,
      partySize: b.party_size,
      deliveryAddress: b.delivery_address,
      notes: b.notes,
      postPaymentReturn: rec.priv.post_payment_return_request,
      owner: { principal: rec.priv.principal, profile: rec.priv.profile, accountId: rec.priv.account_id },
    });
    made.priv.renewed_from = b.id;
    await ctx.tx.bookings.update(made);
    rec.priv.renewed_as = made.booking.id;
    await ctx.tx.bookings.update(rec);
    const credential = await ctx.issueCredential('booking', made.booking.id, bookingCredentialExpiry(made));
    return {
      data: { booking: made.booking, ...(credential ? { booking_scoped_credential: credential } : {}) },
      messages: [
        infoMessage(
          'payment_link_renewed',
          `Booking ${b.id} stays canceled; it was made again as ${made.booking.id} with a fresh payment link.`,
        ),
      ],
    };
  },
});
