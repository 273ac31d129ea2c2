/**
 * The dashboard's flash messages after a form: the redirect carries a code (`?ok=confirmed`,
 * `?error=slot_unavailable`), and the page shows the words this table gives it. Text in the query
 * string is never shown, so a crafted link to /admin cannot put someone else's words on the
 * business's own screen; an unknown code reads as the generic sentence.
 */
import type { ProtocolErrorCode } from '../../operations/index.js';

/** What a form did, by the code its redirect carries. */
export const DONE_WORDS = {
  confirmed: 'Booking confirmed.',
  declined: 'Booking declined.',
  refunded: 'Refund made (through the payment provider: shown as succeeded once it confirms).',
  canceled: 'Booking canceled.',
  completed: 'Booking marked completed.',
  no_show: 'Booking marked as a no-show.',
  rescheduled: 'Booking moved to the new time.',
  hours_set: 'Hours set for that date.',
  day_closed: 'Day closed.',
  time_off_added: 'Time off added.',
  removed: 'Removed.',
  delivery_queued: 'Delivery queued again.',
  key_rotated: 'A new signing key signs deliveries from now on.',
  api_key_revoked: 'Key revoked; calls made with it are refused from now on.',
  saved: 'Saved; platforms are told the catalog changed.',
  archived: 'Archived: no new bookings; existing bookings stand.',
  walk_in_booked: 'Booked.',
  note_saved: 'Note saved.',
  buyer_erased: 'Their data was erased everywhere; their bookings keep their times and money.',
  feed_rotated: 'New calendar feed address made; the old one no longer works.',
} as const;
export type DoneCode = keyof typeof DONE_WORDS;

/** Every protocol error in our words (a new code does not compile until it has some). */
const PROTOCOL_WORDS = {
  invalid_request: 'The form was not filled in as expected; check it and try again.',
  invalid_profile_url: 'That platform profile address is not usable.',
  profile_unreachable: 'The platform profile could not be reached.',
  profile_malformed: 'The platform profile could not be read.',
  profile_not_trusted: 'That platform is not trusted by this business.',
  authentication_required: 'Your session does not allow this; sign in again.',
  insufficient_scope: 'Your session does not allow this; sign in again.',
  rate_limited: 'Too many changes at once; wait a moment and try again.',
  version_unsupported: 'That protocol version is not supported.',
  service_unavailable: 'The database is not answering right now; nothing was changed. Try again shortly.',
  pop_proof_required: 'That needs a proof of possession.',
  revision_mismatch: 'Someone changed this in the meantime; reload and try again.',
  server_error: 'Something went wrong on the server; nothing was changed.',
  idempotency_conflict: 'That change was already made with other details.',
  booking_state_conflict: 'The booking is no longer in a state that allows this.',
  range_too_wide: 'That range is too wide; choose fewer days.',
  signature_invalid: 'The request signature was not valid.',
  digest_mismatch: 'The request was damaged on the way.',
  payload_too_large: 'What you sent is too large.',
  not_found: 'That no longer exists.',
  method_not_allowed: 'That is not possible here.',
  unsupported_media_type: 'The form was sent in a format the server does not read.',
  unknown_tool: 'That action is not known.',
  limit_exceeded: 'A limit was reached; remove something first.',
  algorithm_unsupported: 'That algorithm is not supported.',
  payment_unverifiable: 'The payment could not be checked against a price; the booking is not confirmed.',
  confirmation_failed: 'The payment was taken but the booking could not be confirmed.',
} as const satisfies Record<ProtocolErrorCode, string>;

/** Business outcomes an admin action can answer with. */
const OUTCOME_WORDS: Record<string, string> = {
  slot_unavailable: 'That time is no longer free; choose another.',
  validation_error: 'Some of what you entered was not accepted: check the dates, times and fields, then try again.',
  booking_not_found: 'That booking does not exist.',
  booking_window_violated: 'That time is outside the booking window of the service.',
  capacity_exceeded: 'There is not enough room for the party at that time.',
  reschedule_limit_reached: 'This booking has been rescheduled as often as the service allows.',
  reschedule_not_allowed: 'This service does not allow rescheduling.',
  cancellation_not_allowed: 'This booking can no longer be canceled.',
  already_in_state: 'The booking is already in that state.',
  invalid_transition: 'The booking is no longer in a state that allows this.',
  service_not_found: 'That service does not exist.',
  service_unresolved: 'That service does not exist.',
  entry_not_found: 'That entry does not exist.',
  hold_expired: 'The hold expired.',
  hold_not_found: 'That hold does not exist.',
  payment_expired: 'The payment time has passed.',
  confirm_erase: 'Tick the box to confirm the erasure; nothing was erased.',
};

export const GENERIC_ERROR = 'That could not be done; nothing was changed.';

const has = (table: object, key: string) => Object.hasOwn(table, key);

/** The words for an error code from a redirect (ours or not). */
export function errorWords(code: string): string {
  if (has(PROTOCOL_WORDS, code)) return PROTOCOL_WORDS[code as ProtocolErrorCode];
  if (has(OUTCOME_WORDS, code)) return OUTCOME_WORDS[code];
  return GENERIC_ERROR;
}

/** The words for a done code from a redirect, or nothing for a code we never send. */
export function doneWords(code: string): string | undefined {
  return has(DONE_WORDS, code) ? DONE_WORDS[code as DoneCode] : undefined;
}
