/**
 * The buyer's read-only booking page, reached by the booking's own link (the booking id, as the
 * checkout page is). It shows no buyer data and follows the booking: a reload after the business
 * confirms, reschedules or cancels shows the new state.
 */
import { z } from 'zod';
import { defineOperation, ok } from '../core/define.js';
import { bookingPageView, loadBookingByLink } from './views.js';
import { id } from '../schemas.js';

export const viewBookingPage = defineOperation({
  name: 'view_booking_page',
  rest: { method: 'GET', path: '/booking/{booking_id}', input: 'none' },
  access: 'public',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  writes: true,
  page: 'booking_page',
  summary:
    "The buyer's read-only booking page (HTML for browsers, JSON otherwise): what, from whom, where, when, terms and state.",
  input: z.object({ booking_id: id('The booking shown.') }),
  async handle(inp, ctx) {
    return ok({ booking_page: bookingPageView(ctx, await loadBookingByLink(ctx, inp.booking_id)) });
  },
});
