/**
 * The business's side of a payment dispute (spec 5.5.2): a payment processor (or the business
 * itself) opens a chargeback on a booking, may put it under review, and resolves it for the buyer
 * or for the business. Business-only, REST admin paths and the CLI; no MCP tool (the spec defines
 * none). The booking's status never changes; its payment status changes only when the buyer wins
 * (refunded or partially_refunded). `booking.dispute_opened` and `booking.dispute_resolved` are
 * raised in the same transaction, and a refund also raises `booking.refund_issued`.
 */
import { z } from 'zod';
import { errorMessage, formatMoney, nextDisputeStatus, type BookingRecord, type DisputeMove } from '../../domain/index.js';
import { ProtocolError } from '../errors.js';
import { defineOperation, ok, outcome, requireBusiness } from '../define.js';
import { checkRevision, emitBookingEvent, loadBooking, touch } from '../steps/booking-lifecycle.js';
import { iso } from '../context.js';
import { id } from '../schemas.js';
import { bookingNotFound } from './get-booking.js';

const PARTICIPLE: Record<DisputeMove, string> = { review: 'put under review', resolve_buyer: 'resolved', resolve_business: 'resolved' };

/** Refuse a dispute move the map forbids, as the booking state conflicts are refused (decision D2). */
function disputeConflict(rec: BookingRecord, what: string): ProtocolError {
  const status = rec.booking.dispute?.status ?? 'none';
  return new ProtocolError('booking_state_conflict', `The dispute on this booking is ${status}; it cannot be ${what}.`, {
    detailCode: 'dispute_state_conflict',
    extra: { dispute_status: status },
  });
}

export const openDispute = defineOperation({
  name: 'open_dispute',
  rest: { method: 'POST', path: '/admin/bookings/{booking_id}/dispute', input: 'body' },
  resource: { kind: 'booking', key: 'booking_id' },
  access: 'business_only',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: true,
  conditional: true,
  writes: true,
  summary: 'A payment dispute (chargeback) was opened against a booking: record it and notify the platform.',
  input: z.object({
    booking_id: id('The booking id.'),
    reason: z
      .string()
      .min(1)
      .max(200)
      .describe('Machine-readable reason; well-known values: service_not_provided, quality_issue, unauthorized, duplicate.'),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) return bookingNotFound(inp.booking_id);
    const b = rec.booking;
    if (b.dispute) throw disputeConflict(rec, 'opened again');
    if (rec.priv.amount_paid <= 0) {
      return outcome(errorMessage('validation_error', 'No payment was collected for this booking, so there is nothing to dispute.', '$.booking_id'), { booking: b });
    }
    checkRevision(ctx, b.revision);
    b.dispute = { status: 'opened', reason: inp.reason, opened_at: iso(ctx.now) };
    touch(rec, ctx);
    await ctx.tx.bookings.update(rec);
    emitBookingEvent(ctx, 'booking.dispute_opened', rec);
    return ok({ booking: b });
  },
});

export const reviewDispute = defineOperation({
  name: 'review_dispute',
  rest: { method: 'POST', path: '/admin/bookings/{booking_id}/dispute/review', input: 'none' },
  resource: { kind: 'booking', key: 'booking_id' },
  access: 'business_only',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: true,
  conditional: true,
  writes: true,
  summary: "The booking's open dispute is under review by the payment processor.",
  input: z.object({ booking_id: id('The booking id.') }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) return bookingNotFound(inp.booking_id);
    const d = rec.booking.dispute;
    const to = d && nextDisputeStatus(d.status, 'review');
    if (!d || !to) throw disputeConflict(rec, PARTICIPLE.review);
    checkRevision(ctx, rec.booking.revision);
    d.status = to;
    touch(rec, ctx);
    await ctx.tx.bookings.update(rec);
    return ok({ booking: rec.booking });
  },
});

export const resolveDispute = defineOperation({
  name: 'resolve_dispute',
  rest: { method: 'POST', path: '/admin/bookings/{booking_id}/dispute/resolve', input: 'body' },
  resource: { kind: 'booking', key: 'booking_id' },
  access: 'business_only',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: true,
  conditional: true,
  writes: true,
  summary: 'Resolve the booking\'s dispute for the buyer (a refund) or for the business; notifies the platform.',
  input: z.object({
    booking_id: id('The booking id.'),
    outcome: z.enum(['buyer', 'business']).describe('Who the dispute was resolved for.'),
    refund_amount: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Minor units refunded when resolved for the buyer; default everything collected.'),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) return bookingNotFound(inp.booking_id);
    const b = rec.booking;
    const d = b.dispute;
    const move: DisputeMove = inp.outcome === 'buyer' ? 'resolve_buyer' : 'resolve_business';
    const to = d && nextDisputeStatus(d.status, move);
    if (!d || !to) throw disputeConflict(rec, PARTICIPLE[move]);
    const collected = rec.priv.amount_paid;
    if (inp.outcome === 'business' && inp.refund_amount !== undefined) {
      return outcome(errorMessage('validation_error', 'A dispute resolved for the business refunds nothing; leave out refund_amount.', '$.refund_amount'), { booking: b });
    }
    const refund = inp.outcome === 'buyer' ? (inp.refund_amount ?? collected) : 0;
    if (refund > collected) {
      const currency = b.payment?.currency ?? ctx.biz.services.get(b.service_id)?.pricing.currency ?? 'USD';
      return outcome(errorMessage('validation_error', `At most ${formatMoney(collected, currency)} was collected, so no more can be refunded.`, '$.refund_amount'), { booking: b });
    }
    checkRevision(ctx, b.revision);
    d.status = to;
    d.resolved_at = iso(ctx.now);
    if (refund > 0) {
      rec.priv.amount_paid = collected - refund;
      if (b.payment) b.payment.status = refund >= collected ? 'refunded' : 'partially_refunded';
    }
    touch(rec, ctx);
    await ctx.tx.bookings.update(rec);
    if (refund > 0) emitBookingEvent(ctx, 'booking.refund_issued', rec, { refund_amount: refund });
    emitBookingEvent(ctx, 'booking.dispute_resolved', rec);
    return ok({ booking: b });
  },
});
