/**
 * Business outcomes (spec 9.4): the request was understood and processed, and the answer is
 * "no" or "yes, but". They travel as `messages[]` on a successful response on both doors.
 */
export type MessageType = 'error' | 'warning' | 'info';
export type Severity = 'recoverable' | 'requires_buyer_input' | 'requires_buyer_review' | 'unrecoverable';

export interface Message {
  type: MessageType;
  code: string;
  content: string;
  severity?: Severity;
  path?: string;
  content_type?: 'plain' | 'markdown';
}

export const OUTCOME_SEVERITY = {
  slot_unavailable: 'recoverable',
  hold_expired: 'recoverable',
  booking_not_found: 'recoverable',
  capacity_exceeded: 'recoverable',
  payment_expired: 'recoverable',
  price_mismatch: 'recoverable',
  validation_error: 'requires_buyer_input',
  booking_window_violated: 'requires_buyer_input',
  payment_amount_mismatch: 'requires_buyer_input',
  actions_pending: 'requires_buyer_input',
  payment_required: 'requires_buyer_input',
  reschedule_limit_reached: 'requires_buyer_review',
  cancellation_not_allowed: 'requires_buyer_review',
  // Spec-next 5.1.1, 9.4.2: the operation is not legal from the current status. The text's table says
  // `unrecoverable`, which the Message schema of both texts does not allow (DECISIONS D2).
  invalid_transition: 'requires_buyer_review',
  reschedule_not_allowed: 'requires_buyer_review',
  // Policy fees the person must hear of before agreeing (warnings beside a done change).
  late_reschedule_fee: 'requires_buyer_review',
  no_show_fee: 'requires_buyer_review',
  // A member of the call the server ignored (forward compatibility); the caller may have misspelt it.
  unknown_member: 'requires_buyer_input',
  // A call through a name kept one release after it moved into our namespace.
  deprecated_name: 'recoverable',
  // Admin: a schedule change left live bookings inside the time it takes away (they stay as booked).
  bookings_overlap: 'recoverable',
  waitlist_full: 'recoverable',
  offer_expired: 'recoverable',
  entry_not_found: 'recoverable',
  offer_already_accepted: 'recoverable',
  hold_not_found: 'recoverable',
  service_not_found: 'recoverable',
  // Spec-next 9.4.2: an id in a body that resolves to no service (a lookup's warning, the pinned text's service_not_found; availability's error).
  service_unresolved: 'recoverable',
  subscription_not_found: 'recoverable',
  waitlist_not_available: 'recoverable',
  already_in_state: 'recoverable',
  // Ours: a booking whose payment link lapsed was made again with a fresh link (renew_payment_link).
  payment_link_renewed: 'recoverable',
  // Ours: the operator suspended the business (a warning on the catalog's list; bookings are refused as slot_unavailable).
  business_suspended: 'recoverable',
  // Spec 9.4: no capability in common is an operator's configuration problem, not the buyer's.
  capabilities_incompatible: 'unrecoverable',
  // Not in spec 9.4: a service paid online before the appointment when no payment provider is set up (an operator's problem).
  payment_not_configured: 'unrecoverable',
  // The newer text's name (a 409 there); here a business outcome: a payment this business cannot take a platform's word for.
  platform_payment_not_accepted: 'requires_buyer_input',
} as const satisfies Record<string, Severity>;

export type OutcomeCode = keyof typeof OUTCOME_SEVERITY;

export function errorMessage(code: OutcomeCode, content: string, path?: string): Message {
  const m: Message = { type: 'error', code, content, severity: OUTCOME_SEVERITY[code] };
  if (path) m.path = path;
  return m;
}

/** Every message carries a severity: the code's own, or `recoverable` for a code outside the table. */
function severityOf(code: string): Severity {
  return (OUTCOME_SEVERITY as Record<string, Severity>)[code] ?? 'recoverable';
}

export function warningMessage(code: string, content: string, path?: string): Message {
  const m: Message = { type: 'warning', code, content, severity: severityOf(code) };
  if (path) m.path = path;
  return m;
}

export function infoMessage(code: string, content: string): Message {
  return { type: 'info', code, content, severity: severityOf(code) };
}
