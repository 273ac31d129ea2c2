/**
 * Crash safety of webhook delivery (spec §10.1.1 at-least-once, CONFORMANCE §5): the built server
 * runs as a child process on a database file; a platform's receiver refuses deliveries (500), more
 * events are committed behind the pending ones, and the child is killed with SIGKILL. Restarted on
 * the same file with the receiver healthy, it delivers every event the outbox holds for that
 * platform, at least once, each booking's events in creation order, all verifiably signed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, ensureBuilt } from '../support/build.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { BUYER, publishedKeys, verifyDelivery, waitFor } from './helpers.js';

const RETRY_FIRST_S = 3;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

interface Child {
  proc: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** `usp-server serve --demo` on `db`, loopback profiles allowed, a short retry schedule; resolves once it answers. */
async function startChild(db: string): Promise<Child> {
  const port = await freePort();
  const proc = spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--demo',
      '--db',
      db,
      '--port',
      String(port),
      '--allow-loopback-profiles',
      '--webhook-retry-first',
      String(RETRY_FIRST_S),
      '--webhook-timeout',
      '2',
      '--reminder-offset',
      '0',
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  let dead = false;
  void exited.then(() => (dead = true));
  const url = `http://127.0.0.1:${port}`;
  const up = await waitFor(async () => {
    if (dead) return true;
    try {
      return (await fetch(`${url}/.well-known/usp`)).ok;
    } catch {
      return false;
    }
  }, 30_000).catch(() => false);
  if (!up || dead) {
    proc.kill('SIGKILL');
    throw new Error(`usp-server did not start:\n${err}`);
  }
  return { proc, url, stderr: () => err, exited };
}

async function kill(c: Child): Promise<void> {
  if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  await c.exited;
}

/** New York calendar date `n` days from now (the child runs on the wall clock). */
function nyDate(n: number): string {
  return new Date(Date.now() + n * 86_400_000).toLocaleDateString('en-CA', { timeZone: 'America/New_York' });
}

async function call(c: Child, profile: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(c.url + path, {
    method,
    headers: {
      'USP-Agent': `profile="${profile}"`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json: any = await res.json();
  if (res.status >= 300 || (json.messages ?? []).some((m: any) => m.type === 'error'))
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

interface OutboxRow {
  seq: number;
  event_id: string;
  event: string;
  order_key: string;
  status: string;
}

function readDb<T>(db: string, fn: (d: Database.Database) => T): T {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return fn(d);
  } finally {
    d.close();
  }
}

describe('SIGKILL between commit and delivery loses nothing', () => {
  let dir: string;
  let db: string;
  let rx: WebhookReceiver;
  let profiles: ProfileServer;
  const children: Child[] = [];

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'usp-webhooks-crash-'));
    db = join(dir, 'business.db');
    rx = await startWebhookReceiver();
    profiles = await startProfileServer();
  }, 180_000);

  afterAll(async () => {
    for (const c of children) await kill(c);
    await rx?.close();
    await profiles?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('restarted on the same database, the server delivers every event at least once, in order per booking', async () => {
    rx.setDefault('/crash', 500);
    const platform = profiles.addProfile('/platforms/crash.json', { webhook_url: rx.url('/crash') });

    // Phase 1: bookings whose booking.confirmed is refused, then more events queued behind them.
    const first = await startChild(db);
    children.push(first);
    const bookings: any[] = [];
    for (let n = 2; n <= 5; n++) {
      const q = await call(first, platform, 'POST', '/availability/query', {
        service_id: 'svc_haircut',
        start_date: nyDate(n),
        end_date: nyDate(n),
      });
      const r = await call(first, platform, 'POST', '/bookings', {
        service_id: 'svc_haircut',
        slot_id: q.slots[0].id,
        buyer: BUYER,
      });
      bookings.push(r.booking);
    }
    // Each first attempt was refused; its retry is RETRY_FIRST_S away, so nothing is in flight now.
    await rx.waitFor((r) => new Set(r.map((x) => x.json.event_id)).size === bookings.length, 5000);
    const moveTo = await call(first, platform, 'POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: nyDate(7),
      end_date: nyDate(7),
    });
    await call(first, platform, 'POST', `/bookings/${bookings[0].id}/reschedule`, { slot_id: moveTo.slots[0].id });
    await call(first, platform, 'POST', `/bookings/${bookings[0].id}/cancel`, {});
    await call(first, platform, 'POST', `/bookings/${bookings[1].id}/cancel`, {});
    await call(first, platform, 'POST', `/bookings/${bookings[2].id}/cancel`, {});
    first.proc.kill('SIGKILL');
    expect(await first.exited).toBeNull();

    const outbox = () =>
      readDb(
        db,
        (d) =>
          d
            .prepare(
              'SELECT seq, event_id, event, order_key, status FROM outbox WHERE principal IS NOT NULL ORDER BY seq',
            )
            .all() as OutboxRow[],
      );
    const committed = outbox();
    expect(committed.map((e) => e.event)).toEqual([
      ...bookings.map(() => 'booking.confirmed'),
      'booking.rescheduled',
      'booking.canceled',
      'booking.canceled',
      'booking.canceled',
    ]);
    const deliveredBefore = readDb(
      db,
      (d) =>
        (d.prepare(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'delivered'`).get() as { n: number }).n,
    );
    expect(deliveredBefore).toBe(0);
    expect(rx.requests('/crash').every((r) => r.answered === 500)).toBe(true);

    // Phase 2: the receiver recovers; the server comes back on the same file.
    rx.setDefault('/crash', 200);
    const second = await startChild(db);
    children.push(second);
    const ok = () =>
      new Set(
        rx
          .requests('/crash')
          .filter((r) => r.answered === 200)
          .map((r) => r.json.event_id),
      );
    await rx.waitFor(
      () => committed.every((e) => ok().has(e.event_id)),
      25_000,
      () => `delivered ${ok().size} of ${committed.length}\n${second.stderr()}`,
    );

    // Nothing lost, nothing invented: exactly the committed events, each delivered.
    expect([...ok()].sort()).toEqual(committed.map((e) => e.event_id).sort());
    // Per booking, the platform saw the events in creation order.
    const firstOk = new Map<string, string[]>();
    for (const r of rx.requests('/crash').filter((x) => x.answered === 200)) {
      const seen = firstOk.get(r.json.booking_id) ?? [];
      if (!seen.includes(r.json.event_id)) seen.push(r.json.event_id);
      firstOk.set(r.json.booking_id, seen);
    }
    for (const b of bookings) {
      expect(firstOk.get(b.id), b.id).toEqual(committed.filter((e) => e.order_key === b.id).map((e) => e.event_id));
    }
    // Every attempt, before and after the crash, carries a valid signature by a published key.
    const keys = await publishedKeys(second.url);
    for (const r of rx.requests('/crash')) expect((await verifyDelivery(r, keys, Date.now())).ok).toBe(true);
    await waitFor(
      () =>
        readDb(
          db,
          (d) =>
            (
              d.prepare(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status != 'delivered'`).get() as {
                n: number;
              }
            ).n === 0,
        ),
      5000,
    );
    const states = readDb(db, (d) =>
      d.prepare('SELECT status, COUNT(*) AS n FROM webhook_deliveries GROUP BY status').all(),
    );
    expect(states).toEqual([{ status: 'delivered', n: committed.length }]);
  }, 90_000);
});
