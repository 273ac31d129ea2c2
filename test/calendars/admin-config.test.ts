/**
 * A resource's calendars are set through the catalog's admin operation (`PATCH
 * /admin/resources/{id}`, the business file's `calendars`, with its checks): the poller reads them
 * from the live business at its next pass, in this process and in another on the same database, its
 * busy times take slots away on both doors, and removing the calendar gives them back. Secrets are
 * named by environment variable only, addresses pass the outbound rule, and export writes them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpConn } from '../mcp/helpers.js';
import { ensureBuilt } from '../support/build.js';
import { ADMIN_KEY, BUYER, startTestServer, type TestServer } from '../support/server.js';
import { PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from '../pg/helpers.js';
import { calendar, calendarBusiness, DST_NOW, startFeedServer, vevent, ZONE, type FeedServer } from './fixtures.js';

let feed: FeedServer;
const open: Array<TestServer | McpConn> = [];
beforeAll(async () => {
  feed = await startFeedServer();
  feed.body = calendar([
    vevent({ UID: 'dentist@test', DTSTART: '20261028T140000Z', DTEND: '20261028T150000Z', SUMMARY: 'Dentist' }),
  ]);
});
afterAll(async () => feed.close());
afterEach(async () => {
  for (const s of open.splice(0).reverse()) await s.close();
});

/** res_a reads an https calendar never polled here; res_b has none until the test adds one. */
const business = () => calendarBusiness('https://calendar.example.com/ann.ics', null);

async function start(o: { db?: string; loopback?: boolean } = {}): Promise<TestServer> {
  const t = await startTestServer({
    business: business(),
    now: DST_NOW,
    db: o.db,
    security: { allowLoopbackProfiles: o.loopback ?? true },
    calendars: { startWorkers: false },
  });
  open.push(t);
  return t;
}

const patch = (t: TestServer, body: Record<string, unknown>) =>
  t.call('PATCH', '/admin/resources/res_b', body, { apiKey: ADMIN_KEY, profile: null });
const local = (rfc3339: string) =>
  new Date(rfc3339).toLocaleTimeString('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit' });

async function restStarts(t: TestServer): Promise<string[]> {
  const r = await t.call(
    'POST',
    '/availability/query',
    { service_id: 'svc_b', start_date: '2026-10-28', end_date: '2026-10-28', limit: 500 },
    { profile: null },
  );
  expect(r.status).toBe(200);
  return r.body.slots.map((s: { start: string }) => local(s.start));
}

async function mcpStarts(t: TestServer): Promise<string[]> {
  const mcp = await connectMcp('v2', 'memory', t);
  open.push(mcp);
  const r = await mcp.call('usp_availability_query', {
    service_id: 'svc_b',
    start_date: '2026-10-28',
    end_date: '2026-10-28',
    limit: 500,
  });
  expect(r.isError ?? false).toBe(false);
  return r.structuredContent.slots.map((s: { start: string }) => local(s.start));
}

/** One pass of the poller, for res_b's feed only (res_a's https calendar is not contacted in tests). */
async function pollResB(t: TestServer) {
  const poller = t.server.calendars!.poller;
  await poller.pollAll().catch(() => undefined);
  return poller.feeds.filter((f) => f.resourceId === 'res_b');
}

