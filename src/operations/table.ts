/**
 * The operations table: every operation the business serves, defined once. The REST routes, the
 * MCP tools and the published OpenAPI document are all generated from this list.
 */
import type { OperationDef } from './define.js';
import { listServices } from './catalog/list-services.js';
import { getService } from './catalog/get-service.js';
import { lookupServices } from './catalog/lookup-services.js';
import { servicesFeed } from './catalog/services-feed.js';
import {
  cancelFeedSubscription,
  createFeedSubscription,
  getFeedSubscription,
  pauseFeedSubscription,
  resumeFeedSubscription,
} from './catalog/feed-subscriptions.js';
import { queryAvailability } from './availability/query-availability.js';
import { holdSlot } from './availability/hold-slot.js';
import { releaseHold } from './availability/release-hold.js';
import { createBooking } from './bookings/create-booking.js';
import { getBooking } from './bookings/get-booking.js';
import { listBookings } from './bookings/list-bookings.js';
import { updateBooking } from './bookings/update-booking.js';
import { confirmBooking } from './bookings/confirm-booking.js';
import { cancelBooking } from './bookings/cancel-booking.js';
import { rescheduleBooking } from './bookings/reschedule-booking.js';
import { confirmPayment } from './bookings/confirm-payment.js';
import { completeBooking, markNoShow, startBooking } from './bookings/business-moves.js';
import { completeCheckout, viewCheckout } from './bookings/checkout.js';
import { bookingCalendarFile, viewBookingPage } from './bookings/booking-page.js';
import { openDispute, resolveDispute, reviewDispute } from './bookings/disputes.js';
import {
  acceptWaitlistOffer,
  declineWaitlistOffer,
  getWaitlistEntry,
  joinWaitlist,
  leaveWaitlist,
  listWaitlist,
} from './waitlist/waitlist-ops.js';

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
  listBookings,
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
  viewCheckout,
  completeCheckout,
  viewBookingPage,
  bookingCalendarFile,
  joinWaitlist,
  listWaitlist,
  getWaitlistEntry,
  leaveWaitlist,
  acceptWaitlistOffer,
  declineWaitlistOffer,
] as OperationDef[];

export function operationByName(name: string): OperationDef {
  const op = OPERATIONS.find((o) => o.name === name);
  if (!op) throw new Error(`unknown operation ${name}`);
  return op;
}
