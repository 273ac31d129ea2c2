import { z } from 'zod';
import { PLATFORM_BOOKING_READ } from '../change-rows.js';
import { defineOperation, ok } from '../core/define.js';
import { bookingNotFound, loadBooking } from './lifecycle.js';
import { id, BOOKING_OUTPUT } from '../schemas.js';

export const getBooking = defineOperation({
  name: 'get_booking',
  tool: 'usp_bookings_get',
  view: 'booking_card',
  rest: { method: 'GET', path: '/bookings/{booking_id}', input: 'none' },
  ...PLATFORM_BOOKING_READ,
  cli: 'get',
  output: BOOKING_OUTPUT,
  summary: 'Read a booking: status, pending actions, payment and cancellation details.',
  input: z.object({ booking_id: id('The booking id.') }),
  async handle(inp, ctx) {
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) throw bookingNotFound(inp.booking_id);
    return ok({ booking: rec.booking });
  },
});
