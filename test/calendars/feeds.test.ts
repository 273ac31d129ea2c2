/**
 * A calendar feed that fails keeps the busy times of its last good fetch and says why (feed state,
 * /metrics); a feed that answers too much or never ends is cut off; loopback and private addresses
 * are refused unless --allow-loopback-profiles; an unchanged feed is asked conditionally.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/operations/index.js';
import { calendarOptions } from '../../src/server/cli/common.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/server.js';
import { calendar, calendarBusiness, DST_NOW, startFeedServer, vevent, ZONE, type FeedServer } from './fixtures.js';
import { CalendarPoller, calendarFeeds } from '../../src/calendars/index.js';

let feed: FeedServer;
let t: TestServer | undefined;
beforeAll(async () => {
  feed = await startFeedServer();
});
afterAll(async () => feed.close());
afterEach(async () => {
  await t?.close();
  t = undefined;
  feed.handler = undefined;
  feed.status = 200;
});

const DENTIST = calendar([vevent({ UID: 'd@test', DTSTART: '20261028T140000Z', DTEND: '20261028T150000Z' })]);

async function start(limits: Record<string, number> = {}): Promise<TestServer> {
  t = await startTestServer({
    business: calendarBusiness(feed.url, null),
    now: DST_NOW,
    security: { allowLoopbackProfiles: true },
    calendars: { startWorkers: false, limits },
  });
  return t;
}

async function starts(date = '2026-10-28'): Promise<string[]> {
  const r = await t!.call(
    'POST',
    '/availability/query',
    { service_id: 'svc_a', start_date: date, end_date: date, limit: 500 },
    { profile: null },
  );
  return r.body.slots.map((s: { start: string }) =>
    new Date(s.start).toLocaleTimeString('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit' }),
  );
}

const poll = async () => (await t!.server.calendars!.poller!.pollAll())[0];
const state = () => t!.server.store.read((tx) => tx.calendars.feedStates()).then((s) => s[0]);

describe('a failing feed keeps its last good busy times and is reported', () => {
  const failures: Array<[string, () => void, RegExp]> = [
    ['an unreachable feed (HTTP 503)', () => void (feed.status = 503), /HTTP 503/],
    ['a malformed feed', () => void (feed.body = 'this is not a calendar'), /not iCalendar|VCALENDAR/],
    [
      'an HTML page instead of a calendar',
      () => void (feed.body = '<html><body>Sign in</body></html>'),
      /not iCalendar|VCALENDAR/,
    ],
    ['a connection reset', () => void (feed.handler = (req) => req.socket.destroy()), /socket hang up|ECONNRESET/],
  ];
  for (const [name, breakIt, reason] of failures) {
    it(`${name}: the busy hour stays busy, the feed state and /metrics say it fails`, async () => {
      await start();
      feed.body = DENTIST;
      expect((await poll()).outcome).toBe('updated');
      expect(await starts()).not.toContain('10:00');
      breakIt();
      const r = await poll();
      expect(r.outcome).toBe('failed');
      expect(r.error).toMatch(reason);
      expect(await starts()).not.toContain('10:00');
      const s = await state();
      expect(s.last_error).toMatch(reason);
      expect(s.last_ok_ms).toBe(DST_NOW);
      expect(s.last_error).not.toContain(feed.url); // a secret address is never shown
      const metrics = await (await fetch(`${t!.url}/metrics`)).text();
      expect(metrics).toMatch(/usp_calendar_feed_failing\{resource="res_a",feed="[0-9a-f]+"\} 1/);
      // It comes back: the error clears.
      feed.handler = undefined;
      feed.status = 200;
      feed.body = calendar([]);
      expect((await poll()).outcome).toBe('updated');
      expect(await starts()).toContain('10:00');
      expect((await state()).last_error).toBeNull();
    });
  }
});

describe('a feed is cut off when it answers too much or never ends', () => {
  it('an answer over the size limit fails the fetch and keeps the last busy times', async () => {
    await start({ maxBytes: 64 * 1024 });
    feed.body = DENTIST;
    await poll();
    feed.body = calendar(
      Array.from({ length: 2000 }, (_, i) =>
        vevent({
          UID: `big${i}@test`,
          DTSTART: '20261029T140000Z',
          DTEND: '20261029T150000Z',
          DESCRIPTION: 'x'.repeat(40),
        }),
      ),
    );
    const r = await poll();
    expect(r.outcome).toBe('failed');
    expect(r.error).toMatch(/larger than 65536 bytes/);
    expect(await starts()).not.toContain('10:00');
  });

  it('a 10 MB answer is cut off at the default limit', async () => {
    await start();
    feed.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/calendar' });
      const chunk = Buffer.alloc(1024 * 1024, 'X');
      for (let i = 0; i < 11; i++) res.write(chunk);
      res.end();
    };
    const r = await poll();
    expect(r.outcome).toBe('failed');
    expect(r.error).toMatch(/larger than 10485760 bytes/);
  });

  it('a body that never ends is cut off at the deadline', async () => {
    await start({ timeoutMs: 300 });
    const timers: NodeJS.Timeout[] = [];
    feed.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/calendar' });
      res.write('BEGIN:VCALENDAR\r\n');
      timers.push(setInterval(() => res.write('X-TRICKLE:1\r\n'), 20));
    };
    const began = Date.now();
    const r = await poll();
    timers.forEach(clearInterval);
    expect(r.outcome).toBe('failed');
    expect(r.error).toMatch(/no complete answer within 300 ms/);
    expect(Date.now() - began).toBeLessThan(5000);
  });
});

describe('a calendar holding more events than a calendar may (--calendar-max-events) is refused whole', () => {
  /** `n` small events, one hour each, one a day from 2026-11-10 (none over the dentist's hour). */
  const manyEvents = (n: number) =>
    calendar(
      Array.from({ length: n }, (_, i) =>
        vevent({
          UID: `e${i}@test`,
          DTSTART: `${20261110 + (i % 10)}T140000Z`,
          DTEND: `${20261110 + (i % 10)}T150000Z`,
        }),
      ),
    );

  it('10,001 small events (under the size cap) are not read at the default 10,000: the feed fails saying so, and the health is degraded naming its resource', async () => {
    await start();
    feed.body = manyEvents(10_001);
    expect(Buffer.byteLength(feed.body)).toBeLessThan(10 * 1024 * 1024);
    const r = await poll();
    expect(r.outcome).toBe('failed');
    expect(r.error).toMatch(/holds 10001 events, more than the 10000 a calendar may hold \(--calendar-max-events\)/);
    expect((await state()).busy_count).toBe(0);
    expect(await t!.server.store.read((tx) => tx.calendars.busy(r.feed))).toEqual([]);
    // The business sees why on its calendar sync (REST), and platforms see the availability is doubtful.
    const sync = await t!.call('GET', '/admin/calendars', undefined, { apiKey: ADMIN_KEY, profile: null });
    expect(sync.status).toBe(200);
    expect(JSON.stringify(sync.body.feeds)).toMatch(/holds 10001 events/);
    const profile = await t!.call('GET', '/.well-known/usp', undefined, { profile: null });
    expect(profile.body.usp.capabilities['dev.usp-server.health'][0]).toMatchObject({
      status: 'degraded',
      calendars: [{ resource_id: 'res_a', status: 'stale' }],
    });
  });

  it('at the limit the calendar is read; over it (folded or lower-case lines counted too) its last busy times are kept', async () => {
    await start({ maxEvents: 2 });
    const dentist = vevent({ UID: 'd@test', DTSTART: '20261028T140000Z', DTEND: '20261028T150000Z' });
    feed.body = calendar([dentist, vevent({ UID: 'e1@test', DTSTART: '20261029T140000Z', DTEND: '20261029T150000Z' })]);
    expect((await poll()).outcome).toBe('updated');
    expect(await starts()).not.toContain('10:00');
    // A third event, its BEGIN line folded and in lower case, is still an event.
    feed.body = calendar([
      dentist,
      'begin:VEV\r\n ENT\r\nUID:e2@test\r\nDTSTART:20261030T140000Z\r\nDTEND:20261030T150000Z\r\nEND:VEVENT',
    ]);
    expect((await poll()).outcome).toBe('updated');
    feed.body = calendar([
      dentist,
      vevent({ UID: 'e1@test', DTSTART: '20261029T140000Z', DTEND: '20261029T150000Z' }),
      'begin:VEV\r\n ENT\r\nUID:e2@test\r\nDTSTART:20261030T140000Z\r\nDTEND:20261030T150000Z\r\nEND:VEVENT',
    ]);
    const r = await poll();
    expect(r.outcome).toBe('failed');
    expect(r.error).toMatch(/holds 3 events, more than the 2/);
    expect(await starts()).not.toContain('10:00');
  });

  it('--calendar-max-events is read as a count (at least 1)', () => {
    expect(calendarOptions({ 'calendar-max-events': '500' } as never)).toEqual({ limits: { maxEvents: 500 } });
    expect(() => calendarOptions({ 'calendar-max-events': '0' } as never)).toThrow();
  });
});

