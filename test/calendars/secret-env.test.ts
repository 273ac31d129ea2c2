/**
 * A calendar's password is read only from a variable the operator set aside for this business's
 * calendar secrets (`USP_CALENDAR_SECRET_<BUSINESS>__…`, here `USP_CALENDAR_SECRET_BIZ_CAL__…`):
 * whoever edits the business chooses the calendar's address too, so a definition naming any other
 * variable (STRIPE_SECRET_KEY, the database URL, another business's calendar secret on the same
 * deployment) is refused at every input, and the workers refuse it again before sending anything.
 * A loopback CalDAV stand-in records every Authorization header it is sent.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CalendarPoller, CalendarPushWorker, type CalendarFeed } from '../../src/calendars/index.js';
import { parseBusinessFile } from '../../src/server/business-file.js';
import { ADMIN_KEY, BUYER, startTestServer, type TestServer } from '../support/server.js';
import { calendarBusiness, DST_NOW, ZONE } from './fixtures.js';

const STRIPE_KEY = 'sk_live_operator_secret_do_not_send';
const OTHER_TOKEN = 'token-of-another-business-on-this-deployment';
const ENV = {
  STRIPE_SECRET_KEY: STRIPE_KEY,
  USP_CALENDAR_SECRET_BIZ_CAL__BO: 'bo-app-token',
  USP_CALENDAR_SECRET_BIZ_OTHER__BO: OTHER_TOKEN,
  USP_CALENDAR_SECRET_BO: 'unscoped',
};
/** A calendar secret of business biz_other, hosted beside biz_cal. */
const OTHERS = 'USP_CALENDAR_SECRET_BIZ_OTHER__BO';

let recorder: Server;
let recorderUrl: string;
const seen: Array<{ method?: string; authorization?: string }> = [];
beforeAll(async () => {
  recorder = createServer((req, res) => {
    seen.push({ method: req.method, authorization: req.headers.authorization });
    req.resume();
    res.writeHead(207, { 'content-type': 'application/xml' });
    res.end('<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"/>');
  });
  await new Promise<void>((r) => recorder.listen(0, '127.0.0.1', r));
  recorderUrl = `http://127.0.0.1:${(recorder.address() as { port: number }).port}/cal/bo/`;
});
afterAll(async () => {
  recorder.closeAllConnections();
  await new Promise((r) => recorder.close(r));
});

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  seen.length = 0;
});

const sent = (secret: string) =>
  seen.some(
    (s) =>
      s.authorization &&
      Buffer.from(s.authorization.replace(/^Basic /, ''), 'base64')
        .toString()
        .includes(secret),
  );
const sentStripeKey = () => sent(STRIPE_KEY);

