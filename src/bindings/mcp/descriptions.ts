/**
 * Tool descriptions are UI copy for a model: when to call the tool, what must come first, and
 * what the assistant must tell the person afterwards. Keep each one short enough to be read.
 */
export const TOOL_TITLES: Record<string, string> = {
  usp_services_list: 'Find services',
  usp_services_get: 'Service details',
  usp_services_lookup: 'Look up services by id',
  usp_services_feed: 'Catalog change feed',
  usp_services_feed_subscribe: 'Subscribe to catalog changes',
  usp_availability_query: 'Check availability',
  usp_availability_hold: 'Hold a time slot',
  usp_availability_release: 'Release a hold',
  usp_bookings_create: 'Book a slot',
  usp_bookings_get: 'Read a booking',
  uspserver_bookings_list: "List the person's bookings",
  uspserver_bookings_quote: 'Price a cancel or reschedule',
  usp_bookings_update: 'Update booking details',
  usp_bookings_confirm: 'Confirm a booking (business only)',
  usp_bookings_cancel: 'Cancel a booking',
  usp_bookings_reschedule: 'Reschedule a booking',
  usp_bookings_confirm_payment: 'Report a completed payment',
  usp_waitlist_join: 'Join a waitlist',
  usp_waitlist_list: 'List waitlist entries',
  usp_waitlist_get: 'Read a waitlist entry',
  usp_waitlist_leave: 'Leave a waitlist',
  usp_waitlist_accept: 'Accept a waitlist offer',
  usp_waitlist_decline: 'Decline a waitlist offer',
};

const RETRY = 'On a failure or timeout, retry with the same _meta.usp.idempotency_key: it never acts twice.';

export const TOOL_DESCRIPTIONS: Record<string, string> = {
  usp_services_list:
    "Search this business's services (haircuts, classes, treatments...). Start here when the person describes what they want. The text names the business and, for each service, its id, duration, price and when it is paid, where it happens, and its cancellation, rescheduling and no-show terms. Next: usp_availability_query with a service_id.",
  usp_services_get:
    'Get one service in full: the business, duration, price and when it is paid (by link when booking, a deposit, or at the appointment), the location with its address, whether the business confirms manually, and the cancellation, rescheduling and no-show terms. Tell the person the price, when they pay and the cancellation terms before booking.',
  usp_services_lookup:
    'Fetch up to 100 services by id in one call (ids: [...]), each with the same terms as usp_services_list. Unknown ids come back as service_not_found warnings, not errors.',
  usp_services_feed: 'Incremental feed of catalog changes in modified_at order, for keeping a local copy in sync. Pass back pagination.next_cursor to continue.',
  usp_services_feed_subscribe: 'Ask the business to POST catalog change events (service.created, updated, deleted, suspended) to an https callback_url.',
  usp_availability_query:
    'List bookable time slots for a service between start_date and end_date (YYYY-MM-DD, at most a month; a week is best). Times are in the business time zone unless timezone is given: always tell the person the time zone. Each slot has an id; pass it to usp_availability_hold or usp_bookings_create. For classes, pass party_size and read capacity.remaining; a slot in state waitlist is full (use usp_waitlist_join).',
  usp_availability_hold:
    'Reserve a slot for a few minutes while the person confirms details. Call after usp_availability_query and before usp_bookings_create. Tell the person the hold expires at hold.expires_at (say the time and zone) and that nothing is booked yet. If the slot was just taken, query again. ' +
    RETRY,
  usp_availability_release: 'Give back a hold the person no longer wants, so others can book it. Safe to call twice.',
  usp_bookings_create:
    'Book a slot for the person (buyer first_name, last_name and email required). Use the slot_id (and hold_id if you held it). Afterwards tell the person: the status; if status is requires_action, give them the payment link actions[0].continue_url exactly as returned, the amount and the deadline actions[0].expires_at, and say the booking is NOT confirmed or paid until they complete it; if status is pending, say the business still has to confirm it. ' +
    RETRY,
  usp_bookings_get:
    'Read a booking: status, time, pending actions, payment and cancellation details. Call it before acting on money (payment, cancellation fees, refunds) whenever you are unsure of the current state.',
  usp_bookings_update:
    'Change the buyer contact details, the recipient, the delivery address or the notes of a booking. Time and service cannot change here: use usp_bookings_reschedule.',
  usp_bookings_confirm:
    'Business only: approve a booking that is pending manual confirmation. Platforms cannot call this; tell the person the business will confirm, and check back with usp_bookings_get.',
  usp_bookings_cancel:
    "Cancel a booking. The booking's text says until when cancelling is free; once that has passed (or if unsure), call uspserver_bookings_quote with change cancel first and tell the person the fee and refund; cancel only once they agree. Afterwards tell them the fee and refund (booking.cancellation.fee, refund_amount). " +
    RETRY,
  usp_bookings_reschedule:
    "Move a booking to another slot of the same service (query availability first); it keeps its id. Past the free-reschedule deadline the booking's text names, price it first with uspserver_bookings_quote (change reschedule) and tell the person the fee. Afterwards tell them the new time with its zone and any fee (late_reschedule_fee warning); if it comes back requires_action, give them the payment link verbatim. " +
    RETRY,
  usp_bookings_confirm_payment:
    "Only for a platform that took the payment through its own processor, once it succeeded: report that the person paid a booking in requires_action, with the processor's transaction_id and exactly the payment action's amount_due and currency. " +
    "Not when the person pays on the business's checkout page (continue_url): give them that link; the business confirms by itself (read it with usp_bookings_get). " +
    RETRY,
  usp_waitlist_join:
    'Put the person on the waitlist when a class or slot is full (slot state waitlist). Tell them their position and that they will be offered a place if one frees; an offer must be accepted before it expires.',
  usp_waitlist_list: "List this platform's waitlist entries (only yours), optionally by service or status.",
  uspserver_bookings_list:
    "List the signed-in person's bookings at this business, newest first, whichever assistant made them (optionally by status; next_cursor pages on). Works once the person has linked their account (OAuth sign-in with usp:history); use it to answer 'what have I booked?' and to find a booking to change or cancel.",
  uspserver_bookings_quote:
    'What cancelling or rescheduling a booking would cost right now, without changing anything: the fee, the refund, what is due and whether it is paid now by link or at the appointment. Call it before usp_bookings_cancel or usp_bookings_reschedule once a free window has passed, and tell the person the result.',
  usp_waitlist_get: 'Read a waitlist entry: position, status, and when offered, the offered slot and the deadline offer_expires_at (tell the person the deadline).',
  usp_waitlist_leave: 'Take the person off a waitlist.',
  usp_waitlist_accept:
    'Accept an offered waitlist place: this books it immediately and returns the booking. Tell the person the booking details; if it is requires_action, give them the payment link verbatim and say it is not confirmed until paid. ' +
    RETRY,
  usp_waitlist_decline: 'Decline an offered waitlist place; it goes to the next person in line.',
};

