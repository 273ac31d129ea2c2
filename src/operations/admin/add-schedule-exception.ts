import { z } from 'zod';
import { BUSINESS_WRITE } from '../steps/change-rows.js';
import { defineOperation, requireBusiness } from '../define.js';
import { invalidRequest } from '../errors.js';
import { Out } from '../schemas.js';
import { checkExceptionDate, hoursTakenAway, recordScheduleChange, resourceOf } from './schedule-input.js';

const Time = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be HH:MM');

/**
 * Hours for one date that replace a resource's weekly hours (an extra Sunday, a short day); [] closes the day.
 * Bookings left outside the new hours stay as they are and are named in a `bookings_overlap` warning.
 */
export const addScheduleException = defineOperation({
  name: 'add_schedule_exception',
  rest: { method: 'POST', path: '/admin/schedule-exceptions', input: 'body' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.availability',
  creates: true,
  dashboard: 'exception_add',
  output: { change: Out.object, services_updated: Out.array },
  summary: "Set a staff member's or resource's hours for one date, replacing the weekly hours (empty hours close the day).",
  input: z.object({
    resource_id: z.string().min(1).max(200),
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'),
    hours: z.array(z.object({ opens: Time, closes: Time })).max(12),
    reason: z.string().max(500).optional(),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const resource = resourceOf(ctx, inp.resource_id);
    checkExceptionDate(ctx, inp.date);
    const sorted = [...inp.hours].sort((a, b) => a.opens.localeCompare(b.opens));
    sorted.forEach((h, i) => {
      if (h.closes <= h.opens) throw invalidRequest(`hours[${i}]: closes must be after opens`, [{ field: `hours[${i}].closes`, message: 'must be after opens' }]);
      if (i > 0 && h.opens < sorted[i - 1].closes) throw invalidRequest(`hours[${i}]: the intervals overlap`, [{ field: `hours[${i}]`, message: 'overlaps' }]);
    });
    await ctx.tx.lock([`schedule:${resource.id}`]);
    const existing = (await ctx.tx.admin.scheduleChanges([resource.id])).find((c) => c.kind === 'exception' && c.date === inp.date);
    if (existing) {
      throw invalidRequest(`date: ${resource.name} already has an exception for ${inp.date} (${existing.id}); remove it first`, [
        { field: 'date', message: 'already has an exception' },
      ]);
    }
    const change = { kind: 'exception' as const, start_ms: null, end_ms: null, date: inp.date, hours: sorted, reason: inp.reason ?? null };
    const what = sorted.length ? `These hours on ${inp.date}` : `Closing ${inp.date}`;
    return recordScheduleChange(ctx, resource, 'exc', change, hoursTakenAway(inp.date, sorted, ctx.biz.zone), what);
  },
});
