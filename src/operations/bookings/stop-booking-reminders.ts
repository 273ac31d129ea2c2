/**
 * The buyer turns off the reminder mail of one booking, from the link in a reminder (the booking's
 * own link, as its page is): queued reminders are withdrawn and no later one is queued. Nothing else
 * changes: confirmations and changes still go, and the platform still gets booking.reminder.
 */
import { z } from 'zod';
import { defineOperation, ok } from '../core/define.js';
import { iso } from '../core/context.js';
import { loadBookingByLink } from './views.js';
import { reminderOptOutKey } from '../notifications/mail-messages.js';
import { id } from '../schemas.js';

export const stopBookingReminders = defineOperation({
  name: 'stop_booking_reminders',
  rest: { method: 'POST', path: '/booking/{booking_id}/reminders', input: 'body' },
  access: 'public',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  writes: true,
  page: 'reminders_form',
  summary: 'Stop the reminder mail of a booking (the link in each reminder); confirmations and changes still go.',
  input: z.object({ booking_id: id('The booking whose reminders stop.') }),
  async handle(inp, ctx) {
    const rec = await loadBookingByLink(ctx, inp.booking_id);
    await ctx.tx.kv.set(reminderOptOutKey(rec.booking.id), iso(ctx.now));
    const withdrawn = await ctx.tx.mail.cancelQueued(rec.booking.id, 'reminder');
    return ok({ booking_id: rec.booking.id, reminders: 'off', withdrawn });
  },
});
