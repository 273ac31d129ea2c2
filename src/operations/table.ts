/**
 * The operations table: every operation the business serves, defined once. The REST routes, the
 * MCP tools and the published OpenAPI document are all generated from this list.
 */
import type { BuyerPage, DashboardAction, OperationDef } from './core/define.js';
import { ADMIN_OPERATIONS } from './admin/table.js';
import { CATALOG_ADMIN_OPERATIONS } from './catalog-admin/table.js';
import { listServices } from './catalog/list-services.js';
import { getService } from './catalog/get-service.js';
import { lookupServices } from './catalog/lookup-services.js';
import { servicesFeed } from './catalog/services-feed.js';
import { createFeedSubscription } from './catalog/create-feed-subscription.js';
import { getFeedSubscription } from './catalog/get-feed-subscription.js';
import { pauseFeedSubscription } from './catalog/pause-feed-subscription.js';
import { resumeFeedSubscription } from './catalog/resume-feed-subscription.js';
import { cancelFeedSubscription } from './catalog/cancel-feed-subscription.js';
import { queryAvailability } from './availability/query-availability.js';
import { holdSlot } from './availability/hold-slot.js';
import { releaseHold } from './availability/release-hold.js';
import { createBooking } from './bookings/create-booking.js';
import { getBooking } from './bookings/get-booking.js';
import { listBuyerBookings } from './bookings/list-buyer-bookings.js';
import { quoteBookingChange } from './bookings/quote-booking-change.js';
import { renewPaymentLink } from './bookings/renew-payment-link.js';
import { updateBooking } from './bookings/update-booking.js';
import { confirmBooking } from './bookings/confirm-booking.js';
import { cancelBooking } from './bookings/cancel-booking.js';
import { rescheduleBooking } from './bookings/reschedule-booking.js';
import { confirmPayment } from './bookings/confirm-payment.js';
import { startBooking } from './bookings/start-booking.js';
import { completeBooking } from './bookings/complete-booking.js';
import { markNoShow } from './bookings/mark-no-show.js';
import { viewCheckout } from './bookings/view-checkout.js';
import { completeCheckout } from './bookings/complete-checkout.js';
import { viewBookingPage } from './bookings/view-booking-page.js';
import { bookingCalendarFile } from './bookings/booking-calendar.js';
import { stopBookingReminders } from './bookings/stop-booking-reminders.js';
import { listenForEvents } from './bookings/listen-for-events.js';
import { calendarFeedFile } from './calendars/calendar-feed-file.js';
import { getCalendarFeed } from './calendars/get-calendar-feed.js';
import { rotateCalendarFeed } from './calendars/rotate-calendar-feed.js';
import { listCalendarSync } from './calendars/list-calendar-sync.js';
import { openDispute } from './bookings/open-dispute.js';
import { reviewDispute } from './bookings/review-dispute.js';
import { resolveDispute } from './bookings/resolve-dispute.js';
import { applyPaymentEvent } from './bookings/apply-payment-event.js';
import { joinWaitlist } from './waitlist/join-waitlist.js';
import { listWaitlist } from './waitlist/list-waitlist.js';
import { getWaitlistEntry } from './waitlist/get-waitlist-entry.js';
import { leaveWaitlist } from './waitlist/leave-waitlist.js';
import { acceptWaitlistOffer } from './waitlist/accept-waitlist-offer.js';
import { declineWaitlistOffer } from './waitlist/decline-waitlist-offer.js';
import { viewWaitlistOffer } from './waitlist/view-waitlist-offer.js';

export const OPERATIONS: readonly OperationDef[] = [
  listServices,
  servicesFeed,
  lookupServices,
  createFeedSubscription,
  getFeedSubscription,
  pauseFeedSubscription,
  resumeFeedSubscription,
  cancelFeedSubscription,
  getService,
  queryAvailability,
  holdSlot,
  releaseHold,
  createBooking,
  getBooking,
  listBuyerBookings,
  quoteBookingChange,
  renewPaymentLink,
  updateBooking,
  confirmBooking,
  cancelBooking,
  rescheduleBooking,
  confirmPayment,
  startBooking,
  completeBooking,
  markNoShow,
  openDispute,
  reviewDispute,
  resolveDispute,
  applyPaymentEvent,
  viewCheckout,
  completeCheckout,
  viewBookingPage,
  bookingCalendarFile,
  stopBookingReminders,
  listenForEvents,
  joinWaitlist,
  listWaitlist,
  getWaitlistEntry,
  leaveWaitlist,
  acceptWaitlistOffer,
  declineWaitlistOffer,
  viewWaitlistOffer,
  ...ADMIN_OPERATIONS,
  ...CATALOG_ADMIN_OPERATIONS,
  calendarFeedFile,
  getCalendarFeed,
  rotateCalendarFeed,
  listCalendarSync,
] as OperationDef[];

export function operationByName(name: string): OperationDef {
  const op = OPERATIONS.find((o) => o.name === name);
  if (!op) throw new Error(`unknown operation ${name}`);
  return op;
}

/** The operation behind a buyer page the REST door renders (its row's `page`). */
export function operationForPage(page: BuyerPage): OperationDef {
  const op = OPERATIONS.find((o) => o.page === page);
  if (!op) throw new Error(`no operation backs the page ${page}`);
  return op;
}

/** The operation a `usp-server bookings` subcommand runs (its row's `cli`); undefined when none does. */
export function operationForCommand(command: string): OperationDef | undefined {
  return OPERATIONS.find((o) => o.cli !== undefined && o.cli === command);
}

/** The operation that applies the payment provider's reports (its row's `paymentEvents`). */
export function operationForPaymentEvents(): OperationDef {
  const op = OPERATIONS.find((o) => o.paymentEvents === true);
  if (!op) throw new Error('no operation applies payment events');
  return op;
}

/** The row behind MCP's `subscriptions/listen` in an operation set; undefined when the set has none (the registry role). */
export function listenOperation(operations: readonly OperationDef[] = OPERATIONS): OperationDef | undefined {
  return operations.find((o) => o.onlyDoor === 'mcp_listen');
}

/** The operation behind a dashboard screen or button (its row's `dashboard`). */
export function operationForDashboard(action: DashboardAction): OperationDef {
  const op = OPERATIONS.find((o) => o.dashboard === action);
  if (!op) throw new Error(`no operation backs the dashboard action ${action}`);
  return op;
}
