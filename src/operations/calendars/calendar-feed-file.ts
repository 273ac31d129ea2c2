/**
 * A secret iCalendar feed to subscribe to: the bookings of one resource, or of the whole business
 * (`_business`), from 30 days back, each as one event under the same UID the CalDAV push uses (so
 * a calendar read back for busy times skips them). The buyer appears as the business chose
 * (`settings.calendar_feed_buyer_data`: by name by default).
 */
import { z } from 'zod';
import { bookingEventText, bookingEventUid, calendarObject, type CalendarEvent } from '../../domain/index.js';
import { defineOperation, ok } from '../core/define.js';
import { ProtocolError } from '../core/errors.js';
import { BUSINESS_FEED, checkFeedToken, requireResource } from './feed-tokens.js';

const DAY_MS = 86_400_000;

export const calendarFeedFile = defineOperation({
  name: 'calendar_feed',
  rest: { method: 'GET', path: '/calendars/{resource_file}', input: 'query' },
  access: 'public',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  writes: false,
  page: 'subscribed_calendar',
  summary:
    "A resource's bookings (or the business's, `_business.ics`) as a subscribed iCalendar feed, reached with its secret token.",
  input: z.object({
    resource_file: z.string().max(210).describe('`{resource_id}.ics`, or `_business.ics`.'),
    token: z.string().max(200).optional().describe("The feed's secret token (from get_calendar_feed)."),
  }),
  // The token is the feed's only key: the call's log lines show that one was given, never its value.
  logInput: (raw) => {
    const r = (raw ?? {}) as { resource_file?: unknown; token?: unknown };
    return { resource_file: r.resource_file, token: r.token === undefined ? undefined : '[redacted]' };
  },
  async handle(inp, ctx) {
    const m = /^(.+)\.ics$/.exec(inp.resource_file);
    if (!m) throw new ProtocolError('not_found', 'No calendar feed at this address.');
    const scope = m[1];
    await checkFeedToken(ctx.tx, scope, inp.token);
    requireResource(ctx, scope);
    const resourceIds = scope === BUSINESS_FEED ? ctx.biz.def.resources.map((r) => r.id) : [scope];
    const claims = await ctx.tx.claims.active(resourceIds, ctx.now - 30 * DAY_MS, ctx.now + 800 * DAY_MS, ctx.now);
    // Bookings only: not holds, not busy time read from a calendar (its slot key starts with `~`).
    const owners = [...new Set(claims.filter((c) => !c.is_hold && !c.slot_key.startsWith('~')).map((c) => c.owner_id))];
    const names = new Map(ctx.biz.def.services.map((s) => [s.id, s.name]));
    const events: CalendarEvent[] = [];
    for (const id of owners) {
      const rec = await ctx.tx.bookings.get(id);
      if (!rec || rec.booking.status === 'canceled') continue;
      const b = rec.booking;
      events.push({
        uid: bookingEventUid(b.id),
        sequence: rec.priv.reschedule_count,
        canceled: false,
        startMs: rec.priv.start_ms,
        endMs: rec.priv.end_ms,
        stampMs: Date.parse(b.updated_at),
        ...bookingEventText(
          names.get(b.service_id) ?? b.service_id,
          b.buyer,
          ctx.biz.def.settings.calendar_feed_buyer_data,
        ),
      });
    }
    events.sort((a, b) => a.startMs - b.startMs);
    const name =
      scope === BUSINESS_FEED
        ? ctx.biz.def.business.name
        : `${ctx.biz.def.resources.find((r) => r.id === scope)!.name} (${ctx.biz.def.business.name})`;
    const ics = calendarObject(events, '-//usp-server//calendar feed//EN', 'PUBLISH', name);
    return ok({ calendar: ics });
  },
});
