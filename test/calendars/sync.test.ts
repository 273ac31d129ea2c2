/**
 * Calendar sync end to end: an iCalendar feed on loopback and a real CalDAV server (Radicale) feed a
 * business's resources; their busy times take slots away on both doors, a DST week with recurring
 * events reads as a calendar client shows it, and bookings on a writable CalDAV calendar appear,
 * move and go there. Workers are stepped by hand (`pollAll`, `tick`): one step is one poll.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpConn } from '../mcp/helpers.js';
import { BUYER, startTestServer, type TestServer } from '../support/server.js';
import { radicaleInstalled, startRadicale, type Radicale } from '../support/radicale.js';
import {
  CALDAV_SECRET_ENV,
  calendar,
  calendarBusiness,
  DST_NOW,
  DST_WEEK_EVENTS,
  DST_WEEK_EXPECTED,
  startFeedServer,
  vevent,
  ZONE,
  type FeedServer,
} from './fixtures.js';

const hasRadicale = radicaleInstalled();
let radicale: Radicale;
let feed: FeedServer;

beforeAll(async () => {
  feed = await startFeedServer();
  if (hasRadicale) radicale = await startRadicale();
});
afterAll(async () => {
  await feed?.close();
  await radicale?.stop();
});

let t: TestServer | undefined;
let mcp: McpConn | undefined;
afterEach(async () => {
  await mcp?.close();
  await t?.close();
  mcp = undefined;
  t = undefined;
  feed.handler = undefined;
  feed.status = 200;
  feed.body = calendar([]);
});

let calendarCount = 0;
async function start(
  now: number,
  opts: { write?: boolean; limits?: Record<string, number> } = {},
): Promise<{ t: TestServer; caldav: string }> {
  const caldav = await radicale.makeCalendar(`cal${++calendarCount}`);
  t = await startTestServer({
    business: calendarBusiness(feed.url, caldav, { write: opts.write }),
    now,
    security: { allowLoopbackProfiles: true },
    calendars: { startWorkers: false, env: { [CALDAV_SECRET_ENV]: radicale.password }, limits: opts.limits },
  });
  return { t, caldav };
}

/** Local HH:MM starts of the free slots of a service on one local date (REST). */
async function restStarts(serviceId: string, date: string): Promise<string[]> {
  const r = await t!.call(
    'POST',
    '/availability/query',
    { service_id: serviceId, start_date: date, end_date: date, limit: 500 },
    { profile: null },
  );
  expect(r.status).toBe(200);
  return r.body.slots.map((s: { start: string }) => local(s.start));
}

async function mcpStarts(serviceId: string, date: string): Promise<string[]> {
  mcp ??= await connectMcp('v2', 'memory', t!);
  const r = await mcp.call('usp_availability_query', {
    service_id: serviceId,
    start_date: date,
    end_date: date,
    limit: 500,
  });
  expect(r.isError ?? false).toBe(false);
  return r.structuredContent.slots.map((s: { start: string }) => local(s.start));
}

function local(rfc3339: string): string {
  return new Date(rfc3339).toLocaleTimeString('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit' });
}

const poll = () => t!.server.calendars!.poller!.pollAll();

