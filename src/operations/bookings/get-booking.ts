import { z } from 'zod';
import { defineOperation, ok } from '../define.js';
import { bookingNotFound, loadBooking } from '../steps/booking-lifecycle.js';
import { id, BOOKING_OUTPUT } from '../schemas.js';

export const getBooking = defineOperation({
  name: 'get_booking',
  tool: 'usp_bookings_get',
  view: 'booking_card',
  rest: { method: 'GET', path: '/bookings/{booking_id}', input: 'none' },
  resource: { kind: 'booking', key: 'booking_id' },
  access: 'privileged_scoped',
  scopes: ['usp:booking', 'usp:history'],
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  // Reading applies expiry of pending bookings, which writes.
  writes: true,
  cli: 'get',
  output: BOOKING_OUTPUT,
  summary: 'Read a booking: status, pending actions, payment and cancellation details.',
  input: z.object({ booking_id: id('The booking id.') }),
  async handle(inp, ctx) {
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) return bookingNotFound(inp.booking_id);
    return ok({ booking: rec.booking });
  },
});
