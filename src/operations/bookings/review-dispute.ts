/** The open dispute on a booking is put under review (spec 5.5.2). Business-only. */
import { z } from 'zod';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { BUSINESS_BOOKING_CHANGE } from '../change-rows.js';
import { checkRevision, loadBooking, bookingNotFound } from './lifecycle.js';
import { checkDisputeMove, enterDisputeStatus } from '../payments/disputes.js';
import { id } from '../schemas.js';

export const reviewDispute = defineOperation({
  name: 'review_dispute',
  rest: { method: 'POST', path: '/admin/bookings/{booking_id}/dispute/review', input: 'none' },
  ...BUSINESS_BOOKING_CHANGE,
  cli: 'dispute-review',
  summary: "The booking's open dispute is under review by the payment processor.",
  input: z.object({ booking_id: id('The booking id.') }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) throw bookingNotFound(inp.booking_id);
    checkDisputeMove(rec, 'review');
    checkRevision(ctx, rec.booking.revision);
    enterDisputeStatus(ctx, rec, 'review');
    await ctx.tx.bookings.update(rec);
    return ok({ booking: rec.booking });
  },
});