describe.skipIf(!hasRadicale)("busy times from a resource's calendars take its slots away", () => {
  it('an event created in Radicale removes the slots it covers on both doors within one poll', async () => {
    const { caldav } = await start(DST_NOW);
    expect(await restStarts('svc_b', '2026-10-28')).toContain('10:00');
    expect(
      await radicale.put(
        `${caldav}dentist.ics`,
        calendar([
          vevent({ UID: 'dentist@test', DTSTART: '20261028T140000Z', DTEND: '20261028T151500Z', SUMMARY: 'Dentist' }),
        ]),
      ),
    ).toBe(201);
    const results = await poll();
    expect(results.map((r) => r.outcome)).toEqual(['unchanged', 'updated']);
    const rest = await restStarts('svc_b', '2026-10-28');
    expect(rest).not.toContain('10:00');
    expect(rest).not.toContain('11:00'); // 11:00-12:00 overlaps the event's last quarter hour
    expect(rest).toContain('12:00');
    expect(await mcpStarts('svc_b', '2026-10-28')).toEqual(rest);
    // The other resource is untouched.
    expect(await restStarts('svc_a', '2026-10-28')).toContain('10:00');
  });

  it('an event deleted in Radicale frees its slots at the next poll', async () => {
    const { caldav } = await start(DST_NOW);
    await radicale.put(
      `${caldav}dentist.ics`,
      calendar([vevent({ UID: 'dentist2@test', DTSTART: '20261028T140000Z', DTEND: '20261028T150000Z' })]),
    );
    await poll();
    expect(await restStarts('svc_b', '2026-10-28')).not.toContain('10:00');
    expect(await radicale.remove(`${caldav}dentist.ics`)).toBe(200);
    await poll();
    expect(await restStarts('svc_b', '2026-10-28')).toContain('10:00');
    expect(await mcpStarts('svc_b', '2026-10-28')).toContain('10:00');
  });

  it("a held or booked slot refuses a calendar's busy time: a hold over a busy hour answers slot_unavailable", async () => {
    await start(DST_NOW);
    const before = await t!.call(
      'POST',
      '/availability/query',
      { service_id: 'svc_a', start_date: '2026-10-28', end_date: '2026-10-28' },
      { profile: null },
    );
    const ten = before.body.slots.find((s: { start: string }) => local(s.start) === '10:00');
    feed.body = calendar([vevent({ UID: 'x@test', DTSTART: '20261028T140000Z', DTEND: '20261028T150000Z' })]);
    await poll();
    const hold = await t!.call('POST', '/availability/holds', { service_id: 'svc_a', slot_id: ten.id });
    expect(JSON.stringify(hold.body)).toContain('slot_unavailable');
  });
});

describe.skipIf(!hasRadicale)(
  'a DST week with recurring events reads as a calendar client shows it (iCalendar feed and Radicale alike)',
  () => {
    for (const source of ['ics feed', 'radicale'] as const) {
      it(`${source}: daily event with an excluded day and a moved instance, all-day, floating, transparent and cancelled events`, async () => {
        const { caldav } = await start(DST_NOW);
        const service = source === 'ics feed' ? 'svc_a' : 'svc_b';
        if (source === 'ics feed') feed.body = calendar(DST_WEEK_EVENTS);
        else {
          // A CalDAV calendar holds one object per UID: the series with its moved instance, and the others.
          await radicale.put(`${caldav}standup.ics`, calendar(DST_WEEK_EVENTS.slice(0, 2)));
          for (const [i, e] of DST_WEEK_EVENTS.slice(2).entries())
            await radicale.put(`${caldav}e${i}.ics`, calendar([e]));
        }
        const results = await poll();
        expect(
          results.every((r) => r.outcome !== 'failed'),
          JSON.stringify(results),
        ).toBe(true);
        for (const row of DST_WEEK_EXPECTED) {
          const starts = await restStarts(service, row.date);
          for (const h of row.busy) expect(starts, `${row.date} ${h} busy`).not.toContain(h);
          for (const h of row.free) expect(starts, `${row.date} ${h} free`).toContain(h);
        }
        expect(await restStarts(service, '2026-10-31')).toEqual([]);
      });
    }
  },
);

