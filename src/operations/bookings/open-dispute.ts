/**
 * A payment processor (or the business itself) opens a chargeback on a booking (spec 5.5.2).
 * Business-only, REST admin paths and the CLI; no MCP tool (the spec defines none). The booking's
 * status never changes; `booking.dispute_opened` is raised in the same transaction.
 */
import { z } from 'zod';
import { errorMessage } from '../../domain/index.js';
import { defineOperation, ok, outcome, requireBusiness } from '../core/define.js';
import { BUSINESS_BOOKING_CHANGE } from '../change-rows.js';
import { checkRevision, loadBooking, bookingNotFound } from './lifecycle.js';
import { disputeConflict, openDisputeOn } from '../payments/disputes.js';
import { id } from '../schemas.js';

export const openDispute = defineOperation({
  name: 'open_dispute',
  rest: { method: 'POST', path: '/admin/bookings/{booking_id}/dispute', input: 'body' },
  ...BUSINESS_BOOKING_CHANGE,
  cli: 'dispute-open',
  summary: 'A payment dispute (chargeback) was opened against a booking: record it and notify the platform.',
  input: z.object({
    booking_id: id('The booking id.'),
    reason: z
      .string()
      .min(1)
      .max(200)
      .describe(
        'Machine-readable reason; well-known values: service_not_provided, quality_issue, unauthorized, duplicate.',
      ),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) throw bookingNotFound(inp.booking_id);
    const b = rec.booking;
    if (b.dispute) throw disputeConflict(rec, 'opened again');
    if (rec.priv.amount_paid <= 0) {
      return outcome(
        errorMessage(
          'validation_error',
          'No payment was collected for this booking, so there is nothing to dispute.',
          '$.booking_id',
        ),
        { booking: b },
      );
    }
    checkRevision(ctx, b.revision);
    openDisputeOn(ctx, rec, inp.reason);
    await ctx.tx.bookings.update(rec);
    return ok({ booking: b });
  },
});
