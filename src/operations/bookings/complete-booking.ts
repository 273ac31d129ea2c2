import { z } from 'zod';
import { defineOperation } from '../define.js';
import { BUSINESS_BOOKING_CHANGE } from '../steps/change-rows.js';
import { applyBusinessMove } from '../steps/booking-lifecycle.js';
import { id } from '../schemas.js';

/** Business-only; exposed on the admin REST paths and the CLI. */
export const completeBooking = defineOperation({
  name: 'complete_booking',
  rest: { method: 'POST', path: '/admin/bookings/{booking_id}/complete', input: 'none' },
  ...BUSINESS_BOOKING_CHANGE,
  dashboard: 'complete',
  cli: 'complete',
  summary: 'The business marks a booking as completed.',
  input: z.object({ booking_id: id('The booking id.') }),
  async handle(inp, ctx) {
    return applyBusinessMove(ctx, inp.booking_id, 'complete');
  },
});