describe.skipIf(!hasRadicale)('a booking on a resource with a writable CalDAV calendar becomes an event there', () => {
  it('a booking appears in Radicale, moves on reschedule with the same UID, and goes on cancel; our own event is never read back as busy', async () => {
    const { caldav } = await start(DST_NOW);
    const slots = (
      await t!.call('POST', '/availability/query', {
        service_id: 'svc_b',
        start_date: '2026-10-28',
        end_date: '2026-10-28',
      })
    ).body.slots;
    const created = await t!.call('POST', '/bookings', { service_id: 'svc_b', slot_id: slots[0].id, buyer: BUYER });
    expect(created.status).toBe(201);
    const id = created.body.booking.id;
    expect(await t!.server.calendars!.pusher!.tick()).toBe(1);
    let objects = await radicale.objects(caldav);
    expect(objects).toHaveLength(1);
    const uid = /UID:(.*)\r?\n/.exec(objects[0].data)![1];
    expect(uid).toContain(id);
    expect(objects[0].data).toContain(
      `DTSTART:${slots[0].start.replace(/[-:]/g, '').replace(/\.\d+/, '').replace(/Z?$/, '')}`.slice(0, 16),
    );

    // Read back: the pushed event is not busy time (the booking's own claim already is).
    await poll();
    const moved = await t!.call('POST', `/bookings/${id}/reschedule`, { slot_id: slots[2].id });
    expect(moved.status).toBe(200);
    expect(await restStarts('svc_b', '2026-10-28')).toContain(local(slots[0].start));
    expect(await t!.server.calendars!.pusher!.tick()).toBe(1);
    objects = await radicale.objects(caldav);
    expect(objects).toHaveLength(1);
    expect(objects[0].data).toContain(`UID:${uid}`);
    expect(objects[0].data).toContain('SEQUENCE:1');
    expect(new Date(startOf(objects[0].data)).toISOString()).toBe(new Date(slots[2].start).toISOString());

    // Pushing again with nothing changed sends nothing and leaves one event.
    expect(await t!.server.calendars!.pusher!.tick()).toBe(0);
    const canceled = await t!.call('POST', `/bookings/${id}/cancel`, {});
    expect(canceled.body.booking.status).toBe('canceled');
    expect(await t!.server.calendars!.pusher!.tick()).toBe(1);
    expect(await radicale.objects(caldav)).toEqual([]);
  });

  it('a push that fails stays queued with its error, is shown on /metrics, and is retried until it succeeds', async () => {
    const env: Record<string, string> = { [CALDAV_SECRET_ENV]: 'wrong' };
    const caldav = await radicale.makeCalendar(`cal${++calendarCount}`);
    t = await startTestServer({
      business: calendarBusiness(feed.url, caldav),
      now: DST_NOW,
      security: { allowLoopbackProfiles: true },
      calendars: { startWorkers: false, env },
    });
    const slots = (
      await t.call('POST', '/availability/query', {
        service_id: 'svc_b',
        start_date: '2026-10-29',
        end_date: '2026-10-29',
      })
    ).body.slots;
    const created = await t.call('POST', '/bookings', { service_id: 'svc_b', slot_id: slots[0].id, buyer: BUYER });
    expect(created.status).toBe(201);
    expect(await t.server.calendars!.pusher!.tick()).toBe(0);
    const backlog = await t.server.store.read((tx) => tx.calendars.pushBacklog(10));
    expect(backlog).toHaveLength(1);
    expect(backlog[0].attempts).toBe(1);
    expect(backlog[0].last_error).toMatch(/401/);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/usp_calendar_pushes_failing 1/);
    expect(metrics).toMatch(/usp_calendar_pushes_pending 1/);
    // Not before its backoff; then, with the right password, it lands once.
    env[CALDAV_SECRET_ENV] = radicale.password;
    expect(await t.server.calendars!.pusher!.tick()).toBe(0);
    t.clock.advance(11_000);
    expect(await t.server.calendars!.pusher!.tick()).toBe(1);
    expect(await radicale.objects(caldav)).toHaveLength(1);
    expect(await t.server.store.read((tx) => tx.calendars.pushBacklog(10))).toEqual([]);
  });
});

function startOf(ics: string): number {
  const m = /DTSTART:(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/.exec(ics)!;
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
}
