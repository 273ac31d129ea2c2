/**
 * Several stateless server processes on one PostgreSQL database (ARCHITECTURE "Storage and scale"):
 * three real `usp-server serve --demo` processes share one schema, and bookings race across them.
 * The database, not any one process, must keep a slot from being sold twice, make an idempotency
 * key execute once, and keep every answered booking and every outbox event through a crash.
 * Skipped, with the reason in the title, when no PostgreSQL URL is configured.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type pg from 'pg';
import { BIN, REPO_ROOT, ensureBuilt } from '../support/build.js';
import { nyDate } from '../mcp/helpers.js';
import { PG_URL, adminClient, dropSchema, noteSkipped, schemaName, urlWithSchema } from './helpers.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.js';

interface Proc {
  url: string;
  child: ChildProcess;
  log(): string;
}

type Res = { status: number; body: any };

const BUYER = (i: number) => ({ first_name: `Buyer${i}`, last_name: 'Racer', email: `buyer${i}@example.com` });
const profileOf = (tag: string, i: number) => `https://platform-${i}.example/profiles/${tag}.json`;

function startServer(db: string): Promise<Proc> {
  // The 300 concurrent buyers all come from this one loopback address: lift the per-address socket share.
  const child = spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--demo',
      '--db',
      db,
      '--port',
      '0',
      '--no-rate-limit',
      '--db-statement-timeout',
      '30000',
      '--max-connections-per-address',
      '1000',
    ],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 20 s:\n${log}`)), 20_000);
    child.stderr!.on('data', (d: Buffer) => {
      log = (log + d.toString()).slice(-20_000);
      const m = /is open at (http:\/\/[^\s]+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], child, log: () => log });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${log}`));
    });
  });
}

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Res> {
  const h: Record<string, string> = { ...headers };
  if (body !== undefined) h['Content-Type'] = 'application/json';
  const res = await fetch(base + path, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* keep text */
  }
  return { status: res.status, body: parsed };
}

const agent = (profile: string) => ({ 'USP-Agent': `profile="${profile}"` });

