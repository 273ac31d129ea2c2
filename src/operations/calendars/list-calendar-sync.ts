/**
 * How calendar sync stands, for the business: every calendar the business file lists per resource
 * with what its last fetches left (when it last read well, the error of the last attempt, how many
 * busy intervals it keeps, and `stale` once its busy times are older than 24 hours), the bookings
 * waiting to be pushed to a CalDAV calendar (with the error of a failed push), and the busy
 * intervals read from calendars in a range (the dashboard's calendar shows them).
 */
import { z } from 'zod';
import { calendarKey, formatInstant, isoUtc } from '../../domain/index.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { Out } from '../schemas.js';

/** Busy times older than this are reported stale unless the process says otherwise (`--calendar-stale-hours`). */
export const CALENDAR_STALE_MS = 24 * 3_600_000;

export const listCalendarSync = defineOperation({
  name: 'list_calendar_sync',
  rest: { method: 'GET', path: '/admin/calendars', input: 'query' },
  access: 'business_only',
  capability: 'dev.usp-protocol.services.availability',
  mutating: false,
  conditional: false,
  writes: false,
  dashboard: 'calendar_sync',
  output: { feeds: Out.objects, pushes: Out.objects, busy: Out.objects },
  summary:
    "Calendar sync: each resource calendar's last fetch and error (stale after --calendar-stale-hours, default 24 h), bookings waiting to be pushed, and busy times read from calendars in a range.",
  input: z.object({
    from: z
      .string()
      .datetime({ offset: true })
      .optional()
      .describe('Start of the range whose busy times are listed (default now).'),
    to: z.string().datetime({ offset: true }).optional().describe('End of the range (default one week after from).'),
    resource_id: z.string().max(200).optional(),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const zone = ctx.biz.zone;
    const states = await ctx.tx.calendars.feedStates();
    const feeds = ctx.biz.def.resources.flatMap((r) =>
      (r.calendars ?? []).map((c) => {
        const s = states.find((x) => x.feed_key === calendarKey(r.id, c));
        return {
          resource_id: r.id,
          resource_name: r.name,
          type: c.type,
          write: c.type === 'caldav' ? c.write === true : false,
          last_ok_at: s?.last_ok_ms ? formatInstant(s.last_ok_ms, zone) : null,
          last_attempt_at: s?.last_attempt_ms ? formatInstant(s.last_attempt_ms, zone) : null,
          error: s?.last_error ?? null,
          busy_intervals: s?.busy_count ?? 0,
          stale: !s?.last_ok_ms || ctx.now - s.last_ok_ms > (ctx.env?.calendarStaleMs ?? CALENDAR_STALE_MS),
        };
      }),
    );
    const pushes = (await ctx.tx.calendars.pushBacklog(200)).map((j) => ({
      booking_id: j.booking_id,
      attempts: j.attempts,
      next_attempt_at: isoUtc(Math.max(j.next_attempt_ms, 0)),
      error: j.last_error,
    }));
    const fromMs = inp.from ? Date.parse(inp.from) : ctx.now;
    const toMs = inp.to ? Date.parse(inp.to) : fromMs + 7 * 86_400_000;
    const ids = inp.resource_id ? [inp.resource_id] : ctx.biz.def.resources.map((r) => r.id);
    const busy = (await ctx.tx.calendars.busyOn(ids, fromMs, toMs)).map((b) => ({
      resource_id: b.resource_id,
      start: formatInstant(b.start_ms, zone),
      end: formatInstant(b.end_ms, zone),
      start_ms: b.start_ms,
      end_ms: b.end_ms,
    }));
    return ok({ feeds, pushes, busy });
  },
});
