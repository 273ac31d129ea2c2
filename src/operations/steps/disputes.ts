/** Refusing a dispute move the map forbids (spec 5.5.2), shared by the dispute operations. */
import type { BookingRecord, DisputeMove, DisputeStatus } from '../../domain/index.js';
import { ProtocolError } from '../errors.js';
import { iso, type OperationContext } from '../context.js';
import { emitBookingEvent, movePayment, touch } from './booking-effects.js';

export const PARTICIPLE: Record<DisputeMove, string> = { review: 'put under review', resolve_buyer: 'resolved', resolve_business: 'resolved' };

/** Refuse a dispute move the map forbids, as the booking state conflicts are refused (booking_state_conflict). */
export function disputeConflict(rec: BookingRecord, what: string): ProtocolError {
  const status = rec.booking.dispute?.status ?? 'none';
  return new ProtocolError('booking_state_conflict', `The dispute on this booking is ${status}; it cannot be ${what}.`, {
    detailCode: 'dispute_state_conflict',
    extra: { dispute_status: status },
  });
}

/** Open a dispute on the booking and raise `booking.dispute_opened`; the caller checked it has none and stores the booking. */
export function openDisputeOn(ctx: OperationContext, rec: BookingRecord, reason: string): void {
  rec.booking.dispute = { status: 'opened', reason, opened_at: iso(ctx.now) };
  touch(rec, ctx);
  emitBookingEvent(ctx, 'booking.dispute_opened', rec);
}

/**
 * Resolve the booking's dispute as `to`: a refund for the buyer lowers what was collected and marks
 * the payment refunded (spec 5.5.2), raising `booking.refund_issued`; then `booking.dispute_resolved`.
 * The caller checked the move and the amount, and stores the booking.
 */
export function resolveDisputeOn(ctx: OperationContext, rec: BookingRecord, to: DisputeStatus, refund: number): void {
  const b = rec.booking;
  const collected = rec.priv.amount_paid;
  b.dispute!.status = to;
  b.dispute!.resolved_at = iso(ctx.now);
  if (refund > 0) {
    rec.priv.amount_paid = collected - refund;
    movePayment(b, refund >= collected ? 'refund_all' : 'refund_part');
  }
  touch(rec, ctx);
  if (refund > 0) emitBookingEvent(ctx, 'booking.refund_issued', rec, { refund_amount: refund });
  emitBookingEvent(ctx, 'booking.dispute_resolved', rec);
}
