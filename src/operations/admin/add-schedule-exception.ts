import { z } from 'zod';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { invalidRequest } from '../core/errors.js';
import { Out } from '../schemas.js';
import { addDays } from '../../domain/index.js';
import { presentChange } from './list-schedule-changes.js';
import { announceScheduleChange } from './present.js';
import {
  bookingsOverlapping,
  checkExceptionDate,
  hoursTakenAway,
  overlapWarning,
  recordScheduleChange,
  resourceOf,
} from './schedule-input.js';

/** The longest range one call sets (a season is set a few ranges at a time). */
const MAX_RANGE_DAYS = 92;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

/** The dates from `date` to `until` (inclusive) whose weekday is among `weekdays` (all when absent). */
function datesOf(date: string, until: string | undefined, weekdays: readonly string[] | undefined): string[] {
  if (until === undefined) return [date];
  if (until < date)
    throw invalidRequest('until: must be on or after date', [{ field: 'until', message: 'before date' }]);
  const out: string[] = [];
  for (let d = date, n = 0; d <= until; d = addDays(d, 1), n++) {
    if (n >= MAX_RANGE_DAYS)
      throw invalidRequest(`until: at most ${MAX_RANGE_DAYS} days at a time`, [
        { field: 'until', message: 'range too long' },
      ]);
    if (!weekdays || weekdays.includes(WEEKDAYS[new Date(`${d}T00:00:00Z`).getUTCDay()])) out.push(d);
  }
  if (!out.length)
    throw invalidRequest('weekdays: no date in the range falls on those days', [
      { field: 'weekdays', message: 'no date matches' },
    ]);
  return out;
}

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
  output: { change: Out.object, changes: Out.objects, services_updated: Out.array },
  summary:
    "Set a staff member's or resource's hours for one date or a range of dates, replacing the weekly hours (empty hours close the day).",
  input: z.object({
    resource_id: z.string().min(1).max(200),
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'),
    until: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
      .optional()
      .describe(
        `The last date (inclusive) of a range given the same hours, at most ${MAX_RANGE_DAYS} days; each date gets its own exception.`,
      ),
    weekdays: z
      .array(z.enum(WEEKDAYS))
      .max(7)
      .optional()
      .describe('With until: only the dates on these days of the week (all when absent).'),
    hours: z.array(z.object({ opens: Time, closes: Time })).max(12),
    reason: z.string().max(500).optional(),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const resource = resourceOf(ctx, inp.resource_id);
    const dates = datesOf(inp.date, inp.until, inp.weekdays);
    for (const d of dates) checkExceptionDate(ctx, d);
    const sorted = [...inp.hours].sort((a, b) => a.opens.localeCompare(b.opens));
    sorted.forEach((h, i) => {
      if (h.closes <= h.opens)
        throw invalidRequest(`hours[${i}]: closes must be after opens`, [
          { field: `hours[${i}].closes`, message: 'must be after opens' },
        ]);
      if (i > 0 && h.opens < sorted[i - 1].closes)
        throw invalidRequest(`hours[${i}]: the intervals overlap`, [{ field: `hours[${i}]`, message: 'overlaps' }]);
    });
    await ctx.tx.lock([`schedule:${resource.id}`]);
    const taken = new Set(
      (await ctx.tx.admin.scheduleChanges([resource.id])).filter((c) => c.kind === 'exception').map((c) => c.date),
    );
    const clash = dates.find((d) => taken.has(d));
    if (clash) {
      throw invalidRequest(
        `date: ${resource.name} already has an exception for ${clash}; remove it first${dates.length > 1 ? ' (nothing in the range was set)' : ''}`,
        [{ field: 'date', message: 'already has an exception' }],
      );
    }
    const change = (date: string) => ({
      kind: 'exception' as const,
      start_ms: null,
      end_ms: null,
      date,
      hours: sorted,
      reason: inp.reason ?? null,
    });
    if (dates.length === 1) {
      const what = sorted.length ? `These hours on ${inp.date}` : `Closing ${inp.date}`;
      const res = await recordScheduleChange(
        ctx,
        resource,
        'exc',
        change(inp.date),
        hoursTakenAway(inp.date, sorted, ctx.biz.zone),
        what,
      );
      return { ...res, data: { ...res.data, changes: [res.data.change] } };
    }
    // A range: every date's row in this one transaction, the services announced once.
    const rows = [];
    for (const d of dates) {
      const row = {
        id: ctx.ids.next('exc'),
        resource_id: resource.id,
        ...change(d),
        created_ms: ctx.now,
        created_by: ctx.caller.actor ?? 'business',
      };
      await ctx.tx.admin.addScheduleChange(row);
      rows.push(row);
    }
    const services = await announceScheduleChange(ctx, resource.id);
    const kept = await bookingsOverlapping(
      ctx,
      resource.id,
      dates.flatMap((d) => hoursTakenAway(d, sorted, ctx.biz.zone)),
    );
    const what = `${sorted.length ? 'These hours' : 'Closing'} from ${dates[0]} to ${dates[dates.length - 1]}`;
    const changes = rows.map((r) => presentChange(r, ctx.biz.zone));
    return {
      ...ok({ change: changes[0], changes, services_updated: services }),
      messages: overlapWarning(kept, resource, ctx.biz.zone, what),
    };
  },
});
