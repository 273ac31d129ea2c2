import { z } from 'zod';
import { isoUtc } from '../../domain/index.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { BUSINESS_READ } from '../change-rows.js';
import { bookingNotFound } from '../bookings/lifecycle.js';
import { id, Out } from '../schemas.js';
import { calendarRow } from './present.js';
import { moneyView } from './money-view.js';
import { refundsThroughProvider } from '../payments/provider-money.js';

/** One booking as the business sees it, with every event it raised (its history). */
export const getBookingHistory = defineOperation({
  name: 'get_booking_history',
  rest: { method: 'GET', path: '/admin/bookings/{booking_id}', input: 'none' },
  ...BUSINESS_READ,
  dashboard: 'booking_detail',
  output: { booking: Out.object, money: Out.object, events: Out.objects, messages: Out.objects },
  summary:
    'A booking with its event history (every event it raised, oldest first) and the mail sent to its buyer (queued, sent, failed).',
  input: z.object({ booking_id: id('The booking id.') }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const rec = await ctx.tx.bookings.get(inp.booking_id);
    if (!rec) throw bookingNotFound(inp.booking_id);
    const events = await ctx.tx.admin.eventsOf(rec.booking.id);
    const jobs = await ctx.tx.payments.forBooking(rec.booking.id);
    const mail = await ctx.tx.mail.forSubject(rec.booking.id);
    const messages = mail.map((m) => ({
      kind: m.kind,
      recipient: m.recipient,
      status: m.status,
      attempts: m.attempts,
      due_at: isoUtc(m.due_ms),
      ...(m.sent_ms !== null ? { sent_at: isoUtc(m.sent_ms) } : {}),
      ...(m.last_error ? { error: m.last_error } : {}),
    }));
    return ok({
      ...calendarRow(rec),
      money: moneyView(rec, jobs, refundsThroughProvider(ctx, rec)),
      messages,
      events: events.map((e) => ({
        event: e.event,
        event_id: e.event_id,
        ...e.payload,
        timestamp: isoUtc(Math.max(e.created_ms, e.due_ms)),
      })),
    });
  },
});