function tally(results: Array<Res | { status: 'network-error' }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results) {
    const key =
      r.status === 'network-error'
        ? 'network-error'
        : r.status === 201
          ? '201'
          : `${r.status}:${(r as Res).body?.messages?.[0]?.code ?? (r as Res).body?.code ?? '?'}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

if (!PG_URL) {
  describe.skip(noteSkipped('three server processes on one PostgreSQL'), () => {
    test('share one database without double booking', () => {});
  });
} else {
  describe('three server processes on one PostgreSQL database never sell a slot twice and lose nothing', () => {
    const schema = schemaName('usp_mp');
    const db = urlWithSchema(schema);
    let procs: Proc[] = [];
    let admin: pg.Client;
    const date = nyDate(Date.now(), 2);
    const metrics: Record<string, unknown> = {};

    beforeAll(async () => {
      ensureBuilt();
      // Started together on an empty schema: migrations race, and exactly one applies them.
      const t0 = Date.now();
      procs = await Promise.all([startServer(db), startServer(db), startServer(db)]);
      metrics.startAllMs = Date.now() - t0;
      admin = await adminClient(schema);
    }, 60_000);

    afterAll(async () => {
      for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
      await Promise.all(
        procs.map((p) =>
          p.child.exitCode === null && p.child.signalCode === null ? new Promise((r) => p.child.once('exit', r)) : null,
        ),
      );
      await admin?.end();
      await dropSchema(schema);
      console.info(`[pg multi-process] ${JSON.stringify(metrics)}`);
    }, 30_000);

    async function slots(
      serviceId: string,
      day: string,
    ): Promise<Array<{ id: string; start: string; resources?: Array<{ id: string }> }>> {
      const r = await call(procs[0].url, 'POST', '/availability/query', {
        service_id: serviceId,
        start_date: day,
        end_date: day,
        limit: 500,
      });
      expect(r.status).toBe(200);
      return r.body.slots;
    }

    const bookingsOnSlot = async (slotId: string) =>
      (
        await admin.query(`SELECT count(*)::int AS n FROM bookings WHERE (data::json #>> '{booking,slot,id}') = $1`, [
          slotId,
        ])
      ).rows[0].n as number;

    test('the three processes share one schema, migrated once', async () => {
      const v = await admin.query('SELECT version FROM schema_migrations ORDER BY version');
      expect(v.rows.map((r) => r.version)).toEqual(Array.from({ length: POSTGRES_MIGRATIONS.length }, (_, i) => i + 1));
      // The catalog was published once, not once per process.
      const created = await admin.query(`SELECT count(*)::int AS n FROM outbox WHERE event = 'service.created'`);
      const services = await admin.query('SELECT count(*)::int AS n FROM catalog');
      expect(created.rows[0].n).toBe(services.rows[0].n);
    });

    test('300 concurrent bookings of one appointment slot across the processes: exactly one booking', async () => {
      const [slot] = await slots('svc_haircut', date);
      const t0 = Date.now();
      const results = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          call(
            procs[i % 3].url,
            'POST',
            '/bookings',
            { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER(i) },
            agent(profileOf('appt', i)),
          ),
        ),
      );
      metrics.appointment300Ms = Date.now() - t0;
      const t = tally(results);
      metrics.appointment300 = t;
      expect(t['201']).toBe(1);
      expect(t['200:slot_unavailable']).toBe(299);
      expect(await bookingsOnSlot(slot.id)).toBe(1);
      // Every process now reports the slot as taken.
      for (const p of procs) {
        const r = await call(p.url, 'POST', '/availability/query', {
          service_id: 'svc_haircut',
          start_date: date,
          end_date: date,
          limit: 500,
        });
        expect(r.body.slots.find((s: { id: string }) => s.id === slot.id)).toBeUndefined();
      }
    }, 40_000);

    test('300 concurrent bookings of one group-class slot of capacity 12: exactly 12 spots sold', async () => {
      const all = await slots('svc_yoga_class', date);
      const slot = all.find((s: any) => s.capacity?.remaining === 12)!;
      expect(slot).toBeDefined();
      const t0 = Date.now();
      const results = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          call(
            procs[i % 3].url,
            'POST',
            '/bookings',
            { service_id: 'svc_yoga_class', slot_id: slot.id, buyer: BUYER(i) },
            agent(profileOf('yoga', i)),
          ),
        ),
      );
      metrics.group300Ms = Date.now() - t0;
      const t = tally(results);
      metrics.group300 = t;
      expect(t['201']).toBe(12);
      expect(Object.keys(t).filter((k) => k.startsWith('5'))).toEqual([]);
      expect(await bookingsOnSlot(slot.id)).toBe(12);
      const after = (await slots('svc_yoga_class', date)).find((s: any) => s.id === slot.id) as any;
      expect(after === undefined || after.capacity.remaining === 0).toBe(true);
    }, 40_000);

    test('one Idempotency-Key sent to two processes at once books once and both answers name that booking', async () => {
      // Ten slots that cannot overlap (per stylist, starts two hours apart), however short the
      // weekday's hours are: a Sunday has fewer, so later days fill in (4 to 9 are the next test's).
      const free: Array<{ id: string }> = [];
      for (const d of [3, 10, 11, 12]) {
        const last = new Map<string, number>();
        for (const s of await slots('svc_haircut', nyDate(Date.now(), d))) {
          const res = s.resources?.[0]?.id ?? '';
          const start = Date.parse(s.start);
          if (free.length === 10 || start - (last.get(res) ?? -Infinity) < 2 * 3600_000) continue;
          last.set(res, start);
          free.push(s);
        }
      }
      expect(free.length).toBe(10);
      const pairs = await Promise.all(
        free.map((slot, i) => {
          const headers = { ...agent(profileOf('idem', i)), 'Idempotency-Key': `idem-${schema}-${i}` };
          const body = { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER(i) };
          return Promise.all([
            call(procs[i % 3].url, 'POST', '/bookings', body, headers),
            call(procs[(i + 1) % 3].url, 'POST', '/bookings', body, headers),
          ]);
        }),
      );
      for (const [i, [a, b]] of pairs.entries()) {
        expect([a.status, b.status]).toEqual([201, 201]);
        expect(a.body.booking.id).toBe(b.body.booking.id);
        expect(await bookingsOnSlot(free[i].id)).toBe(1);
      }
      metrics.idempotentPairs = pairs.length;
    }, 30_000);

    test('a process killed (SIGKILL) in a burst loses no answered booking, and the survivors dispatch every due event', async () => {
      // Distinct, non-overlapping slots: per stylist, starts at least two hours apart, over several days.
      const picked: Array<{ id: string }> = [];
      for (const d of [4, 5, 6, 7, 8, 9]) {
        const last = new Map<string, number>();
        for (const s of await slots('svc_haircut', nyDate(Date.now(), d))) {
          const res = s.resources?.[0]?.id ?? '';
          const start = Date.parse(s.start);
          if (start - (last.get(res) ?? -Infinity) < 2 * 3600_000) continue;
          last.set(res, start);
          picked.push(s);
        }
      }
      const burst = picked.slice(0, 60);
      expect(burst.length).toBe(60);
      const victim = procs[2];
      const answers: Array<{ i: number; proc: number; res: Res | { status: 'network-error' } }> = [];
      const t0 = Date.now();
      const requests = burst.map(async (slot, i) => {
        // Spread over ~300 ms so that the kill lands mid-burst.
        await new Promise((r) => setTimeout(r, i * 5));
        const proc = i % 3;
        try {
          const res = await call(
            procs[proc].url,
            'POST',
            '/bookings',
            { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER(i) },
            agent(profileOf('crash', i)),
          );
          answers.push({ i, proc, res });
        } catch {
          answers.push({ i, proc, res: { status: 'network-error' } });
        }
      });
      await new Promise((r) => setTimeout(r, 120));
      victim.child.kill('SIGKILL');
      await Promise.all(requests);
      metrics.crashBurst = { ms: Date.now() - t0, ...tally(answers.map((a) => a.res)) };

      const booked = answers.filter((a) => a.res.status === 201) as Array<{ i: number; proc: number; res: Res }>;
      expect(booked.length).toBeGreaterThan(20);
      expect(answers.filter((a) => a.proc === 2 && a.res.status === 'network-error').length).toBeGreaterThan(0);
      expect(answers.filter((a) => a.proc !== 2 && a.res.status !== 201)).toEqual([]);
      metrics.crashBooked201 = booked.length;
      metrics.crashBooked201ByKilledProcess = booked.filter((a) => a.proc === 2).length;

      // Every booking that was answered 201 is there, read through a surviving process.
      for (const a of booked) {
        const got = await call(
          procs[a.i % 2].url,
          'GET',
          `/bookings/${a.res.body.booking.id}`,
          undefined,
          agent(profileOf('crash', a.i)),
        );
        expect(got.status).toBe(200);
        expect(got.body.booking).toMatchObject({
          id: a.res.body.booking.id,
          status: 'confirmed',
          slot: { id: burst[a.i].id },
        });
      }

      // Every due event (including any the killed process committed but never expanded) is dispatched by the survivors.
      const pending = async () =>
        (
          await admin.query(
            `SELECT count(*)::int AS n FROM outbox WHERE status = 'pending' AND due_ms <= (extract(epoch FROM now()) * 1000)::bigint`,
          )
        ).rows[0].n as number;
      const t1 = Date.now();
      await expect.poll(pending, { timeout: 15_000, interval: 100 }).toBe(0);
      metrics.outboxDrainedMs = Date.now() - t1;
      const confirmed = await admin.query(
        `SELECT count(*)::int AS n FROM outbox WHERE event = 'booking.confirmed' AND status = 'dispatched' AND order_key = ANY($1::text[])`,
        [booked.map((a) => a.res.body.booking.id)],
      );
      expect(confirmed.rows[0].n).toBe(booked.length);
    }, 40_000);
  });
}
