import { z } from 'zod';
import { isoUtc } from '../../domain/index.js';
import { defineOperation, ok, requireBusiness } from '../define.js';
import { bookingNotFound } from '../steps/booking-lifecycle.js';
import { id, Out } from '../schemas.js';
import { calendarRow } from './present.js';
import { moneyView } from './money-view.js';
import { refundsThroughProvider } from '../steps/provider-money.js';

/** One booking as the business sees it, with every event it raised (its history). */
export const getBookingHistory = defineOperation({
  name: 'get_booking_history',
  rest: { method: 'GET', path: '/admin/bookings/{booking_id}', input: 'none' },
  access: 'business_only',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  writes: false,
  dashboard: 'booking_detail',
  output: { booking: Out.object, money: Out.object, events: Out.objects },
  summary: 'A booking with its event history (every event it raised, oldest first).',
  input: z.object({ booking_id: id('The booking id.') }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const rec = await ctx.tx.bookings.get(inp.booking_id);
    if (!rec) return bookingNotFound(inp.booking_id);
    const events = await ctx.tx.admin.eventsOf(rec.booking.id);
    const jobs = await ctx.tx.payments.forBooking(rec.booking.id);
    return ok({ ...calendarRow(rec), money: moneyView(rec, jobs, refundsThroughProvider(ctx, rec)), events: events.map((e) => ({ event: e.event, event_id: e.event_id, ...e.payload, timestamp: isoUtc(Math.max(e.created_ms, e.due_ms)) })) });
  },
});
