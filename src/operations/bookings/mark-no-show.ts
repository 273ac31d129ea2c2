import { z } from 'zod';
import { defineOperation } from '../define.js';
import { BUSINESS_BOOKING_CHANGE } from '../steps/change-rows.js';
import { applyBusinessMove } from '../steps/booking-lifecycle.js';
import { id } from '../schemas.js';

/** Business-only; exposed on the admin REST paths and the CLI. */
export const markNoShow = defineOperation({
  name: 'mark_no_show',
  rest: { method: 'POST', path: '/admin/bookings/{booking_id}/no-show', input: 'none' },
  ...BUSINESS_BOOKING_CHANGE,
  dashboard: 'no_show',
  cli: 'no-show',
  summary: 'The business marks the buyer as a no-show.',
  input: z.object({ booking_id: id('The booking id.') }),
  async handle(inp, ctx) {
    return applyBusinessMove(ctx, inp.booking_id, 'no_show');
  },
});