/**
 * What each tool's text carries, the promise its description makes: a test drives every tool and
 * checks each fact named here is in its `content` text (test/mcp/assistant-text.test.ts). A text
 * shape (service, services, booking, bookings, slots, entry) says these for every tool returning it.
 */
export type TextFact =
  | 'business'
  | 'duration'
  | 'price'
  | 'payment_timing'
  | 'location'
  | 'cancellation'
  | 'rescheduling'
  | 'no_show'
  | 'status'
  | 'zone'
  | 'slot_ids'
  | 'resource_ids'
  | 'counts'
  | 'offer_channel'
  | 'offer_window'
  | 'credential_use'
  | 'held_slot'
  | 'next_step';

const SERVICE_FACTS: readonly TextFact[] = ['duration', 'price', 'payment_timing', 'location', 'cancellation', 'rescheduling', 'no_show'];
const BOOKING_FACTS: readonly TextFact[] = ['business', 'status', 'zone', 'location', 'resource_ids', 'payment_timing', 'cancellation', 'rescheduling', 'no_show'];

export const TEXT_PROMISES: Record<string, readonly TextFact[]> = {
  usp_services_list: ['business', ...SERVICE_FACTS],
  usp_services_get: ['business', ...SERVICE_FACTS],
  usp_services_lookup: ['business', ...SERVICE_FACTS],
  usp_availability_query: ['zone', 'slot_ids', 'resource_ids', 'counts', 'next_step'],
  usp_availability_hold: ['held_slot', 'zone', 'next_step'],
  usp_bookings_create: BOOKING_FACTS,
  usp_bookings_get: BOOKING_FACTS,
  usp_bookings_reschedule: BOOKING_FACTS,
  uspserver_bookings_list: ['counts', 'status', 'zone', 'next_step'],
  usp_waitlist_join: ['status', 'offer_channel', 'offer_window', 'credential_use', 'next_step'],
};

export const SERVER_INSTRUCTIONS = `This server is a scheduling business speaking the Universal Scheduling Protocol.
Flow: usp_services_list (find the service) -> usp_availability_query (pick a slot; times are in the business time zone, say the zone) -> optionally usp_availability_hold (tell the person when the hold expires) -> usp_bookings_create with buyer details and an idempotency_key.
After booking: if status is requires_action, give the person actions[0].continue_url verbatim and say it is not paid or confirmed until they complete it; if pending, the business must still confirm.
_meta is optional: the server supplies your platform profile on stdio and from an OAuth token (else send _meta.usp.profile, your profile URL), and makes an idempotency_key for a write that has none (returned in the result's _meta.usp); send your own to retry safely. Business outcomes (slot taken, policy refusals) come back as structuredContent.messages with isError true: read the message and follow its next step.`;
