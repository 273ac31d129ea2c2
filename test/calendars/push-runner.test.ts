/**
 * The calendar push worker runs on the shared leased runner (src/outbox/runner.ts): pushes of
 * different bookings go side by side within the runner's bounded concurrency, so one booking whose
 * PUT hangs on a slow CalDAV server does not hold up the others (before, the worker pushed one
 * booking after another in a loop of its own). Radicale is the calendar; a loopback proxy in front
 * of it holds the first PUT until the test lets it go.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUYER, startTestServer, type TestServer } from '../support/server.js';
import { radicaleInstalled, startRadicale, type Radicale } from '../support/radicale.js';
import { waitFor } from '../support/time.js';
import { CALDAV_SECRET_ENV, calendarBusiness, DST_NOW, startFeedServer, type FeedServer } from './fixtures.js';

const hasRadicale = radicaleInstalled();
let radicale: Radicale;
let feed: FeedServer;
let t: TestServer | undefined;
let proxy: HoldingProxy | undefined;

beforeAll(async () => {
  feed = await startFeedServer();
  if (hasRadicale) radicale = await startRadicale();
});
afterAll(async () => {
  await feed?.close();
  await radicale?.stop();
});
afterEach(async () => {
  proxy?.release();
  await t?.close();
  await proxy?.close();
  t = undefined;
  proxy = undefined;
});

interface HoldingProxy {
  origin: string;
  /** The paths PUT so far, in arrival order. */
  puts: string[];
  /** Let the held PUT through. */
  release(): void;
  close(): Promise<void>;
}

/** A loopback proxy to `target` that holds the first PUT it sees until `release()`. */
async function holdingProxy(target: string): Promise<HoldingProxy> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const puts: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method === 'PUT') {
      puts.push(req.url ?? '');
      if (puts.length === 1) await gate;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const r = await fetch(`${target}${req.url}`, { method: req.method, headers, body });
    const out = Buffer.from(await r.arrayBuffer());
    res.writeHead(r.status, {
      'content-type': r.headers.get('content-type') ?? 'text/plain',
      ...(r.headers.get('etag') ? { etag: r.headers.get('etag')! } : {}),
    });
    res.end(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    puts,
    release,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe.skipIf(!hasRadicale)('calendar pushes on the shared leased runner', () => {
  it("a booking whose PUT hangs does not hold up another booking's push", async () => {
    const caldav = await radicale.makeCalendar('held');
    proxy = await holdingProxy(radicale.origin);
    t = await startTestServer({
      business: calendarBusiness(feed.url, caldav.replace(radicale.origin, proxy.origin)),
      now: DST_NOW,
      security: { allowLoopbackProfiles: true },
      calendars: { startWorkers: false, env: { [CALDAV_SECRET_ENV]: radicale.password } },
    });
    const slots = (
      await t.call('POST', '/availability/query', {
        service_id: 'svc_b',
        start_date: '2026-10-29',
        end_date: '2026-10-29',
      })
    ).body.slots;
    for (const slot of slots.slice(0, 2))
      expect((await t.call('POST', '/bookings', { service_id: 'svc_b', slot_id: slot.id, buyer: BUYER })).status).toBe(
        201,
      );

    const pass = t.server.calendars!.pusher.tick();
    const p = proxy;
    await waitFor(() => p.puts.length >= 1, 5000, "the first booking's PUT reached the calendar server");
    // While that PUT hangs, the other booking's event lands in Radicale.
    await waitFor(
      async () => (await radicale.objects(caldav)).length === 1,
      5000,
      "the second booking's push while the first one's PUT hangs",
    );
    p.release();
    expect(await pass).toBe(2);
    expect(await radicale.objects(caldav)).toHaveLength(2);
    expect(await t.server.store.read((tx) => tx.calendars.pushBacklog(10))).toEqual([]);
  });
});
