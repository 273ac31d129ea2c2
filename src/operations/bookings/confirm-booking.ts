import { z } from 'zod';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { BUSINESS_BOOKING_CHANGE } from '../change-rows.js';
import { alreadyMessage, checkRevision, loadBooking, stateConflict, transition, bookingNotFound } from './lifecycle.js';
import { id, BOOKING_OUTPUT } from '../schemas.js';

/** The business approves a manual-confirmation booking (spec 5.3.4). Business-only: only the business's admin key confirms. */
export const confirmBooking = defineOperation({
  name: 'confirm_booking',
  tool: 'usp_bookings_confirm',
  rest: { method: 'POST', path: '/bookings/{booking_id}/confirm', input: 'body' },
  ...BUSINESS_BOOKING_CHANGE,
  dashboard: 'confirm',
  cli: 'confirm',
  output: BOOKING_OUTPUT,
  summary: 'The business confirms a booking that waits for manual confirmation.',
  input: z.object({ booking_id: id('The booking id.'), notes: z.string().max(2000).optional() }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) throw bookingNotFound(inp.booking_id);
    if (rec.booking.status === 'confirmed') {
      return { data: { booking: rec.booking }, messages: [alreadyMessage('The booking is already confirmed.')] };
    }
    // Confirm is legal from pending only for a booking that waits for the business (spec 5.1.1, 5.3.4).
    if (rec.booking.status === 'pending' && rec.booking.confirmation_mode !== 'manual')
      throw stateConflict(rec, 'confirmed by the business (it confirms automatically)');
    checkRevision(ctx, rec.booking.revision);
    await transition(ctx, rec, 'confirm');
    return ok({ booking: rec.booking });
  },
});
