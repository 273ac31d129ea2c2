/**
 * The business's own moves on a booking after it is confirmed (spec 5.1, 5.5.3): mark it started,
 * completed or a no-show. Business-only; exposed on the admin REST paths and the CLI.
 */
import { z } from 'zod';
import type { BookingMove } from '../../domain/index.js';
import { defineOperation, ok, requireBusiness, type OperationDef } from '../define.js';
import { checkRevision, emitBookingEvent, freeSlot, loadBooking, move } from '../steps/booking-lifecycle.js';
import { id } from '../schemas.js';
import { bookingNotFound } from './get-booking.js';

const input = z.object({ booking_id: id('The booking id.') });

function businessMove(name: string, path: string, m: BookingMove, event: string, summary: string): OperationDef<typeof input> {
  return defineOperation({
    name,
    rest: { method: 'POST', path, input: 'none' },
    resource: { kind: 'booking', key: 'booking_id' },
    access: 'business_only',
    capability: 'dev.usp-protocol.services.bookings',
    mutating: true,
    conditional: true,
    writes: true,
    summary,
    input,
    async handle(inp, ctx) {
      requireBusiness(ctx);
      const rec = await loadBooking(ctx, inp.booking_id);
      if (!rec) return bookingNotFound(inp.booking_id);
      checkRevision(ctx, rec.booking.revision);
      move(rec, m, ctx);
      await ctx.tx.bookings.update(rec);
      if (m !== 'start') await freeSlot(ctx, rec).catch(() => undefined);
      emitBookingEvent(ctx, event, rec);
      return ok({ booking: rec.booking });
    },
  });
}

export const startBooking = businessMove('start_booking', '/admin/bookings/{booking_id}/start', 'start', 'booking.service_started', 'The business marks a confirmed booking as in progress.');
export const completeBooking = businessMove('complete_booking', '/admin/bookings/{booking_id}/complete', 'complete', 'booking.completed', 'The business marks a booking as completed.');
export const markNoShow = businessMove('mark_no_show', '/admin/bookings/{booking_id}/no-show', 'no_show', 'booking.no_show', 'The business marks the buyer as a no-show.');
