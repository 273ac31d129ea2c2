/**
 * A dispute is resolved for the buyer or for the business (spec 5.5.2). Business-only. The booking's
 * payment status changes only when the buyer wins (refunded or partially_refunded);
 * `booking.dispute_resolved` is raised in the same transaction, and a refund also raises
 * `booking.refund_issued`.
 */
import { z } from 'zod';
import { errorMessage, formatMoney, minorAmount, type DisputeMove } from '../../domain/index.js';
import { defineOperation, ok, outcome, requireBusiness } from '../core/define.js';
import { BUSINESS_BOOKING_CHANGE } from '../change-rows.js';
import { checkRevision, loadBooking, bookingNotFound } from './lifecycle.js';
import { checkDisputeMove, enterDisputeStatus } from '../payments/disputes.js';
import { id } from '../schemas.js';

export const resolveDispute = defineOperation({
  name: 'resolve_dispute',
  rest: { method: 'POST', path: '/admin/bookings/{booking_id}/dispute/resolve', input: 'body' },
  ...BUSINESS_BOOKING_CHANGE,
  cli: 'dispute-resolve',
  summary: "Resolve the booking's dispute for the buyer (a refund) or for the business; notifies the platform.",
  input: z.object({
    booking_id: id('The booking id.'),
    outcome: z.enum(['buyer', 'business']).describe('Who the dispute was resolved for.'),
    refund_amount: minorAmount(1)
      .optional()
      .describe(
        'Minor units refunded when resolved for the buyer (an integer, or a string of digits); default everything collected.',
      ),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) throw bookingNotFound(inp.booking_id);
    const b = rec.booking;
    const move: DisputeMove = inp.outcome === 'buyer' ? 'resolve_buyer' : 'resolve_business';
    checkDisputeMove(rec, move);
    const collected = rec.priv.amount_paid;
    if (inp.outcome === 'business' && inp.refund_amount !== undefined) {
      return outcome(
        errorMessage(
          'validation_error',
          'A dispute resolved for the business refunds nothing; leave out refund_amount.',
          '$.refund_amount',
        ),
        { booking: b },
      );
    }
    const refund = inp.outcome === 'buyer' ? (inp.refund_amount ?? collected) : 0;
    if (refund > collected) {
      const currency = b.payment?.currency ?? ctx.biz.services.get(b.service_id)?.pricing.currency ?? 'USD';
      return outcome(
        errorMessage(
          'validation_error',
          `At most ${formatMoney(collected, currency)} was collected, so no more can be refunded.`,
          '$.refund_amount',
        ),
        { booking: b },
      );
    }
    checkRevision(ctx, b.revision);
    enterDisputeStatus(ctx, rec, move, refund);
    await ctx.tx.bookings.update(rec);
    return ok({ booking: b });
  },
});
