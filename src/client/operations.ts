/**
 * The business operations a platform calls, as the protocol names them on each binding: the REST
 * route and the MCP tool. The client reads only this table to turn one call into either binding;
 * `test/client/operations.test.ts` holds it against the server's own operations table.
 */
export interface ClientOperation {
  /** The REST method and route; `{name}` segments are taken out of the input. */
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** The MCP tool. */
  tool: string;
  /** Where the rest of the input goes on REST: the JSON body, the query string, or nowhere. */
  input: 'body' | 'query' | 'none';
  /** A write: it carries an idempotency key (made by the client, reused on every retry). */
  mutating: boolean;
  /** A conditional write: `ifMatch` (the revision last read) is sent as If-Match / `_meta.usp.if_match`. */
  conditional: boolean;
  /** Privileged (a platform's or a credential's call): proved when the business requires authentication. Public calls carry no proof. */
  privileged: boolean;
  /** The capability the business must offer for the operation to exist. */
  capability: string;
  /** The resource a booking-scoped credential is for (the input member naming it). */
  scoped?: 'booking_id' | 'hold_id' | 'entry_id' | 'subscription_id';
}

const CATALOG = 'dev.usp-protocol.services.catalog';
const SUBSCRIPTIONS = 'dev.usp-protocol.services.catalog.subscriptions';
const AVAILABILITY = 'dev.usp-protocol.services.availability';
const BOOKINGS = 'dev.usp-protocol.services.bookings';
const WAITLIST = 'dev.usp-protocol.services.waitlist';

const read = (
  method: 'GET' | 'POST',
  path: string,
  tool: string,
  input: ClientOperation['input'],
  capability: string,
  scoped?: ClientOperation['scoped'],
): ClientOperation => ({
  method,
  path,
  tool,
  input,
  mutating: false,
  conditional: false,
  // A read is privileged when it names a scoped resource, or is the waitlist's own list.
  privileged: scoped !== undefined || path === '/waitlist/list',
  capability,
  ...(scoped ? { scoped } : {}),
});
const write = (
  method: ClientOperation['method'],
  path: string,
  tool: string,
  input: ClientOperation['input'],
  capability: string,
  conditional: boolean,
  scoped?: ClientOperation['scoped'],
): ClientOperation => ({
  method,
  path,
  tool,
  input,
  mutating: true,
  conditional,
  privileged: true,
  capability,
  ...(scoped ? { scoped } : {}),
});

export const CLIENT_OPERATIONS = {
  list_services: read('POST', '/services/list', 'usp_services_list', 'body', CATALOG),
  services_feed: read('GET', '/services/feed', 'usp_services_feed', 'query', CATALOG),
  lookup_services: read('POST', '/services/lookup', 'usp_services_lookup', 'body', CATALOG),
  get_service: read('GET', '/services/{service_id}', 'usp_services_get', 'none', CATALOG),
  create_feed_subscription: write(
    'POST',
    '/services/feed/subscriptions',
    'usp_services_feed_subscribe',
    'body',
    SUBSCRIPTIONS,
    false,
  ),
  get_feed_subscription: read(
    'GET',
    '/services/feed/subscriptions/{subscription_id}',
    'usp_services_feed_subscription_get',
    'none',
    SUBSCRIPTIONS,
    'subscription_id',
  ),
  cancel_feed_subscription: write(
    'DELETE',
    '/services/feed/subscriptions/{subscription_id}',
    'usp_services_feed_unsubscribe',
    'none',
    SUBSCRIPTIONS,
    false,
    'subscription_id',
  ),
  query_availability: read('POST', '/availability/query', 'usp_availability_query', 'body', AVAILABILITY),
  hold_slot: write('POST', '/availability/holds', 'usp_availability_hold', 'body', AVAILABILITY, false),
  release_hold: write(
    'DELETE',
    '/availability/holds/{hold_id}',
    'usp_availability_release',
    'none',
    AVAILABILITY,
    false,
    'hold_id',
  ),
  create_booking: write('POST', '/bookings', 'usp_bookings_create', 'body', BOOKINGS, false),
  get_booking: read('GET', '/bookings/{booking_id}', 'usp_bookings_get', 'none', BOOKINGS, 'booking_id'),
  update_booking: write('PUT', '/bookings/{booking_id}', 'usp_bookings_update', 'body', BOOKINGS, true, 'booking_id'),
  cancel_booking: write(
    'POST',
    '/bookings/{booking_id}/cancel',
    'usp_bookings_cancel',
    'body',
    BOOKINGS,
    true,
    'booking_id',
  ),
  reschedule_booking: write(
    'POST',
    '/bookings/{booking_id}/reschedule',
    'usp_bookings_reschedule',
    'body',
    BOOKINGS,
    true,
    'booking_id',
  ),
  confirm_payment: write(
    'POST',
    '/bookings/{booking_id}/confirm-payment',
    'usp_bookings_confirm_payment',
    'body',
    BOOKINGS,
    true,
    'booking_id',
  ),
  join_waitlist: write('POST', '/waitlist', 'usp_waitlist_join', 'body', WAITLIST, false),
  list_waitlist: read('POST', '/waitlist/list', 'usp_waitlist_list', 'body', WAITLIST),
  get_waitlist_entry: read('GET', '/waitlist/{entry_id}', 'usp_waitlist_get', 'none', WAITLIST, 'entry_id'),
  leave_waitlist: write('DELETE', '/waitlist/{entry_id}', 'usp_waitlist_leave', 'none', WAITLIST, true, 'entry_id'),
  accept_waitlist_offer: write(
    'POST',
    '/waitlist/{entry_id}/accept',
    'usp_waitlist_accept',
    'body',
    WAITLIST,
    true,
    'entry_id',
  ),
  decline_waitlist_offer: write(
    'POST',
    '/waitlist/{entry_id}/decline',
    'usp_waitlist_decline',
    'body',
    WAITLIST,
    true,
    'entry_id',
  ),
} as const satisfies Record<string, ClientOperation>;

export type OperationName = keyof typeof CLIENT_OPERATIONS;
