import { z } from 'zod';
import {
  errorMessage,
  cancellationTerms,
  formatMoney,
  parseDuration,
  operationPermitted,
  type Booking,
  type Message,
} from '../../domain/index.js';
import { defineOperation, ok, outcome } from '../core/define.js';
import { PLATFORM_BOOKING_CHANGE } from '../change-rows.js';
import {
  checkRevision,
  emitBookingEvent,
  endBooking,
  loadBooking,
  movePayment,
  stateConflict,
  bookingNotFound,
} from './lifecycle.js';
import { iso } from '../core/context.js';
import { refundableAmount, refundsThroughProvider, requestRefund } from '../payments/provider-money.js';
import { id, BOOKING_OUTPUT } from '../schemas.js';
import { spokenDuration } from './policy-fees.js';

export const cancelBooking = defineOperation({
  name: 'cancel_booking',
  tool: 'usp_bookings_cancel',
  view: 'booking_card',
  rest: { method: 'POST', path: '/bookings/{booking_id}/cancel', input: 'body' },
  ...PLATFORM_BOOKING_CHANGE,
  destructive: true,
  dashboard: 'cancel',
  page: 'booking_cancel',
  cli: 'cancel',
  output: BOOKING_OUTPUT,
  summary: 'Cancel a booking under the service cancellation policy; frees the slot.',
  input: z.object({ booking_id: id('The booking id.'), reason: z.string().max(1000).optional() }),
  async handle(inp, ctx) {
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) throw bookingNotFound(inp.booking_id);
    const service = ctx.biz.services.get(rec.booking.service_id)!;
    const byBusiness = ctx.caller.business;
    // Refuse moves the state machine does not allow before anything else is evaluated.
    if (!operationPermitted(rec.booking.status, 'cancel')) throw stateConflict(rec, 'canceled');
    checkRevision(ctx, rec.booking.revision);
    // What is still held of the buyer's money: collected, less what the business already refunded (or asked the provider to).
    const paidThroughProvider = refundsThroughProvider(ctx, rec);
    const held = refundableAmount(rec, paidThroughProvider);
    const terms = cancellationTerms(
      service,
      rec.priv.start_ms,
      ctx.now,
      held,
      byBusiness,
      parseDuration,
      rec.priv.price_total,
    );
    if (!terms.allowed) {
      const why =
        terms.reason === 'not_allowed'
          ? 'This service does not allow cancellation.'
          : 'It is too close to the start time to cancel this booking.';
      return outcome(errorMessage('cancellation_not_allowed', why), { booking: rec.booking });
    }
    const cancellation: NonNullable<Booking['cancellation']> = {
      canceled_by: byBusiness ? 'business' : 'buyer',
      fee: terms.fee,
      refund_amount: terms.refund,
      canceled_at: iso(ctx.now),
    };
    if (inp.reason) cancellation.reason = inp.reason;
    // The part of the fee not kept out of what was collected is still owed: the payment block says so.
    const owed = terms.fee - Math.min(terms.fee, held);
    // Paid through the provider: the refund is asked of it after commit, and recorded when it confirms.
    const viaProvider = terms.refund > 0 && paidThroughProvider;
    if (viaProvider) await requestRefund(ctx, rec, terms.refund);
    await endBooking(ctx, rec, 'cancel', cancellation, (b) => {
      if (owed > 0 && !b.payment)
        b.payment = { status: 'pending', timing: 'at_service', currency: service.pricing.currency, amount_due: 0 };
      if (b.payment) {
        if (terms.refund > 0 && !viaProvider) movePayment(b, terms.refund >= held ? 'refund_all' : 'refund_part');
        else if (owed > 0) movePayment(b, 'owe');
        b.payment.amount_due = owed;
      }
    });
    const b = rec.booking;
    if (terms.refund > 0 && !viaProvider)
      emitBookingEvent(ctx, 'booking.refund_issued', rec, { refund_amount: terms.refund });
    if (terms.fee > 0)
      return {
        data: { booking: b },
        messages: [
          feeWarning(
            terms.fee,
            owed,
            terms.refund,
            service.pricing.currency,
            service.policies.cancellation.free_cancellation_until,
          ),
        ],
        status: 200,
      };
    return ok({ booking: b });
  },
});

/** A late cancellation never costs money silently: the answer says what the fee is and how it is settled. */
function feeWarning(
  fee: number,
  owed: number,
  refund: number,
  currency: string,
  freeUntil: string | undefined,
): Message {
  const money = (n: number) => formatMoney(n, currency);
  const when = freeUntil
    ? `less than ${spokenDuration(parseDuration(freeUntil))} before the start`
    : 'after the free-cancellation window';
  const settled =
    owed > 0
      ? `${money(owed)} is due from the buyer (booking.payment.amount_due).`
      : `It was kept from the payment${refund > 0 ? `; ${money(refund)} is refunded` : ''}.`;
  return {
    type: 'warning',
    code: 'late_cancellation_fee',
    content: `A late-cancellation fee of ${money(fee)} applies: the booking was canceled ${when}. ${settled}`,
    severity: 'requires_buyer_review',
    path: '$.booking.cancellation.fee',
  };
}
