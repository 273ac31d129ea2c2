/**
 * What the person can do after a refusal, said after it in the text: the next tool to call, or the
 * human way (their booking page, the business's own phone and email from the business definition).
 * A refusal never ends the conversation without one.
 */
import type { Business, ProtocolErrorCode } from '../../operations/index.js';

/** "call +1 212 555 0147 or write to hello@…": the business's contact, or that none is published. */
export function contactWords(biz: Business | undefined): string {
  const c = biz?.def.business.contact;
  const name = biz?.def.business.name ?? 'the business';
  const ways = [c?.phone ? `call ${c.phone}` : null, c?.email ? `write to ${c.email}` : null].filter(Boolean);
  return ways.length
    ? `${name} directly (${ways.join(' or ')})`
    : `${name} directly (it publishes no phone or email here)`;
}

/** Our tool that gives a booking whose payment link lapsed a fresh one (renew_payment_link's row). */
export const RENEW_TOOL = 'uspserver_bookings_renew_payment';

const again = 'query availability again (usp_availability_query) and hold or book one of the slots it lists';

const NEXT: Partial<Record<string, (biz: Business | undefined) => string>> = {
  booking_not_found: (biz) =>
    `Next: check the id; a booking made through another app or assistant (or on the business's own site) is not reachable from here, and uspserver_bookings_list lists only a linked buyer's. The person can manage it from their booking page (the link in the confirmation mail) or contact ${contactWords(biz)}.`,
  entry_not_found: (biz) =>
    `Next: check the id; an entry made through another app is not reachable from here. To wait from here, join again with usp_waitlist_join, or contact ${contactWords(biz)}.`,
  hold_not_found: () => `Next: ${again}.`,
  hold_expired: () => `Next: ${again}.`,
  slot_unavailable: () =>
    'Next: pick another time from usp_availability_query; a full slot of a class can be waited for with usp_waitlist_join.',
  capacity_exceeded: () =>
    'Next: ask usp_availability_query with party_size to see which times fit the whole party, or join the waitlist with usp_waitlist_join and party_size.',
  booking_window_violated: () =>
    'Next: choose a time usp_availability_query lists (it lists only times inside the booking window).',
  service_not_found: () => 'Next: usp_services_list lists the services and their ids.',
  service_unresolved: () => 'Next: usp_services_list lists the services and their ids.',
  payment_expired: () =>
    `Next: nothing was charged; while the time is still free, ${RENEW_TOOL} with the booking_id gives a fresh payment link (the same booking details); otherwise ${again}.`,
  invalid_transition: () =>
    'Next: read it with usp_bookings_get (or usp_waitlist_get) to see its status and what can still be done with it.',
  offer_expired: () =>
    'Next: the place went to the next in line; join again with usp_waitlist_join to wait for another.',
  offer_already_accepted: () =>
    'Next: the booking exists already: read it with usp_waitlist_get (its booking) or usp_bookings_get.',
  waitlist_not_available: () => `Next: this service has no waitlist; ${again}.`,
  waitlist_full: (biz) => `Next: try another time (usp_availability_query) or contact ${contactWords(biz)}.`,
  reschedule_not_allowed: (biz) =>
    `Next: keep the booking, or cancel it (uspserver_bookings_quote with change cancel says the fee first) and book again; or contact ${contactWords(biz)}.`,
  reschedule_limit_reached: (biz) =>
    `Next: keep the booking, or cancel it (uspserver_bookings_quote with change cancel says the fee first) and book again; or contact ${contactWords(biz)}.`,
  cancellation_not_allowed: (biz) => `Next: only the business can change it now: contact ${contactWords(biz)}.`,
  payment_not_configured: (biz) =>
    `Next: this business cannot take this payment online now; contact ${contactWords(biz)}.`,
  validation_error: () => 'Next: correct the member the message names and call again.',
};

/** The next step after a refused call with this code, or '' when the code has none to add. */
export function nextStep(code: string | undefined, biz: Business | undefined): string {
  const f = code ? NEXT[code] : undefined;
  return f ? ` ${f(biz)}` : '';
}

