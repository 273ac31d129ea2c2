/**
 * The dashboard shows calendar sync: busy time read from a staff calendar in the calendar grid as
 * "busy (from calendar)", a failing feed with its error (its busy times kept), and the secret feed
 * addresses to subscribe to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBusinessUser } from '../../src/operations/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { calendar, calendarBusiness, DST_NOW, startFeedServer, vevent, type FeedServer } from './fixtures.js';

let feed: FeedServer;
let t: TestServer;
let page: (path: string) => Promise<string>;
/** Post a dashboard form (with the page's CSRF token) and follow its redirect; answers the page it lands on. */
let post: (formPage: string, action: string, fields: Record<string, string>) => Promise<string>;

beforeAll(async () => {
  feed = await startFeedServer();
  t = await startTestServer({
    business: calendarBusiness(feed.url, null),
    now: DST_NOW,
    security: { allowLoopbackProfiles: true },
    calendars: { startWorkers: false },
  });
  await addBusinessUser(t.server.store, 'owner@studio.example', 'correct horse battery staple', DST_NOW);
  await signIn();
});

/** Sign in as the owner (again: a session ends when the clock moves a day). */
async function signIn(): Promise<void> {
  let cookie = '';
  const keep = (r: Response) => {
    const set = r.headers.getSetCookie().map((c) => c.split(';')[0]);
    if (set.length)
      cookie = [
        ...new Map([...cookie.split('; ').filter(Boolean), ...set].map((p) => [p.split('=')[0], p])).values(),
      ].join('; ');
    return r;
  };
  const login = await keep(await fetch(`${t.url}/admin/login`)).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(login)![1];
  const signed = keep(
    await fetch(`${t.url}/admin/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        _csrf: csrf,
        email: 'owner@studio.example',
        password: 'correct horse battery staple',
      }),
    }),
  );
  expect(signed.status).toBe(303);
  page = async (path) => (await fetch(`${t.url}${path}`, { headers: { cookie } })).text();
  post = async (formPage, action, fields) => {
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page(formPage))![1];
    const r = keep(
      await fetch(`${t.url}${action}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, ...fields }),
      }),
    );
    expect(r.status).toBe(303);
    return page(r.headers.get('location')!);
  };
}
afterAll(async () => {
  await t.close();
  await feed.close();
});

describe('the dashboard shows calendar sync', () => {
  it('busy time from a staff calendar is in the calendar as "busy (from calendar)"; a failing feed shows its error', async () => {
    feed.body = calendar([vevent({ UID: 'd@test', DTSTART: '20261028T140000Z', DTEND: '20261028T150000Z' })]);
    await t.server.calendars!.poller!.pollAll();
    const day = await page('/admin/ui/calendar?date=2026-10-28&view=day&resource_id=res_a');
    expect(day).toContain('busy (from calendar)');
    expect(await page('/admin/ui/calendar?date=2026-10-29&view=day&resource_id=res_a')).not.toContain(
      'busy (from calendar)',
    );
    feed.status = 503;
    await t.server.calendars!.poller!.pollAll();
    const sync = await page('/admin/ui/calendars');
    expect(sync).toContain('failing: answered HTTP 503');
    expect(sync).toContain('the last busy times read are kept');
    expect(sync).toMatch(/\/calendars\/res_a\.ics\?token=[A-Za-z0-9_-]{32}/);
    expect(sync).toMatch(/\/calendars\/_business\.ics\?token=/);
    expect(await page('/admin/ui/calendar?date=2026-10-28&view=day&resource_id=res_a')).toContain(
      'busy (from calendar)',
    );
  });

  it('the admin API says a feed is stale once its busy times are a day old', async () => {
    t.clock.advance(25 * 3_600_000);
    const r = await t.call('GET', '/admin/calendars', undefined, {
      apiKey: 'test-admin-key-0123456789',
      profile: null,
    });
    expect(r.status).toBe(200);
    expect(r.body.feeds).toEqual([
      expect.objectContaining({ resource_id: 'res_a', type: 'ics', stale: true, error: 'answered HTTP 503' }),
    ]);
  });
});

describe("the dashboard's staff screen sets a resource's calendars", () => {
  const screen = '/admin/ui/staff/res_b/calendars';
  const resB = () => t.server.calendars!.poller.feeds.filter((f) => f.resourceId === 'res_b');
  beforeAll(signIn);

  it('an iCalendar address added from the form is read at the next poll; unticked, it is removed', async () => {
    expect(await page('/admin/ui/staff')).toContain('href="/admin/ui/staff/res_b/calendars"');
    expect(await page(screen)).toContain('None yet.');
    const saved = await post(screen, screen, { type: 'ics', url: feed.url });
    expect(saved).toContain('Saved');
    expect(saved).toContain(`iCalendar ${feed.url}`);
    expect(resB()).toHaveLength(1);
    const kept = await post(screen, screen, {
      keep_0: '1',
      type: 'caldav',
      url: 'https://dav.example.com/cal/bo/',
      username: 'bo',
      password_env: 'USP_CALENDAR_SECRET_BIZ_CAL__BO',
      write: '1',
    });
    expect(kept).toContain(
      'CalDAV https://dav.example.com/cal/bo/ as bo (password in $USP_CALENDAR_SECRET_BIZ_CAL__BO), bookings pushed',
    );
    expect(resB().map((f) => f.type)).toEqual(['ics', 'caldav']);
    const removed = await post(screen, screen, {});
    expect(removed).toContain('None yet.');
    expect(resB()).toEqual([]);
  });

  it('what the business file refuses comes back in the flash, naming the field, and nothing is stored', async () => {
    const refused = await post(screen, screen, {
      type: 'caldav',
      url: 'https://dav.example.com/cal/bo/',
      username: 'bo',
      password_env: 'not a name',
    });
    expect(refused).toMatch(/environment variable starting with USP_CALENDAR_SECRET_/);
    expect(resB()).toEqual([]);
    // Another business's calendar secret (and the name without a business, as before) is not this one's to name.
    for (const name of ['USP_CALENDAR_SECRET_BIZ_OTHER__BO', 'USP_CALENDAR_SECRET_BO']) {
      const theirs = await post(screen, screen, {
        type: 'caldav',
        url: 'https://dav.example.com/cal/bo/',
        username: 'bo',
        password_env: name,
      });
      expect(theirs).toMatch(/environment variable starting with USP_CALENDAR_SECRET_BIZ_CAL__/);
      expect(resB()).toEqual([]);
    }
    expect(await page(screen)).toContain('placeholder="USP_CALENDAR_SECRET_BIZ_CAL__AVA"');
  });
});
