/**
 * Payment disputes (chargebacks) on a booking (spec 5.5.2) as an explicit transition map. A
 * dispute is opened once, may be put under review, and is resolved for the buyer or for the
 * business; a resolved dispute is final. The booking's own status never changes because of it.
 */
export type DisputeStatus = 'opened' | 'under_review' | 'resolved_buyer' | 'resolved_business';

export type DisputeMove = 'review' | 'resolve_buyer' | 'resolve_business';

export interface Dispute {
  status: DisputeStatus;
  /** Machine-readable; well-known values: service_not_provided, quality_issue, unauthorized, duplicate. */
  reason: string;
  opened_at: string;
  /** Present once resolved. */
  resolved_at?: string;
}

export const DISPUTE_TRANSITIONS: Readonly<Record<DisputeStatus, Partial<Record<DisputeMove, DisputeStatus>>>> = {
  opened: { review: 'under_review', resolve_buyer: 'resolved_buyer', resolve_business: 'resolved_business' },
  under_review: { resolve_buyer: 'resolved_buyer', resolve_business: 'resolved_business' },
  resolved_buyer: {},
  resolved_business: {},
};

/** The status a move leads to, or null when the map forbids it. */
export function nextDisputeStatus(from: DisputeStatus, move: DisputeMove): DisputeStatus | null {
  return DISPUTE_TRANSITIONS[from][move] ?? null;
}

/**
 * What entering a status does, whichever operation (or provider event) made the move; a new
 * dispute enters `opened`. The operations apply this table in one place
 * (operations/payments/disputes.ts `enterDisputeStatus`); none writes these effects itself. The
 * booking's own status never changes.
 * - `event`: the webhook event raised on the booking.
 * - `resolved`: the dispute is closed: `resolved_at` is set.
 * - `refund`: the amount the resolution gives back is refunded (what the booking counts as
 *   collected goes down, the payment moves to refunded or partially refunded, and
 *   `booking.refund_issued` is raised before the event) when it is more than nothing.
 */
export interface DisputeEntryEffects {
  event?: string;
  resolved: boolean;
  refund: boolean;
}

export const DISPUTE_ENTRY_EFFECTS: Readonly<Record<DisputeStatus, DisputeEntryEffects>> = {
  opened: { event: 'booking.dispute_opened', resolved: false, refund: false },
  under_review: { resolved: false, refund: false },
  resolved_buyer: { event: 'booking.dispute_resolved', resolved: true, refund: true },
  resolved_business: { event: 'booking.dispute_resolved', resolved: true, refund: false },
};
