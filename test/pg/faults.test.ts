/**
 * When the database goes away (PostgreSQL): a restart, a stop of a few seconds, a LISTEN connection
 * that missed announcements. These tests restart and stop PostgreSQL, so they never touch the shared
 * test cluster: they start a throwaway cluster of their own with scripts/pg-test-server.sh
 * (USP_TEST_PG_FAULTS_PORT, default 5439; data in /tmp/usp-pgdata-faults-<port>). Skipped, with the
 * reason in the title, when the PostgreSQL binaries are absent (CI installs them) or when
 * USP_TEST_PG_FAULTS=0.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { nyDate } from '../mcp/helpers.js';
import { BIN, REPO_ROOT, ensureBuilt } from '../support/build.js';
import { openPostgresStore, type PostgresEventChannel } from '../../src/store/postgres/postgres-store.js';
import { StoreUnavailable } from '../../src/store/index.js';
import { createUspServer } from '../../src/server/compose.js';
import { demoBusiness, startTestServer } from '../support/server.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { startProfileServer } from '../support/profile-server.js';

const PORT = Number(process.env.USP_TEST_PG_FAULTS_PORT || 5439);
const DATA = `/tmp/usp-pgdata-faults-${PORT}`;
const SCRIPT = join(REPO_ROOT, 'scripts/pg-test-server.sh');
const ENV = { ...process.env, USP_PG_PORT: String(PORT), USP_PG_DATA: DATA, USP_PG_DB: 'usp_faults' };
const URL_BASE = `postgres://postgres@127.0.0.1:${PORT}/usp_faults`;

function pgBinaries(): boolean {
  try {
    if (readdirSync('/usr/lib/postgresql').some((v) => existsSync(`/usr/lib/postgresql/${v}/bin/initdb`))) return true;
  } catch {
    /* not a Debian layout */
  }
  try {
    execFileSync('sh', ['-c', 'command -v initdb'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const SKIP =
  process.env.USP_TEST_PG_FAULTS === '0'
    ? 'USP_TEST_PG_FAULTS=0'
    : pgBinaries()
      ? undefined
      : 'no PostgreSQL binaries (initdb) on this machine; scripts/pg-test-server.sh start installs them';

const cluster = (cmd: 'start' | 'stop' | 'restart') =>
  execFileSync('bash', [SCRIPT, cmd], { env: ENV, encoding: 'utf8', timeout: 90_000 }).trim();

interface Proc {
  url: string;
  child: ChildProcess;
  log(): string;
}

function startServer(db: string, extra: string[] = []): Promise<Proc> {
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
      '--db-connect-timeout',
      '1000',
      '--db-statement-timeout',
      '3000',
      '--no-rate-limit',
      '--max-connections-per-address',
      '1000',
      ...extra,
    ],
    { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: '' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr!.on('data', (d: Buffer) => {
    log = (log + d.toString()).slice(-50_000);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 20 s:\n${log}`)), 20_000);
    const check = setInterval(() => {
      const m = /is open at (http:\/\/[^\s]+)/.exec(log);
      if (m) {
        clearInterval(check);
        clearTimeout(timer);
        resolve({ url: m[1], child, log: () => log });
      }
    }, 20);
    child.once('exit', (code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${log}`));
    });
  });
}

type Answer = { status: number | 'network-error'; body?: any; headers?: Headers; ms: number; at: number };

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const t0 = Date.now();
  try {
    const res = await fetch(base + path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* keep text */
    }
    return { status: res.status, body: parsed, headers: res.headers, ms: Date.now() - t0, at: Date.now() };
  } catch {
    return { status: 'network-error', ms: Date.now() - t0, at: Date.now() };
  }
}

const agent = (i: number) => ({ 'USP-Agent': `profile="https://platform-${i}.example/profiles/faults.json"` });
const BUYER = (i: number) => ({ first_name: `Buyer${i}`, last_name: 'Faults', email: `buyer${i}@example.com` });
const alive = (p: Proc) => p.child.exitCode === null && p.child.signalCode === null;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Slots that never overlap: per stylist, starts at least two hours apart. */
function spread(slots: Array<{ id: string; start: string; resources?: Array<{ id: string }> }>): Array<{ id: string }> {
  const last = new Map<string, number>();
  return slots.filter((s) => {
    const res = s.resources?.[0]?.id ?? '';
    const start = Date.parse(s.start);
    if (start - (last.get(res) ?? -Infinity) < 2 * 3600_000) return false;
    last.set(res, start);
    return true;
  });
}

