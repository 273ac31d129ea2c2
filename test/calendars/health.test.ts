/**
 * A calendar that has gone too long without a good read (`--calendar-stale-hours`, default 24) makes
 * the business's availability doubtful: the profile's health (`dev.usp-server.health`) says
 * `degraded` and names the resource, /metrics has `usp_calendar_feed_stale`, and the calendar sync
 * operation says `stale`. On the fixed clock; the poller is stepped by hand.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { calendarOptions } from '../../src/server/cli/common.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/server.js';
import { calendar, calendarBusiness, DST_NOW, startFeedServer, vevent, type FeedServer } from './fixtures.js';

const HOUR = 3_600_000;
let feed: FeedServer;
let t: TestServer | undefined;
beforeAll(async () => {
  feed = await startFeedServer();
});
afterAll(async () => feed.close());
afterEach(async () => {
  await t?.close();
  t = undefined;
  feed.status = 200;
});

async function start(staleHours?: number): Promise<TestServer> {
  feed.body = calendar([vevent({ UID: 'd@test', DTSTART: '20261028T140000Z', DTEND: '20261028T150000Z' })]);
  t = await startTestServer({
    business: calendarBusiness(feed.url, null),
    now: DST_NOW,
    security: { allowLoopbackProfiles: true },
    calendars: { startWorkers: false, ...(staleHours === undefined ? {} : { staleHours }) },
  });
  return t;
}

const poll = () => t!.server.calendars!.poller.pollAll();
const health = async () => {
  const r = await t!.call('GET', '/.well-known/usp', undefined, { profile: null });
  expect(r.status).toBe(200);
  return r.body.usp.capabilities['dev.usp-server.health']?.[0];
};
const staleGauge = async () => {
  const text = await (await fetch(`${t!.url}/metrics`)).text();
  return /usp_calendar_feed_stale\{[^}]*resource="res_a"[^}]*\} (\d)/.exec(text)?.[1];
};

describe("a stale calendar is in the profile's health and on /metrics", () => {
  it('a feed failing for longer than --calendar-stale-hours turns the health degraded, naming its resource; a good read makes it healthy again', async () => {
    await start(2);
    expect((await poll())[0].outcome).toBe('updated');
    const fresh = await health();
    expect(fresh).toMatchObject({
      status: 'healthy',
      calendars: [],
      extends: 'dev.usp-protocol.services.availability',
    });
    expect(fresh.spec).toMatch(/^https:\/\/usp-server\.dev\//);
    expect(await staleGauge()).toBe('0');

    feed.status = 503;
    t!.clock.advance(HOUR);
    expect((await poll())[0].outcome).toBe('failed');
    expect((await health()).status).toBe('healthy'); // failing, not yet stale

    t!.clock.advance(1.5 * HOUR);
    expect((await poll())[0].outcome).toBe('failed');
    const h = await health();
    expect(h.status).toBe('degraded');
    expect(h.calendars).toEqual([
      { resource_id: 'res_a', status: 'stale', last_good_read_at: expect.stringMatching(/^2026-10-27T12:00:00/) },
    ]);
    expect(Date.parse(h.calendars[0].last_good_read_at)).toBe(DST_NOW);
    expect(await staleGauge()).toBe('1');
    const sync = await t!.call('GET', '/admin/calendars', undefined, { apiKey: ADMIN_KEY, profile: null });
    expect(sync.body.feeds.find((f: { resource_id: string }) => f.resource_id === 'res_a')).toMatchObject({
      stale: true,
    });

    feed.status = 200;
    await poll();
    expect(await health()).toMatchObject({ status: 'healthy', calendars: [] });
    expect(await staleGauge()).toBe('0');
  });

  it('the default stale age is 24 hours: healthy at 23 hours without a good read, degraded at 25', async () => {
    await start();
    await poll();
    feed.status = 503;
    t!.clock.advance(23 * HOUR);
    await poll();
    expect((await health()).status).toBe('healthy');
    t!.clock.advance(2 * HOUR);
    await poll();
    expect((await health()).status).toBe('degraded');
  });

  it('a feed never read well is stale at once: its busy times are missing altogether', async () => {
    feed.status = 404;
    await start();
    feed.status = 404;
    await poll();
    expect(await health()).toMatchObject({
      status: 'degraded',
      calendars: [{ resource_id: 'res_a', status: 'stale', last_good_read_at: null }],
    });
  });

  it('a business without calendars publishes no health capability', async () => {
    t = await startTestServer();
    expect(await health()).toBeUndefined();
  });

  it('--calendar-stale-hours is read as hours (at least 1)', () => {
    expect(calendarOptions({ 'calendar-stale-hours': '6' } as never)).toEqual({ staleHours: 6 });
    expect(calendarOptions({} as never)).toEqual({});
    expect(() => calendarOptions({ 'calendar-stale-hours': '0' } as never)).toThrow();
  });
});
