/**
 * The calendar poller reads the business's time zone before every pass, not once at start: after an
 * admin edit of the zone, a floating-time event (no TZID, no Z: "12:00 wherever the calendar is
 * read") is busy at noon in the new zone from the next pass on, with no restart, even though the feed
 * itself answers 304 (unchanged) to the poller's validators.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/server.js';
import { calendar, calendarBusiness, DST_NOW, startFeedServer, vevent, type FeedServer } from './fixtures.js';

const LA = 'America/Los_Angeles';
const DATE = '2026-11-03';

let t: TestServer | undefined;
let feed: FeedServer | undefined;
afterEach(async () => {
  await t?.close();
  await feed?.close();
  t = undefined;
  feed = undefined;
});

/** Local HH:MM (in `zone`) of svc_a's free slot starts on DATE, through REST. */
async function freeStarts(zone: string): Promise<string[]> {
  const r = await t!.call(
    'POST',
    '/availability/query',
    { service_id: 'svc_a', start_date: DATE, end_date: DATE, limit: 500 },
    { profile: null },
  );
  expect(r.status).toBe(200);
  return r.body.slots.map((s: { start: string }) =>
    new Date(s.start).toLocaleTimeString('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit' }),
  );
}

describe("the calendar poller follows the business's time zone", () => {
  it('after PATCH /admin/business moves the zone, the next pass places a floating lunch at noon in the new zone (no restart)', async () => {
    feed = await startFeedServer();
    feed.body = calendar([
      vevent({ UID: 'lunch@test', DTSTART: '20261103T120000', DTEND: '20261103T130000', SUMMARY: 'Lunch (floating)' }),
    ]);
    t = await startTestServer({
      business: calendarBusiness(feed.url, null),
      now: DST_NOW,
      security: { allowLoopbackProfiles: true },
      calendars: { startWorkers: false },
    });
    const poller = t.server.calendars!.poller;
    expect((await poller.pollAll()).map((r) => r.outcome)).toEqual(['updated']);
    const ny = await freeStarts('America/New_York');
    expect(ny).not.toContain('12:00');
    expect(ny).toContain('09:00');

    const moved = await t.call('PATCH', '/admin/business', { timezone: LA }, { apiKey: ADMIN_KEY, profile: null });
    expect(moved.status).toBe(200);
    const [again] = await poller.pollAll();
    expect(again.outcome).toBe('updated');
    const la = await freeStarts(LA);
    expect(la).not.toContain('12:00');
    // 09:00 in Los Angeles is noon in New York: the lunch no longer sits there.
    expect(la).toContain('09:00');
    expect(la).toContain('13:00');
    // An unchanged feed in an unchanged zone is still read conditionally (its validators sent, 304).
    expect((await poller.pollAll()).map((r) => r.outcome)).toEqual(['unchanged']);
    expect(feed.requests.at(-1)?.ifNoneMatch).toMatch(/^"/);
  });
});
