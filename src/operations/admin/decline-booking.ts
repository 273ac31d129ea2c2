import { z } from 'zod';
import { nextStatus } from '../../domain/index.js';
import { iso } from '../core/context.js';
import { refundableAmount, refundsThroughProvider, requestRefund } from '../payments/provider-money.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { BUSINESS_BOOKING_CHANGE } from '../change-rows.js';
import {
  checkRevision,
  endBooking,
  loadBooking,
  movePayment,
  stateConflict,
  bookingNotFound,
} from '../bookings/lifecycle.js';
import { id, BOOKING_OUTPUT } from '../schemas.js';

/**
 * The business turns down a booking that waits for its confirmation: the booking is canceled by
 * the business with the reason given, no fee, and everything collected refunded; the slot is freed.
 */
export const declineBooking = defineOperation({
  name: 'decline_booking',
  rest: { method: 'POST', path: '/admin/bookings/{booking_id}/decline', input: 'body' },
  ...BUSINESS_BOOKING_CHANGE,
  destructive: true,
  dashboard: 'decline',
  output: BOOKING_OUTPUT,
  summary: 'The business declines a pending booking: canceled with the reason, no fee, payments refunded.',
  input: z.object({
    booking_id: id('The booking id.'),
    reason: z.string().trim().min(1, 'a reason is required').max(1000),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) throw bookingNotFound(inp.booking_id);
    // Only a booking still waiting for the business's word can be declined.
    if (rec.booking.status !== 'pending' || !nextStatus(rec.booking.status, 'cancel'))
      throw stateConflict(rec, 'declined');
    checkRevision(ctx, rec.booking.revision);
    // Everything still held is refunded: collected, less what the business already refunded.
    const paidThroughProvider = refundsThroughProvider(ctx, rec);
    const refund = refundableAmount(rec, paidThroughProvider);
    // Paid through the provider: the refund is asked of it after commit, and recorded when it confirms.
    const viaProvider = refund > 0 && paidThroughProvider;
    if (viaProvider) await requestRefund(ctx, rec, refund);
    await endBooking(
      ctx,
      rec,
      'cancel',
      { canceled_by: 'business', reason: inp.reason, fee: 0, refund_amount: refund, canceled_at: iso(ctx.now) },
      (b) => {
        if (refund > 0 && !viaProvider) movePayment(b, 'refund_all');
      },
    );
    return ok({ booking: rec.booking });
  },
});
