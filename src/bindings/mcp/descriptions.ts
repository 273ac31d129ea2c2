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
  usp_services_feed_subscription_get: 'Read a feed subscription',
  usp_services_feed_subscription_pause: 'Pause a feed subscription',
  usp_services_feed_subscription_resume: 'Resume a feed subscription',
  usp_services_feed_unsubscribe: 'Cancel a feed subscription',
  usp_availability_query: 'Check availability',
  usp_availability_hold: 'Hold a time slot',
  usp_availability_release: 'Release a hold',
  usp_bookings_create: 'Book a slot',
  usp_bookings_get: 'Read a booking',
  uspserver_bookings_list: "List the person's bookings",
  uspserver_bookings_quote: 'Price a cancel or reschedule',
  uspserver_bookings_renew_payment: 'Renew a lapsed payment link',
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

const RETRY = 'On a failure or timeout retry with the same _meta.usp.idempotency_key: never acts twice.';

export const TOOL_DESCRIPTIONS: Record<string, string> = {
  usp_services_list:
    "Search this business's services; start here. The text gives the business and each service's id, duration, price and when it is paid, place, and cancellation, rescheduling and no-show terms. Next: usp_availability_query.",
  usp_services_get:
    'One service in full: duration, price and when it is paid (by link when booking, a deposit, or at the appointment), address, manual confirmation, cancellation, rescheduling and no-show terms. Before booking tell the person the price, when they pay and the cancellation terms.',
  usp_services_lookup:
    'Up to 100 services by id (ids: [...]), with the terms usp_services_list gives. Unknown ids are service_unresolved warnings.',
  usp_services_feed: 'Catalog changes in modified_at order, to keep a copy in sync. Pass back pagination.next_cursor.',
  usp_services_feed_subscribe:
    'Have the business POST catalog change events (service.created, updated, deleted, suspended) to an https callback_url.',
  usp_services_feed_subscription_get:
    'Read your feed subscription: status (active, paused, canceled), events, callback_url.',
  usp_services_feed_subscription_pause: 'Stop deliveries to your feed subscription until you resume it.',
  usp_services_feed_subscription_resume: 'Restart deliveries to your paused feed subscription.',
  usp_services_feed_unsubscribe: 'Cancel your feed subscription for good; it cannot be resumed (subscribe again).',
  usp_availability_query:
    'Bookable slots of a service from start_date to end_date (YYYY-MM-DD, a week is best, a month at most). Dates are days of the business unless date_bounds_timezone names another zone; always tell the person the time zone (business_timezone). Pass a slot id to usp_availability_hold or usp_bookings_create. For classes pass party_size and read capacity.remaining; state waitlist means full (usp_waitlist_join).',
  usp_availability_hold:
    'Reserve a slot for a few minutes while the person confirms, before usp_bookings_create. Tell them the hold expires at hold.expires_at (time and zone) and nothing is booked yet. If the slot was just taken, query again. ' +
    RETRY,
  usp_availability_release: 'Give back a hold the person no longer wants. Safe to call twice.',
  usp_bookings_create:
    'Book a slot (buyer first_name, last_name, email) with its slot_id, and hold_id if held. Then tell the person the status; if requires_action, give them actions[0].continue_url exactly as returned, the amount and the deadline actions[0].expires_at, and say it is NOT confirmed or paid until they complete it; if pending, the business still has to confirm. ' +
    RETRY,
  usp_bookings_get:
    'Read a booking: status, time, pending actions, payment and cancellation. Read it before acting on money (payment, fees, refunds) when unsure of its state.',
  usp_bookings_update:
    "Change a booking's buyer contact, recipient, delivery address or notes. For the time or service use usp_bookings_reschedule.",
  usp_bookings_confirm:
    'Business only: approve a booking pending manual confirmation. Platforms cannot: tell the person the business will confirm, and check with usp_bookings_get.',
  usp_bookings_cancel:
    'Cancel a booking. Its text says until when cancelling is free; past that (or if unsure) call uspserver_bookings_quote (change cancel) first, tell the person the fee and refund, and cancel once they agree. Then tell them booking.cancellation.fee and refund_amount. ' +
    RETRY,
  usp_bookings_reschedule:
    'Move a booking to another slot of its service (query first); it keeps its id. Past the free-reschedule deadline its text names, price it with uspserver_bookings_quote (change reschedule) and tell the person the fee. Then tell them the new time and zone and any fee (late_reschedule_fee); if requires_action, give the payment link verbatim. ' +
    RETRY,
  usp_bookings_confirm_payment:
    "Only for a platform that took the payment through its own processor, once it succeeded: report it for a booking in requires_action with the processor's transaction_id and exactly the action's amount_due and currency. " +
    "Not when the person pays on the business's checkout page (continue_url): give them that link; the business confirms by itself (see usp_bookings_get). " +
    RETRY,
  usp_waitlist_join:
    'Put the person on the waitlist of a full slot (state waitlist). Tell them their position, and that a freed place is offered to them to accept before it expires.',
  usp_waitlist_list: 'Your waitlist entries, optionally by service or status.',
  uspserver_bookings_list:
    "The signed-in person's bookings here, newest first, from any assistant (by status; next_cursor pages on), once they linked their account (OAuth, usp:history). For 'what have I booked?' and finding a booking to change.",
  uspserver_bookings_quote:
    'What cancelling or rescheduling would cost now, changing nothing: fee, refund, what is due and whether paid now by link or at the appointment. Call it before usp_bookings_cancel or usp_bookings_reschedule once a free window passed; tell the person.',
  uspserver_bookings_renew_payment:
    'A booking canceled because its payment link lapsed: while its time is free, books it again with a fresh link under a new booking_id (use it from then on). Give the person the new link verbatim. ' +
    RETRY,
  usp_waitlist_get:
    'Read a waitlist entry: position, status, and once offered the slot and deadline offer_expires_at (tell the person).',
  usp_waitlist_leave: 'Take the person off a waitlist.',
  usp_waitlist_accept:
    'Accept an offered waitlist place: books it now and returns the booking. Tell the person its details; if requires_action, give the payment link verbatim and say it is not confirmed until paid. ' +
    RETRY,
  usp_waitlist_decline: 'Decline an offered waitlist place; it goes to the next in line.',
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
  | 'later_access'
  | 'held_slot'
  | 'next_step';

const SERVICE_FACTS: readonly TextFact[] = [
  'duration',
  'price',
  'payment_timing',
  'location',
  'cancellation',
  'rescheduling',
  'no_show',
];
const BOOKING_FACTS: readonly TextFact[] = [
  'business',
  'status',
  'zone',
  'location',
  'resource_ids',
  'payment_timing',
  'cancellation',
  'rescheduling',
  'no_show',
];

export const TEXT_PROMISES: Record<string, readonly TextFact[]> = {
  usp_services_list: ['business', ...SERVICE_FACTS],
  usp_services_get: ['business', ...SERVICE_FACTS],
  usp_services_lookup: ['business', ...SERVICE_FACTS],
  usp_availability_query: ['zone', 'slot_ids', 'resource_ids', 'counts', 'next_step'],
  usp_availability_hold: ['held_slot', 'zone', 'next_step'],
  usp_bookings_create: BOOKING_FACTS,
  usp_bookings_get: BOOKING_FACTS,
  usp_bookings_reschedule: BOOKING_FACTS,
  uspserver_bookings_renew_payment: BOOKING_FACTS,
  uspserver_bookings_list: ['counts', 'status', 'zone', 'next_step'],
  usp_waitlist_join: ['status', 'offer_channel', 'offer_window', 'later_access', 'next_step'],
};

export const SERVER_INSTRUCTIONS = `This server is a scheduling business speaking the Universal Scheduling Protocol.
Flow: usp_services_list (find the service) -> usp_availability_query (pick a slot; times are in the business time zone, say the zone) -> optionally usp_availability_hold (tell the person when the hold expires) -> usp_bookings_create with buyer details and an idempotency_key.
After booking: if status is requires_action, give the person actions[0].continue_url verbatim and say it is not paid or confirmed until they complete it; if pending, the business must still confirm.
_meta is optional: the server supplies your platform profile on stdio and from an OAuth token (else send _meta.usp.profile, your profile URL), and makes an idempotency_key for a write that has none (returned in the result's _meta.usp); send your own to retry safely. _meta.usp may also carry profile, authorization and correlation_id. Every result's structuredContent carries usp (version, capabilities) and messages; business outcomes (slot taken, policy refusals) come back as messages with isError true: read the message and follow its next step.`;