function tally(answers: Answer[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of answers) {
    const k = String(a.status);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

if (SKIP) {
  describe.skip(`PostgreSQL fault injection (skipped: ${SKIP})`, () => {
    test('a restart is a blip of 503s', () => {});
  });
  console.warn(`[pg faults] skipped: ${SKIP}`);
} else {
  describe('a PostgreSQL restart or stop is a blip of 503s: the server stays up and loses no answered booking', () => {
    let proc: Proc;
    /** A second process on the same database: a restart must leave every process up. */
    let peer: Proc;
    let admin: pg.Client;
    let slots: Array<{ id: string }> = [];
    let next = 0;
    const metrics: Record<string, unknown> = {};
    const schema = `faults_${process.pid}`;
    const db = `${URL_BASE}?schema=${schema}`;

    beforeAll(async () => {
      ensureBuilt();
      cluster('start');
      const c = new pg.Client({ connectionString: URL_BASE });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
      proc = await startServer(db);
      peer = await startServer(db);
      // Many distinct haircut slots over the coming days: each booking takes a fresh one.
      for (let d = 2; d <= 19 && slots.length < 4000; d++) {
        const r = await call(proc.url, 'POST', '/availability/query', {
          service_id: 'svc_haircut',
          start_date: nyDate(Date.now(), d),
          end_date: nyDate(Date.now(), d),
          limit: 500,
        });
        expect(r.status).toBe(200);
        slots.push(...r.body.slots);
      }
      slots = slots.filter((_, i) => i % 2 === 0);
    }, 90_000);

    afterAll(async () => {
      for (const p of [proc, peer]) {
        if (p && alive(p)) {
          p.child.kill('SIGTERM');
          await new Promise((r) => p.child.once('exit', r));
        }
      }
      await admin?.end().catch(() => undefined);
      try {
        cluster('start');
        const c = new pg.Client({ connectionString: URL_BASE });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await c.end();
      } catch {
        /* the cluster is throwaway */
      }
      // Leave nothing running behind the suite.
      try {
        cluster('stop');
      } catch {
        /* already stopped */
      }
      console.info(`[pg faults] ${JSON.stringify(metrics)}`);
    }, 60_000);

    /** Eight clients booking fresh slots until `until()`; a 503 is retried with the same Idempotency-Key. */
    async function bookingLoad(
      until: () => boolean,
    ): Promise<{ answers: Answer[]; booked: Array<{ id: string; slot: string; at: number }> }> {
      const answers: Answer[] = [];
      const booked: Array<{ id: string; slot: string; at: number }> = [];
      await Promise.all(
        Array.from({ length: 8 }, async (_, worker) => {
          while (!until()) {
            // Paced, so that the slots last well past the restart on a fast machine.
            await sleep(20);
            const slot = slots[next++ % slots.length];
            const key = `k-${schema}-${worker}-${next}`;
            for (let tries = 0; tries < 40 && !until(); tries++) {
              const a = await call(
                (worker % 2 ? peer : proc).url,
                'POST',
                '/bookings',
                { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER(worker) },
                {
                  ...agent(worker),
                  'Idempotency-Key': key,
                },
              );
              answers.push(a);
              if (a.status === 201) booked.push({ id: a.body.booking.id, slot: slot.id, at: a.at });
              if (a.status !== 503) break;
              // Retry-After, scaled down: the test cannot wait whole seconds per retry.
              await sleep(Math.min(1000, Number(a.headers?.get('retry-after') ?? 1) * 100));
            }
          }
        }),
      );
      return { answers, booked };
    }

    async function expectAllStored(booked: Array<{ id: string; slot: string }>) {
      admin ??= await (async () => {
        const c = new pg.Client({ connectionString: URL_BASE, options: `-c search_path=${schema},public` });
        c.on('error', () => undefined);
        await c.connect();
        return c;
      })();
      const ids = booked.map((b) => b.id);
      const r = await admin.query(
        `SELECT id, data::json #>> '{booking,slot,id}' AS slot FROM bookings WHERE id = ANY($1::text[])`,
        [ids],
      );
      expect(r.rows.length).toBe(ids.length);
      const bySlot = new Map(r.rows.map((x) => [x.id as string, x.slot as string]));
      for (const b of booked) expect(bySlot.get(b.id)).toBe(b.slot);
    }

    test('pg_ctl restart -m fast under eight booking clients on two processes: both stay up, clients see only 2xx or 503, bookings resume within seconds, every 201 is stored', async () => {
      let stop = false;
      let restartedAt = 0;
      const load = bookingLoad(() => stop);
      await sleep(1000);
      const t0 = Date.now();
      cluster('restart');
      restartedAt = Date.now();
      metrics.restartMs = restartedAt - t0;
      await sleep(4000);
      stop = true;
      const { answers, booked } = await load;
      metrics.restart = tally(answers);
      expect(alive(proc), proc.log()).toBe(true);
      expect(alive(peer), peer.log()).toBe(true);
      const statuses = new Set(answers.map((a) => a.status));
      expect(
        [...statuses].filter((s) => s !== 200 && s !== 201 && s !== 503),
        JSON.stringify(metrics.restart),
      ).toEqual([]);
      for (const a of answers.filter((x) => x.status === 503)) {
        expect(a.body.code ?? a.body.type).toMatch(/service_unavailable/);
        expect(a.headers!.get('retry-after')).toMatch(/^\d+$/);
      }
      const after = booked.filter((b) => b.at > restartedAt);
      expect(after.length).toBeGreaterThan(0);
      metrics.firstBookingAfterRestartMs = Math.min(...after.map((b) => b.at)) - restartedAt;
      expect(metrics.firstBookingAfterRestartMs).toBeLessThan(3000);
      await expectAllStored(booked);
      expect(await (await call(proc.url, 'GET', '/readyz')).status).toBe(200);
      expect(await (await call(peer.url, 'GET', '/readyz')).status).toBe(200);
    }, 40_000);

    test('stopped for three seconds: calls answer 503 at once, /readyz says not ready, profile and catalog still answer; started again, all recovers by itself', async () => {
      cluster('stop');
      try {
        const booking = await call(
          proc.url,
          'POST',
          '/bookings',
          { service_id: 'svc_haircut', slot_id: slots[next++ % slots.length].id, buyer: BUYER(1) },
          agent(1),
        );
        expect(booking.status).toBe(503);
        expect(booking.body.code ?? booking.body.type).toMatch(/service_unavailable/);
        expect(booking.headers!.get('retry-after')).toBe('2');
        expect(booking.ms).toBeLessThan(1500);
        const read = await call(proc.url, 'GET', '/bookings/bk_doesnotexist', undefined, agent(1));
        expect(read.status).toBe(503);
        expect(read.ms).toBeLessThan(1500);

        const ready = await call(proc.url, 'GET', '/readyz');
        expect(ready.status).toBe(503);
        expect(ready.body).toMatchObject({ status: 'unavailable', database: 'postgres' });
        expect(ready.ms).toBeLessThan(2500);
        expect((await call(proc.url, 'GET', '/healthz')).status).toBe(200);
        // Served from memory: the profile and the catalog.
        expect((await call(proc.url, 'GET', '/.well-known/usp')).status).toBe(200);
        // Anonymous: a caller presenting a platform profile is bound to it in the database first.
        const services = await call(proc.url, 'POST', '/services/list', {});
        expect(services.status).toBe(200);
        expect(services.body.services.length).toBeGreaterThan(0);
        await sleep(3000);
        expect(alive(proc), proc.log()).toBe(true);
      } finally {
        cluster('start');
      }
      const t0 = Date.now();
      await expect
        .poll(async () => (await call(proc.url, 'GET', '/readyz')).status, { timeout: 10_000, interval: 100 })
        .toBe(200);
      metrics.readyAgainMs = Date.now() - t0;
      // A day the load never reached, so the slot is surely free.
      const day = nyDate(Date.now(), 20);
      const free = await call(proc.url, 'POST', '/availability/query', {
        service_id: 'svc_haircut',
        start_date: day,
        end_date: day,
        limit: 1,
      });
      expect(free.status).toBe(200);
      const again = await call(
        proc.url,
        'POST',
        '/bookings',
        { service_id: 'svc_haircut', slot_id: free.body.slots[0].id, buyer: BUYER(2) },
        agent(2),
      );
      expect(again.status).toBe(201);
      // A client of the test's own, cut by the stop: start a fresh one.
      await admin?.end().catch(() => undefined);
      admin = undefined as unknown as pg.Client;
      await expectAllStored([{ id: again.body.booking.id, slot: again.body.booking.slot.id }]);
      expect(proc.log()).toMatch(/database unavailable/);
    }, 40_000);

    test('a LISTEN connection cut by a restart reconnects and announces the events dispatched while it was away', async () => {
      const listener = await openPostgresStore({ url: db, connectTimeoutMs: 500, onError: () => undefined });
      const writer = await openPostgresStore({ url: db, connectTimeoutMs: 500, onError: () => undefined });
      try {
        const heard: number[] = [];
        listener.channel!.subscribe((seqs) => heard.push(...seqs));
        await (listener.channel as PostgresEventChannel).ready();
        cluster('stop');
        // While down, the store answers StoreUnavailable at once rather than hanging.
        await expect(writer.read((tx) => tx.outbox.recent(1))).rejects.toBeInstanceOf(StoreUnavailable);
        await sleep(1500);
        cluster('start');
        // Dispatched and announced as soon as the database is back, very likely before the listener's backoff ends.
        const seq = await writer.transaction(async (tx) => {
          await tx.outbox.add({
            event_id: `evt_${process.pid}_${Date.now()}`,
            event: 'booking.confirmed',
            order_key: 'bk_listen',
            principal: 'p',
            profile: null,
            payload: { booking: { id: 'bk_listen' } },
            created_ms: Date.now(),
            due_ms: Date.now(),
          });
          const [due] = (await tx.outbox.due(Date.now() + 1, 1000)).filter((e) => e.order_key === 'bk_listen');
          await tx.outbox.markDispatched([due.seq]);
          return due.seq;
        });
        await writer.channel!.publish([seq]);
        await expect.poll(() => heard.includes(seq), { timeout: 15_000, interval: 100 }).toBe(true);
        expect(heard.filter((s) => s === seq)).toHaveLength(1);
      } finally {
        await listener.close();
        await writer.close();
      }
    }, 40_000);

    test('the webhook dispatcher pauses while the database is away and resumes with its lease intact: a delivery sent but not recorded is sent again, same event_id, only after its lease lapses', async () => {
      const rx = await startWebhookReceiver();
      const profiles = await startProfileServer();
      const lines: string[] = [];
      const log = {
        info: (m: string) => lines.push(`info ${m}`),
        warn: (m: string) => lines.push(`warn ${m}`),
        error: (m: string) => lines.push(`error ${m}`),
      };
      const timeoutMs = 1000;
      // The composition root leases a delivery for two attempts' timeouts plus 5 s.
      const leaseMs = 2 * timeoutMs + 5000;
      const app = await createUspServer({
        business: demoBusiness(),
        db: `${URL_BASE}?schema=${schema}_wh`,
        dbTimeouts: { connectTimeoutMs: 500, statementTimeoutMs: 2000 },
        sandbox: true,
        log,
        sweepIntervalMs: 0,
        security: { allowLoopbackProfiles: true },
        webhooks: { timeoutMs, pollMs: 50, retry: { firstRetryMs: 50, maxRetries: 3, maxTotalMs: 60_000 } },
      });
      try {
        const url = await app.listen(0, '127.0.0.1');
        const platform = profiles.addProfile('/platforms/outage.json', { webhook_url: rx.url('/outage') });
        // The first attempt is answered 200 only after the database has been stopped: it cannot be recorded.
        rx.setResponder('/outage', (req) => (req.index === 0 ? { status: 200, delayMs: 700 } : undefined));
        const day = nyDate(Date.now(), 25);
        const q = await call(url, 'POST', '/availability/query', {
          service_id: 'svc_haircut',
          start_date: day,
          end_date: day,
          limit: 1,
        });
        const booked = await call(
          url,
          'POST',
          '/bookings',
          { service_id: 'svc_haircut', slot_id: q.body.slots[0].id, buyer: BUYER(9) },
          { 'USP-Agent': `profile="${platform}"` },
        );
        expect(booked.status).toBe(201);
        await rx.waitFor((r) => r.length === 1, 5000);
        cluster('stop');
        try {
          await sleep(1500);
          expect(lines.filter((l) => l.includes('webhook dispatcher paused'))).toHaveLength(1);
          expect(lines.some((l) => l.includes('could not be recorded'))).toBe(true);
        } finally {
          cluster('start');
        }
        await expect
          .poll(() => lines.some((l) => l.includes('webhook dispatcher resumed')), { timeout: 10_000, interval: 100 })
          .toBe(true);
        // Sent again once the lease lapses, not before; the same event.
        await rx.waitFor((r) => r.length >= 2, leaseMs + 5000);
        const [first, second] = rx.requests('/outage');
        expect(second.json.event_id).toBe(first.json.event_id);
        expect(second.mono - first.mono).toBeGreaterThanOrEqual(leaseMs - 1000);
        const c = new pg.Client({ connectionString: URL_BASE, options: `-c search_path=${schema}_wh,public` });
        c.on('error', () => undefined);
        await c.connect();
        try {
          await expect
            .poll(
              async () =>
                (await c.query(`SELECT status FROM webhook_deliveries WHERE event_id = $1`, [first.json.event_id]))
                  .rows[0]?.status,
              {
                timeout: 5000,
                interval: 100,
              },
            )
            .toBe('delivered');
        } finally {
          await c.end();
        }
      } finally {
        await app.close();
        await rx.close();
        await profiles.close();
        const c = new pg.Client({ connectionString: URL_BASE });
        c.on('error', () => undefined);
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${schema}_wh CASCADE`);
        await c.end();
      }
    }, 60_000);

    test('SIGKILL of a process holding webhook leases, under booking load: the other two carry on, and deliver its leased webhooks once the leases lapse', async () => {
      const rx = await startWebhookReceiver();
      const profiles = await startProfileServer();
      const kdb = `${URL_BASE}?schema=${schema}_kill`;
      // Long enough that the victim's attempts are still open when it dies, even when starting the
      // two survivors is slow on a loaded machine (6 s was once not enough).
      const timeoutS = 10;
      const leaseMs = 2 * timeoutS * 1000 + 5000;
      const extra = ['--allow-loopback-profiles', '--webhook-timeout', String(timeoutS), '--webhook-retry-first', '1'];
      const procs: Proc[] = [];
      try {
        procs.push(await startServer(kdb, extra));
        const victim = procs[0];
        rx.setDefault('/kill', 'hang');
        const platforms = Array.from({ length: 4 }, (_, i) =>
          profiles.addProfile(`/platforms/kill-${i}.json`, { webhook_url: rx.url('/kill') }),
        );
        const free: Array<{ id: string }> = [];
        for (const d of [26, 27, 28, 29]) {
          const day = nyDate(Date.now(), d);
          const q = await call(victim.url, 'POST', '/availability/query', {
            service_id: 'svc_haircut',
            start_date: day,
            end_date: day,
            limit: 100,
          });
          free.push(...spread(q.body.slots));
        }
        expect(free.length).toBeGreaterThan(platforms.length + 4);
        const events: string[] = [];
        for (const [i, platform] of platforms.entries()) {
          const r = await call(
            victim.url,
            'POST',
            '/bookings',
            { service_id: 'svc_haircut', slot_id: free[i].id, buyer: BUYER(i) },
            { 'USP-Agent': `profile="${platform}"` },
          );
          expect(r.status, JSON.stringify(r.body)).toBe(201);
        }
        // Only the victim runs: it leases every delivery, and each attempt hangs.
        await rx.waitFor((r) => r.length === platforms.length, 5000);
        const firstAt = Math.min(...rx.requests('/kill').map((r) => r.mono));
        for (const r of rx.requests('/kill')) events.push(r.json.event_id);
        procs.push(...(await Promise.all([startServer(kdb, extra), startServer(kdb, extra)])));
        rx.setDefault('/kill', 200);
        let stop = false;
        const load = (async () => {
          const answers: Answer[] = [];
          for (let i = 0; !stop && i + platforms.length < free.length; i++) {
            answers.push(
              await call(
                procs[1 + (i % 2)].url,
                'POST',
                '/bookings',
                { service_id: 'svc_haircut', slot_id: free[i + platforms.length].id, buyer: BUYER(i) },
                agent(i),
              ),
            );
            await sleep(200);
          }
          return answers;
        })();
        victim.child.kill('SIGKILL');
        const killedAt = performance.now();
        // The attempts were still open when it died: their leases, not a recorded failure, hold them.
        expect(killedAt - firstAt).toBeLessThan(timeoutS * 1000);
        expect(rx.requests('/kill').every((r) => r.answered === null)).toBe(true);
        // Every leased event reaches the receiver again, from a survivor, after its lease lapsed.
        const delivered = () =>
          new Set(
            rx
              .requests('/kill')
              .filter((r) => r.answered === 200)
              .map((r) => r.json.event_id),
          );
        await expect
          .poll(() => events.every((e) => delivered().has(e)), { timeout: leaseMs + 10_000, interval: 200 })
          .toBe(true);
        const resent = rx.requests('/kill').filter((r) => r.answered === 200);
        expect(Math.min(...resent.map((r) => r.mono)) - firstAt).toBeGreaterThanOrEqual(leaseMs - 1500);
        stop = true;
        const answers = await load;
        metrics.killLoad = tally(answers);
        expect(answers.length).toBeGreaterThan(0);
        expect(answers.filter((a) => a.status !== 201 && a.status !== 200)).toEqual([]);
        expect(alive(procs[1]) && alive(procs[2])).toBe(true);
      } finally {
        for (const p of procs) if (alive(p)) p.child.kill('SIGTERM');
        await Promise.all(procs.map((p) => (alive(p) ? new Promise((r) => p.child.once('exit', r)) : null)));
        await rx.close();
        await profiles.close();
        const c = new pg.Client({ connectionString: URL_BASE });
        c.on('error', () => undefined);
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${schema}_kill CASCADE`);
        await c.end();
      }
    }, 90_000);

    test('the clock jumping forward past a hold expiry on PostgreSQL: the slot is free again for another platform and booking with the old hold, now held by that platform, is slot_unavailable (spec-next 4.2.1)', async () => {
      const t = await startTestServer({ db: `${URL_BASE}?schema=${schema}_clock` });
      try {
        const date = nyDate(t.clock.now(), 3);
        const q = await t.call('POST', '/availability/query', {
          service_id: 'svc_haircut',
          start_date: date,
          end_date: date,
          limit: 1,
        });
        const slot = q.body.slots[0];
        const first = 'https://platform-a.example/profiles/clock.json';
        const h = await t.call(
          'POST',
          '/availability/holds',
          { service_id: 'svc_haircut', slot_id: slot.id },
          { profile: first },
        );
        expect(h.status).toBe(201);
        const other = 'https://platform-b.example/profiles/clock.json';
        expect(
          (
            await t.call(
              'POST',
              '/availability/holds',
              { service_id: 'svc_haircut', slot_id: slot.id },
              { profile: other },
            )
          ).status,
        ).toBe(200);
        // An NTP step or a resumed VM: ten minutes and a second pass at once.
        t.clock.advance(600_000 + 1000);
        expect(
          (
            await t.call(
              'POST',
              '/availability/holds',
              { service_id: 'svc_haircut', slot_id: slot.id },
              { profile: other },
            )
          ).status,
        ).toBe(201);
        const late = await t.call(
          'POST',
          '/bookings',
          { service_id: 'svc_haircut', slot_id: slot.id, hold_id: h.body.hold.id, buyer: BUYER(1) },
          { profile: first },
        );
        expect(late.status).toBe(200);
        expect(late.body.messages[0]).toMatchObject({ type: 'error', code: 'slot_unavailable' });
      } finally {
        await t.close();
        const c = new pg.Client({ connectionString: URL_BASE });
        c.on('error', () => undefined);
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${schema}_clock CASCADE`);
        await c.end();
      }
    }, 30_000);
  });
}