describe('an unchanged feed is asked conditionally', () => {
  it('the second poll sends the ETag back, gets 304 and rewrites nothing', async () => {
    await start();
    feed.body = DENTIST;
    feed.requests.length = 0;
    expect((await poll()).outcome).toBe('updated');
    const version = await t!.server.store.read((tx) => tx.claims.version(['res_a']));
    expect((await poll()).outcome).toBe('unchanged');
    expect(feed.requests[1].ifNoneMatch).toMatch(/^"/);
    expect(await t!.server.store.read((tx) => tx.claims.version(['res_a']))).toBe(version);
    expect(await starts()).not.toContain('10:00');
  });
});

describe('calendar URLs on loopback or private addresses are refused unless --allow-loopback-profiles', () => {
  it('a loopback feed URL is refused at start without the flag', async () => {
    await expect(
      startTestServer({ business: calendarBusiness(feed.url, null), now: DST_NOW, calendars: { startWorkers: false } }),
    ).rejects.toThrow(/res_a\.calendars: ics calendar URL must use https/);
  });

  it('an https feed whose name resolves to a private address is never contacted', async () => {
    const def = calendarBusiness('https://calendar.internal.example.net/secret.ics', null);
    const poller = new CalendarPoller({
      store: (t = await startTestServer({
        business: calendarBusiness(feed.url, null),
        now: DST_NOW,
        security: { allowLoopbackProfiles: true },
        calendars: { startWorkers: false },
      })).server.store,
      feeds: calendarFeeds(def.resources),
      zone: ZONE,
      businessId: def.business.id,
      now: () => DST_NOW,
      log: silentLogger,
      limits: { lookup: async () => ['10.0.0.7'] },
    });
    const [r] = await poller.pollAll();
    expect(r.outcome).toBe('failed');
    expect(r.error).toMatch(/refused: 10\.0\.0\.7 is a special-use address/);
  });

  it('webcal:// addresses are read over https', () => {
    const feeds = calendarFeeds([
      { id: 'r', calendars: [{ type: 'ics', url: 'webcal://p01-caldav.icloud.com/published/2/abc' }] },
    ]);
    expect(feeds[0].url).toBe('https://p01-caldav.icloud.com/published/2/abc');
  });
});
