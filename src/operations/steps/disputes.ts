/** Refusing a dispute move the map forbids (spec 5.5.2), shared by the dispute operations. */
import type { BookingRecord, DisputeMove } from '../../domain/index.js';
import { ProtocolError } from '../errors.js';

export const PARTICIPLE: Record<DisputeMove, string> = { review: 'put under review', resolve_buyer: 'resolved', resolve_business: 'resolved' };

/** Refuse a dispute move the map forbids, as the booking state conflicts are refused (decision D2). */
export function disputeConflict(rec: BookingRecord, what: string): ProtocolError {
  const status = rec.booking.dispute?.status ?? 'none';
  return new ProtocolError('booking_state_conflict', `The dispute on this booking is ${status}; it cannot be ${what}.`, {
    detailCode: 'dispute_state_conflict',
    extra: { dispute_status: status },
  });
}