/**
 * How a booking or an entry is reached later, said where a result carries its booking-scoped
 * credential: by its id, from this platform. The credential itself is the platform's (in
 * structuredContent); a model that reads only text never sees it, so the text does not name it.
 */
export function laterAccess(kind: 'booking' | 'entry', id: string): string {
  const tool = kind === 'booking' ? 'usp_bookings_get' : 'usp_waitlist_get';
  return `To read or change it later, call ${tool} with ${kind === 'booking' ? 'booking_id' : 'entry_id'} ${id} from this same platform; keep that id with the conversation.`;
}

/**
 * What to do next after a protocol error, said at the end of `message` (all a host shows the model),
 * as a refused tool result says it: the tool to call, or what to change and call again. The code and
 * `data` stay as they are.
 */
const PROTOCOL_NEXT: Partial<Record<ProtocolErrorCode, string | ((detailCode: string | undefined) => string)>> = {
  invalid_request: 'Next: correct what the message names and call the same tool again.',
  invalid_profile_url:
    'Next: send an https URL of the platform profile in _meta.usp.profile, or none on stdio (the server supplies it).',
  range_too_wide: 'Next: call usp_availability_query again with a shorter date range (a week is best).',
  idempotency_conflict: 'Next: call again with a new _meta.usp.idempotency_key (or none: the server makes one).',
  revision_mismatch:
    'Next: read it again (usp_bookings_get, or usp_waitlist_get for an entry) and retry with its new revision in _meta.usp.if_match.',
  booking_state_conflict: 'Next: read the booking with usp_bookings_get to see its status and what it still allows.',
  rate_limited: (detail) =>
    detail === 'hold_limit_exceeded'
      ? 'Next: release a hold no longer needed (usp_availability_release) or book one with usp_bookings_create, then hold again.'
      : 'Next: wait data.retry_after seconds, then call again with the same _meta.usp.idempotency_key.',
  authentication_required: (detail) =>
    detail === 'business_credential_required'
      ? 'Next: only the business can do this; tell the person so, and read the booking with usp_bookings_get to see when the business acts.'
      : 'Next: send what the message asks for (the platform profile in _meta.usp.profile, or the credential it names) and call again.',
  insufficient_scope:
    'Next: the person must grant the scope the message names through the sign-in (OAuth) again; then call again.',
  not_found:
    'Next: check the id; usp_services_list, usp_bookings_get and usp_waitlist_get read what this platform may see.',
  version_unsupported: 'Next: call again with a protocol version the message lists.',
  service_unavailable:
    'Next: wait data.retry_after seconds, then call again with the same _meta.usp.idempotency_key; nothing is done twice.',
  server_error:
    'Next: call once more with the same _meta.usp.idempotency_key; if it fails again, the person can contact the business directly.',
  unknown_tool: 'Next: tools/list names the tools this server has; usp_services_list is where booking starts.',
  limit_exceeded: (detail) =>
    detail === 'hold_limit_exceeded'
      ? 'Next: release a hold no longer needed (usp_availability_release) or book one, then hold again.'
      : 'Next: send fewer at once, as the message says, and call again.',
  payment_unverifiable: 'Next: read the booking with usp_bookings_get; do not tell the person it is confirmed.',
  confirmation_failed: 'Next: read the booking with usp_bookings_get; do not tell the person it is confirmed.',
};

/**
 * The "Next:" sentence for a protocol error's code (and finer data.code), or undefined when there is
 * none to add. A not-found naming what is missing (`booking_not_found`, a 404 since spec-next 9.4.1)
 * says what its business outcome used to say, the business's contact included.
 */
export function protocolNextStep(code: ProtocolErrorCode, detailCode?: string, biz?: Business): string | undefined {
  const named = code === 'not_found' && detailCode ? NEXT[detailCode] : undefined;
  if (named) return named(biz);
  const n = PROTOCOL_NEXT[code];
  return typeof n === 'function' ? n(detailCode) : n;
}
