import { z } from 'zod';
import { errorMessage, formatMoney, minorAmount } from '../../domain/index.js';
import { iso } from '../core/context.js';
import { defineOperation, ok, outcome, requireBusiness } from '../core/define.js';
import { BUSINESS_BOOKING_CHANGE } from '../change-rows.js';
import {
  checkRevision,
  emitBookingEvent,
  loadBooking,
  bookingNotFound,
  movePayment,
  touch,
} from '../bookings/lifecycle.js';
import { refundableAmount, refundsThroughProvider, requestRefund } from '../payments/provider-money.js';
import { id, BOOKING_OUTPUT } from '../schemas.js';

/**
 * The business gives money back on a booking, whatever its state (a goodwill gesture, a fee
 * waived after the fact), with a reason kept on its record: all that is left to refund, or
 * `amount` of it. Paid through the provider
 * (Stripe), the refund is asked of it after commit and `booking.refund_issued` follows its
 * confirmation, as for a cancellation's refund; otherwise it is recorded at once (what was
 * collected goes down, so a later cancellation refunds only the rest) and announced.
 */
export const refundBookingPayment = defineOperation({
  name: 'refund_booking_payment',
  rest: { method: 'POST', path: '/admin/bookings/{booking_id}/refund', input: 'body' },
  ...BUSINESS_BOOKING_CHANGE,
  destructive: true,
  dashboard: 'refund',
  output: BOOKING_OUTPUT,
  summary:
    "The business refunds a booking's payment, in full or in part (minor units, at most what is paid and not yet refunded).",
  input: z.object({
    booking_id: id('The booking id.'),
    amount: minorAmount(1)
      .optional()
      .describe('Minor units to refund (an integer, or a string of digits); all that is left to refund when omitted.'),
    reason: z.string().trim().min(1, 'a reason is required').max(1000),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) throw bookingNotFound(inp.booking_id);
    checkRevision(ctx, rec.booking.revision);
    const viaProvider = refundsThroughProvider(ctx, rec);
    const left = refundableAmount(rec, viaProvider);
    const money = (n: number) => formatMoney(n, rec.booking.payment?.currency ?? 'USD');
    if (left <= 0)
      return outcome(
        errorMessage('validation_error', 'Nothing paid on this booking is left to refund.', '$.booking_id'),
        { booking: rec.booking },
      );
    const amount = inp.amount ?? left;
    if (amount > left) {
      return outcome(
        errorMessage(
          'validation_error',
          `At most ${money(left)} can be refunded on this booking (paid and not yet refunded); ${money(amount)} was asked.`,
          '$.amount',
        ),
        { booking: rec.booking },
      );
    }
    const log = (rec.priv.business_refunds ??= []);
    if (viaProvider) {
      const before = rec.priv.provider!.refunds.length;
      await requestRefund(ctx, rec, amount);
      log.push({
        amount,
        reason: inp.reason,
        at: iso(ctx.now),
        provider_jobs: rec.priv.provider!.refunds.slice(before).map((r) => r.job_id),
      });
      await ctx.tx.bookings.update(rec);
      return ok({ booking: rec.booking });
    }
    rec.priv.amount_paid -= amount;
    log.push({ amount, reason: inp.reason, at: iso(ctx.now) });
    const b = rec.booking;
    movePayment(b, refundableAmount(rec, false) > 0 ? 'refund_part' : 'refund_all');
    touch(rec, ctx);
    await ctx.tx.bookings.update(rec);
    emitBookingEvent(ctx, 'booking.refund_issued', rec, { refund_amount: amount });
    return ok({ booking: b });
  },
});
