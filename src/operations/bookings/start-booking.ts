import { z } from 'zod';
import { defineOperation } from '../define.js';
import { BUSINESS_BOOKING_CHANGE } from '../steps/change-rows.js';
import { applyBusinessMove } from '../steps/booking-lifecycle.js';
import { id } from '../schemas.js';

/** Business-only; exposed on the admin REST paths and the CLI. */
export const startBooking = defineOperation({
  name: 'start_booking',
  rest: { method: 'POST', path: '/admin/bookings/{booking_id}/start', input: 'none' },
  ...BUSINESS_BOOKING_CHANGE,
  cli: 'start',
  summary: 'The business marks a confirmed booking as in progress.',
  input: z.object({ booking_id: id('The booking id.') }),
  async handle(inp, ctx) {
    return applyBusinessMove(ctx, inp.booking_id, 'start');
  },
});