describe("a resource's calendars through PATCH /admin/resources/{id}", () => {
  it('an ICS calendar added by PATCH takes its busy hour away on both doors after one poll; removed, the hour comes back', async () => {
    const t = await start();
    expect(await restStarts(t)).toContain('10:00');
    const added = await patch(t, { calendars: [{ type: 'ics', url: feed.url }] });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.resource.calendars).toEqual([{ type: 'ics', url: feed.url }]);
    expect(await restStarts(t)).toContain('10:00'); // not before a poll
    expect(await pollResB(t)).toHaveLength(1);
    const rest = await restStarts(t);
    expect(rest).not.toContain('10:00');
    expect(rest).toContain('11:00');
    expect(await mcpStarts(t)).toEqual(rest);

    const removed = await patch(t, { calendars: null });
    expect(removed.status).toBe(200);
    expect(removed.body.resource.calendars).toBeUndefined();
    expect(await pollResB(t)).toHaveLength(0);
    expect(await restStarts(t)).toContain('10:00');
    expect(await mcpStarts(t)).toContain('10:00');
    expect(
      await t.server.store.read((tx) => tx.calendars.busyOn(['res_b'], DST_NOW, DST_NOW + 7 * 86_400_000)),
    ).toEqual([]);
  });

  it('a password in clear, a variable that is not a name, or credentials in the URL are refused, naming the field', async () => {
    const t = await start();
    const clear = await patch(t, {
      calendars: [{ type: 'caldav', url: 'https://dav.example.com/cal/', username: 'bo', password: 'hunter2' }],
    });
    expect(clear.status).toBe(400);
    expect(JSON.stringify(clear.body)).toMatch(/calendars\[0\]/);
    expect(JSON.stringify(clear.body)).not.toContain('hunter2');
    const notName = await patch(t, {
      calendars: [{ type: 'caldav', url: 'https://dav.example.com/cal/', username: 'bo', password_env: 'not a name' }],
    });
    expect(notName.status).toBe(400);
    expect(JSON.stringify(notName.body)).toMatch(/environment variable starting with USP_CALENDAR_SECRET_/);
    const inUrl = await patch(t, { calendars: [{ type: 'ics', url: 'https://bo:secret@dav.example.com/cal.ics' }] });
    expect(inUrl.status).toBe(400);
    expect(JSON.stringify(inUrl.body)).toMatch(/must not carry credentials/);
    // Nothing was stored.
    expect(t.server.calendars!.poller.feeds.filter((f) => f.resourceId === 'res_b')).toEqual([]);
  });

  it('a loopback http address is refused without --allow-loopback-profiles, as at start', async () => {
    const t = await start({ loopback: false });
    const r = await patch(t, { calendars: [{ type: 'ics', url: feed.url }] });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toMatch(/calendars\[0\]\.url/);
    expect(JSON.stringify(r.body)).toMatch(/https/);
  });

  it('a booking made right after a writable CalDAV calendar is added by PATCH is queued for it, before any worker pass', async () => {
    const t = await start();
    expect(
      (
        await patch(t, {
          calendars: [
            {
              type: 'caldav',
              url: 'https://dav.example.com/cal/bo/',
              username: 'bo',
              password_env: 'USP_CALENDAR_SECRET_BIZ_CAL__BO',
              write: true,
            },
          ],
        })
      ).status,
    ).toBe(200);
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
    expect(await t.server.store.read((tx) => tx.calendars.pushBacklog(10))).toHaveLength(1);
  });

  it('export writes the calendars set by PATCH (the variable name, never a secret)', async () => {
    ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'usp-cal-export-'));
    try {
      const db = join(dir, 'biz.db');
      const t = await start({ db });
      const cal = {
        type: 'caldav',
        url: 'https://dav.example.com/cal/bo/',
        username: 'bo',
        password_env: 'USP_CALENDAR_SECRET_BIZ_CAL__BO_CALDAV',
        write: true,
      };
      expect((await patch(t, { calendars: [cal] })).status).toBe(200);
      await open.pop()!.close();
      const out = JSON.parse(
        execFileSync(process.execPath, ['bin/usp-server.js', 'export', '--db', db], { encoding: 'utf8' }),
      );
      expect(out.resources.find((r: { id: string }) => r.id === 'res_b').calendars).toEqual([cal]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

if (!PG_URL) {
  describe.skip(noteSkipped('calendars edited in one process, polled in another'), () => {
    it('another process polls a calendar added through the first', () => {});
  });
} else {
  describe('two processes on one PostgreSQL database', () => {
    const schema = schemaName('usp_cal');
    afterAll(async () => dropSchema(schema));

    it('a calendar added through one process is polled by the other at its next pass, and its busy hour is gone from both', async () => {
      const db = urlWithSchema(schema);
      const a = await start({ db });
      const b = await start({ db });
      expect((await patch(a, { calendars: [{ type: 'ics', url: feed.url }] })).status).toBe(200);
      expect(await pollResB(b)).toHaveLength(1);
      expect(await restStarts(b)).not.toContain('10:00');
      expect(await restStarts(a)).not.toContain('10:00');
      expect(await mcpStarts(b)).not.toContain('10:00');
      expect((await patch(b, { calendars: null })).status).toBe(200);
      expect(await pollResB(a)).toHaveLength(0);
      expect(await restStarts(a)).toContain('10:00');
      expect(await restStarts(b)).toContain('10:00');
    });
  });
}
