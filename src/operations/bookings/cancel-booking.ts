import { z } from 'zod';
import { errorMessage, cancellationTerms, parseDuration, nextStatus } from '../../domain/index.js';
import { defineOperation, ok, outcome } from '../define.js';
import { checkRevision, emitBookingEvent, freeSlot, loadBooking, move, stateConflict } from '../engine/bookings.js';
import { iso } from '../runtime.js';
import { id } from '../schemas.js';
import { bookingNotFound } from './get-booking.js';

export const cancelBooking = defineOperation({
  name: 'cancel_booking',
  tool: 'usp_bookings_cancel',
  rest: { method: 'POST', path: '/bookings/{booking_id}/cancel', input: 'body' },
  resource: { kind: 'booking', key: 'booking_id' },
  access: 'privileged_scoped',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: true,
  conditional: true,
  writes: true,
  summary: 'Cancel a booking under the service cancellation policy; frees the slot.',
  input: z.object({ booking_id: id('The booking id.'), reason: z.string().max(1000).optional() }),
  async handle(inp, ctx) {
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) return bookingNotFound(inp.booking_id);
    const service = ctx.biz.services.get(rec.booking.service_id)!;
    const byBusiness = ctx.caller.business;
    // Refuse moves the state machine does not allow before anything else is evaluated.
    if (!nextStatus(rec.booking.status, 'cancel')) throw stateConflict(rec, 'canceled');
    checkRevision(ctx, rec.booking.revision);
    const terms = cancellationTerms(service, rec.priv.start_ms, ctx.now, rec.priv.amount_paid, byBusiness, parseDuration);
    if (!terms.allowed) {
      const why = terms.reason === 'not_allowed' ? 'This service does not allow cancellation.' : 'It is too close to the start time to cancel this booking.';
      return outcome(errorMessage('cancellation_not_allowed', why), { booking: rec.booking });
    }
    move(rec, 'cancel', ctx);
    const b = rec.booking;
    b.cancellation = {
      canceled_by: byBusiness ? 'business' : 'buyer',
      fee: terms.fee,
      refund_amount: terms.refund,
      canceled_at: iso(ctx.now),
    };
    if (inp.reason) b.cancellation.reason = inp.reason;
    for (const a of b.actions ?? []) if (a.status === 'pending') a.status = 'expired';
    delete b.expires_at;
    rec.priv.expires_at_ms = undefined;
    if (b.payment) {
      if (terms.refund > 0) b.payment.status = terms.refund >= rec.priv.amount_paid ? 'refunded' : 'partially_refunded';
      b.payment.amount_due = 0;
    }
    await ctx.tx.bookings.update(rec);
    await freeSlot(ctx, rec);
    emitBookingEvent(ctx, 'booking.canceled', rec);
    if (terms.refund > 0) emitBookingEvent(ctx, 'booking.refund_issued', rec, { refund_amount: terms.refund });
    return ok({ booking: b });
  },
});
