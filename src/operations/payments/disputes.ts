/**
 * Disputes on a booking (spec 5.5.2) as the operations and provider events move them: a move is
 * checked against the dispute map, and entering a status does what the domain's entry-effects
 * table says, in one place.
 */
import {
  DISPUTE_ENTRY_EFFECTS,
  nextDisputeStatus,
  type BookingRecord,
  type DisputeMove,
  type DisputeStatus,
} from '../../domain/index.js';
import { ProtocolError } from '../core/errors.js';
import { iso, type OperationContext } from '../core/context.js';
import { emitBookingEvent, movePayment, touch } from '../bookings/effects.js';

const PARTICIPLE: Record<DisputeMove, string> = {
  review: 'put under review',
  resolve_buyer: 'resolved',
  resolve_business: 'resolved',
};

/** Refuse a dispute move the map forbids, as the booking state conflicts are refused (booking_state_conflict). */
export function disputeConflict(rec: BookingRecord, what: string): ProtocolError {
  const status = rec.booking.dispute?.status ?? 'none';
  return new ProtocolError(
    'booking_state_conflict',
    `The dispute on this booking is ${status}; it cannot be ${what}.`,
    {
      detailCode: 'dispute_state_conflict',
      extra: { dispute_status: status },
    },
  );
}

/** The status move `m` leads the booking's dispute to, or a refusal (dispute_state_conflict) when there is none or the map forbids it. */
export function checkDisputeMove(rec: BookingRecord, m: DisputeMove): DisputeStatus {
  const d = rec.booking.dispute;
  const to = d && nextDisputeStatus(d.status, m);
  if (!to) throw disputeConflict(rec, PARTICIPLE[m]);
  return to;
}

/** Open a dispute on the booking and enter `opened`; the caller checked it has none and stores the booking. */
export function openDisputeOn(ctx: OperationContext, rec: BookingRecord, reason: string): void {
  rec.booking.dispute = { status: 'opened', reason, opened_at: iso(ctx.now) };
  enter(ctx, rec, 0);
}

/**
 * Make dispute move `m` and apply what entering the new status does (DISPUTE_ENTRY_EFFECTS):
 * resolving it, refunding `refund` when the status refunds (what was collected goes down and the
 * payment is marked refunded, spec 5.5.2), and the events. The caller checked the amount and
 * stores the booking.
 */
export function enterDisputeStatus(ctx: OperationContext, rec: BookingRecord, m: DisputeMove, refund = 0): void {
  rec.booking.dispute!.status = checkDisputeMove(rec, m);
  enter(ctx, rec, refund);
}

function enter(ctx: OperationContext, rec: BookingRecord, refund: number): void {
  const b = rec.booking;
  const fx = DISPUTE_ENTRY_EFFECTS[b.dispute!.status];
  if (fx.resolved) b.dispute!.resolved_at = iso(ctx.now);
  const refunded = fx.refund && refund > 0;
  if (refunded) {
    const collected = rec.priv.amount_paid;
    rec.priv.amount_paid = collected - refund;
    movePayment(b, refund >= collected ? 'refund_all' : 'refund_part');
  }
  touch(rec, ctx);
  if (refunded) emitBookingEvent(ctx, 'booking.refund_issued', rec, { refund_amount: refund });
  if (fx.event) emitBookingEvent(ctx, fx.event, rec);
}
