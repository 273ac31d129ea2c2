/**
 * The availability cache on PostgreSQL, where several processes share the database: an answer a
 * process has cached must not survive a change another process commits. Two store instances in
 * this process (one cached, one not, on one schema, with clocks the test moves) compare answers
 * after each kind of change; then a real `usp-server serve` process keeps answering right while
 * another process books, cancels and closes a stylist's day, and its /metrics show it did answer
 * from the cache in between. Skipped, with the reason in the title, when no PostgreSQL URL is set.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { startServeCli, type RunningCli } from '../support/cli.js';
import { ADMIN_KEY, BUYER, PLATFORM, day, startTestServer, type TestServer } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';
import { PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from './helpers.js';

const title = (what: string) => (PG_URL ? what : noteSkipped(what));
const haircut = (date: string) => ({ service_id: 'svc_haircut', start_date: date, end_date: date, limit: 500 });
const ids = (body: any): string[] => body.slots.map((s: any) => s.id);

describe.skipIf(!PG_URL)(
  title('two store instances on one PostgreSQL schema: the cached one answers as the uncached one'),
  () => {
    const schema = schemaName('usp_avail_cache');
    let cached: TestServer;
    let fresh: TestServer;

    beforeAll(async () => {
      cached = await startTestServer({ db: urlWithSchema(schema) });
      fresh = await startTestServer({ db: urlWithSchema(schema), availabilityCacheBytes: 0 });
    });
    afterAll(async () => {
      await cached?.close();
      await fresh?.close();
      await dropSchema(schema);
    });
    afterEach(() => setNow(TEST_NOW));

    function setNow(ms: number): void {
      cached.clock.set(ms);
      fresh.clock.set(ms);
    }

    async function answer(body: Record<string, unknown>): Promise<any> {
      const a = await cached.call('POST', '/availability/query', body, { profile: null });
      const b = await fresh.call('POST', '/availability/query', body, { profile: null });
      expect(a.status).toBe(200);
      expect(a.body.slots).toEqual(b.body.slots);
      expect(a.body.pagination).toEqual(b.body.pagination);
      return a.body;
    }

    test('a booking by the other instance removes its slot from the cached answer; its cancellation frees it', async () => {
      const before = await answer(haircut(day(3)));
      const hits = cached.server.availabilityCache!.stats().hits;
      await answer(haircut(day(3)));
      expect(cached.server.availabilityCache!.stats().hits).toBe(hits + 1);
      const slot = before.slots[0];
      const booked = await fresh.call('POST', '/bookings', {
        service_id: 'svc_haircut',
        slot_id: slot.id,
        buyer: BUYER,
      });
      expect(booked.status).toBe(201);
      expect(ids(await answer(haircut(day(3))))).not.toContain(slot.id);
      expect(
        (await fresh.call('POST', `/bookings/${booked.body.booking.id}/cancel`, {}, { profile: PLATFORM })).status,
      ).toBe(200);
      expect(ids(await answer(haircut(day(3))))).toContain(slot.id);
    });

    test('a hold by the other instance shows at once and its slot returns when the clock passes its expiry', async () => {
      const before = await answer(haircut(day(4)));
      const slot = before.slots[1];
      const held = await fresh.call(
        'POST',
        '/availability/holds',
        { service_id: 'svc_haircut', slot_id: slot.id },
        { profile: 'https://pg-hold.example/profile.json' },
      );
      expect(held.status).toBe(201);
      expect(ids(await answer(haircut(day(4))))).not.toContain(slot.id);
      setNow(Date.parse(held.body.hold.expires_at));
      expect(ids(await answer(haircut(day(4))))).toContain(slot.id);
    });

    test('a schedule exception added by the other instance through the admin API closes the day in the cached answer', async () => {
      const before = await answer(haircut(day(5)));
      expect(before.slots.some((s: any) => s.resources[0].id === 'res_stylist_carla')).toBe(true);
      const added = await fresh.call(
        'POST',
        '/admin/schedule-exceptions',
        { resource_id: 'res_stylist_carla', date: day(5), hours: [] },
        { apiKey: ADMIN_KEY },
      );
      expect(added.status).toBe(201);
      const after = await answer(haircut(day(5)));
      expect(after.slots.some((s: any) => s.resources[0].id === 'res_stylist_carla')).toBe(false);
    });

    test('the clock crossing the minimum notice narrows the cached answer exactly', async () => {
      for (let m = 0; m <= 90; m += 5) {
        setNow(TEST_NOW + m * 60_000);
        await answer(haircut(day(0)));
      }
    });
  },
);

/** A real `serve --demo` process on the database, as an operator starts it. */
const startServer = (db: string, extra: string[] = []) =>
  startServeCli(['--demo', '--db', db, '--port', '0', '--no-rate-limit', '--admin-key', ADMIN_KEY, ...extra], {
    timeoutMs: 20_000,
  });

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const h: Record<string, string> = { 'USP-Agent': `profile="${PLATFORM}"`, ...headers };
  if (body !== undefined) h['Content-Type'] = 'application/json';
  const res = await fetch(base + path, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

async function cacheHits(base: string): Promise<number> {
  const text = (await call(base, 'GET', '/metrics')).body as string;
  return Number(/^usp_availability_cache_hits_total (\d+)/m.exec(text)?.[1] ?? NaN);
}

/** Tomorrow (or later) in New York by the system clock: the spawned servers run on real time. */
function localDay(n: number): string {
  return new Date(Date.now() + n * 86_400_000).toLocaleDateString('en-CA', { timeZone: 'America/New_York' });
}

describe.skipIf(!PG_URL)(
  title('server processes on one PostgreSQL schema: a cached answer never outlives another process’s change'),
  () => {
    const schema = schemaName('usp_avail_procs');
    let reader: RunningCli;
    let writer: RunningCli;

    beforeAll(async () => {
      await ensureBuilt();
      const db = urlWithSchema(schema);
      reader = await startServer(db);
      writer = await startServer(db, ['--no-availability-cache']);
    }, 60_000);
    afterAll(async () => {
      for (const p of [reader, writer]) p?.child.kill('SIGKILL');
      await dropSchema(schema);
    });

    test('between two cached answers, another process books, cancels and closes a day: each next answer shows it', async () => {
      const date = localDay(3);
      const q = () => call(reader.url, 'POST', '/availability/query', haircut(date));
      const first = await q();
      expect(first.status).toBe(200);
      const h0 = await cacheHits(reader.url);
      expect(ids((await q()).body)).toEqual(ids(first.body));
      expect(await cacheHits(reader.url)).toBe(h0 + 1);

      const slot = first.body.slots[0];
      const booked = await call(writer.url, 'POST', '/bookings', {
        service_id: 'svc_haircut',
        slot_id: slot.id,
        buyer: BUYER,
      });
      expect(booked.status).toBe(201);
      expect(ids((await q()).body)).not.toContain(slot.id);

      expect((await call(writer.url, 'POST', `/bookings/${booked.body.booking.id}/cancel`, {})).status).toBe(200);
      expect(ids((await q()).body)).toContain(slot.id);

      const closed = await call(
        writer.url,
        'POST',
        '/admin/schedule-exceptions',
        { resource_id: 'res_stylist_ava', date, hours: [] },
        { Authorization: `Bearer ${ADMIN_KEY}` },
      );
      expect(closed.status).toBe(201);
      const after = (await q()).body;
      expect(after.slots.some((s: any) => s.resources[0].id === 'res_stylist_ava')).toBe(false);
      // The writer (no cache) agrees.
      expect(ids((await call(writer.url, 'POST', '/availability/query', haircut(date))).body)).toEqual(ids(after));
    }, 60_000);
  },
);