describe("a calendar's password_env names only a calendar secret", () => {
  it('PATCH of a resource naming STRIPE_SECRET_KEY is refused with a clear message, and no poll sends the key', async () => {
    t = await startTestServer({
      business: calendarBusiness('https://calendar.example.com/ann.ics', null),
      now: DST_NOW,
      security: { allowLoopbackProfiles: true },
      calendars: { startWorkers: false, env: ENV },
    });
    const r = await t.call(
      'PATCH',
      '/admin/resources/res_b',
      {
        calendars: [
          { type: 'caldav', url: recorderUrl, username: 'bo', password_env: 'STRIPE_SECRET_KEY', write: true },
        ],
      },
      { apiKey: ADMIN_KEY, profile: null },
    );
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_request');
    expect(JSON.stringify(r.body)).toMatch(
      /calendars\[0\]\.password_env.*must name an environment variable starting with USP_CALENDAR_SECRET_/,
    );
    await t.server.calendars!.poller.pollAll();
    expect(t.server.calendars!.poller.feeds.filter((f) => f.resourceId === 'res_b')).toEqual([]);
    expect(sentStripeKey()).toBe(false);

    // A calendar secret's variable is taken, and sent to the calendar as its password.
    const ok = await t.call(
      'PATCH',
      '/admin/resources/res_b',
      {
        calendars: [
          { type: 'caldav', url: recorderUrl, username: 'bo', password_env: 'USP_CALENDAR_SECRET_BIZ_CAL__BO' },
        ],
      },
      { apiKey: ADMIN_KEY, profile: null },
    );
    expect(ok.status).toBe(200);
    await t.server.calendars!.poller.pollAll();
    expect(seen.some((s) => s.authorization === `Basic ${Buffer.from('bo:bo-app-token').toString('base64')}`)).toBe(
      true,
    );
    expect(sentStripeKey()).toBe(false);
  });

  it('a business file naming another variable is refused, naming the field', () => {
    const def = calendarBusiness('https://calendar.example.com/ann.ics', 'https://dav.example.com/cal/bo/');
    const raw = JSON.parse(JSON.stringify(def));
    raw.resources[1].calendars[0].password_env = 'DATABASE_URL';
    expect(() => parseBusinessFile(raw, 'business.json')).toThrow(
      /resources\[1\]\.calendars\[0\]\.password_env.*USP_CALENDAR_SECRET_/,
    );
  });

  it('the poller and the push worker refuse such a calendar at use too: nothing is read from the variable, nothing sent', async () => {
    t = await startTestServer({
      business: calendarBusiness('https://calendar.example.com/ann.ics', null),
      now: DST_NOW,
      calendars: { startWorkers: false },
    });
    const feed: CalendarFeed = {
      key: 'k1',
      resourceId: 'res_b',
      type: 'caldav',
      url: recorderUrl,
      username: 'bo',
      passwordEnv: 'STRIPE_SECRET_KEY',
      write: true,
    };
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const poller = new CalendarPoller({
      store: t.server.store,
      feeds: [feed],
      zone: ZONE,
      businessId: 'biz_cal',
      now: () => DST_NOW,
      log,
      env: ENV,
      limits: { allowLoopback: true },
    });
    const [result] = await poller.pollAll();
    expect(result.outcome).toBe('failed');
    expect(result.error).toMatch(/STRIPE_SECRET_KEY is not a calendar secret/);
    const pusher = new CalendarPushWorker({
      store: t.server.store,
      calendars: [feed],
      now: () => DST_NOW,
      log,
      env: ENV,
      businessId: 'biz_cal',
      limits: { allowLoopback: true },
      eventText: () => ({ summary: 'x' }),
    });
    await pusher.prepare();
    const slots = (
      await t.call('POST', '/availability/query', {
        service_id: 'svc_b',
        start_date: '2026-10-28',
        end_date: '2026-10-28',
      })
    ).body.slots;
    expect(
      (await t.call('POST', '/bookings', { service_id: 'svc_b', slot_id: slots[0].id, buyer: BUYER })).status,
    ).toBe(201);
    expect(await pusher.tick()).toBe(0);
    const [job] = await t.server.store.read((tx) => tx.calendars.pushBacklog(10));
    expect(job.last_error).toMatch(/STRIPE_SECRET_KEY is not a calendar secret/);
    expect(seen).toEqual([]);
    expect(sentStripeKey()).toBe(false);
  });

  it("another business's calendar secret (USP_CALENDAR_SECRET_BIZ_OTHER__…), or a name without a business, is refused by the file's check and the admin API, naming this business's prefix", async () => {
    for (const name of [OTHERS, 'USP_CALENDAR_SECRET_BO']) {
      const raw = JSON.parse(
        JSON.stringify(calendarBusiness('https://calendar.example.com/ann.ics', 'https://dav.example.com/cal/bo/')),
      );
      raw.resources[1].calendars[0].password_env = name;
      expect(() => parseBusinessFile(raw, 'business.json')).toThrow(
        /resources\[1\]\.calendars\[0\]\.password_env.*starting with USP_CALENDAR_SECRET_BIZ_CAL__/,
      );
    }
    t = await startTestServer({
      business: calendarBusiness('https://calendar.example.com/ann.ics', null),
      now: DST_NOW,
      security: { allowLoopbackProfiles: true },
      calendars: { startWorkers: false, env: ENV },
    });
    for (const name of [OTHERS, 'USP_CALENDAR_SECRET_BO']) {
      const r = await t.call(
        'PATCH',
        '/admin/resources/res_b',
        { calendars: [{ type: 'caldav', url: recorderUrl, username: 'bo', password_env: name, write: true }] },
        { apiKey: ADMIN_KEY, profile: null },
      );
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body)).toMatch(
        /calendars\[0\]\.password_env.*must name an environment variable starting with USP_CALENDAR_SECRET_BIZ_CAL__/,
      );
    }
    await t.server.calendars!.poller.pollAll();
    expect(t.server.calendars!.poller.feeds.filter((f) => f.resourceId === 'res_b')).toEqual([]);
    expect(seen).toEqual([]);
  });

  it("the poller and the push worker of one business refuse another business's calendar secret at use: nothing read, nothing sent", async () => {
    t = await startTestServer({
      business: calendarBusiness('https://calendar.example.com/ann.ics', null),
      now: DST_NOW,
      calendars: { startWorkers: false },
    });
    const feed: CalendarFeed = {
      key: 'k2',
      resourceId: 'res_b',
      type: 'caldav',
      url: recorderUrl,
      username: 'bo',
      passwordEnv: OTHERS,
      write: true,
    };
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const poller = new CalendarPoller({
      store: t.server.store,
      feeds: [feed],
      zone: ZONE,
      businessId: 'biz_cal',
      now: () => DST_NOW,
      log,
      env: ENV,
      limits: { allowLoopback: true },
    });
    const [result] = await poller.pollAll();
    expect(result.outcome).toBe('failed');
    expect(result.error).toMatch(/USP_CALENDAR_SECRET_BIZ_OTHER__BO is not a calendar secret of this business/);
    const pusher = new CalendarPushWorker({
      store: t.server.store,
      calendars: [feed],
      now: () => DST_NOW,
      log,
      env: ENV,
      businessId: 'biz_cal',
      limits: { allowLoopback: true },
      eventText: () => ({ summary: 'x' }),
    });
    await pusher.prepare();
    const slots = (
      await t.call('POST', '/availability/query', {
        service_id: 'svc_b',
        start_date: '2026-10-28',
        end_date: '2026-10-28',
      })
    ).body.slots;
    expect(
      (await t.call('POST', '/bookings', { service_id: 'svc_b', slot_id: slots[0].id, buyer: BUYER })).status,
    ).toBe(201);
    expect(await pusher.tick()).toBe(0);
    const [job] = await t.server.store.read((tx) => tx.calendars.pushBacklog(10));
    expect(job.last_error).toMatch(/is not a calendar secret of this business/);
    expect(seen).toEqual([]);
    expect(sent(OTHER_TOKEN)).toBe(false);
    // The business's own secret is taken by the same worker.
    const own = new CalendarPoller({
      store: t.server.store,
      feeds: [{ ...feed, key: 'k3', passwordEnv: 'USP_CALENDAR_SECRET_BIZ_CAL__BO' }],
      zone: ZONE,
      businessId: 'biz_cal',
      now: () => DST_NOW,
      log,
      env: ENV,
      limits: { allowLoopback: true },
    });
    await own.pollAll();
    expect(seen.map((s) => s.authorization)).toContain(`Basic ${Buffer.from('bo:bo-app-token').toString('base64')}`);
  });
});
