/**
 * When the SQLite file cannot serve (another process holds the write lock past the busy timeout,
 * the file was deleted, the disk is full, the file system is read-only): calls that need the
 * database answer service_unavailable (503 + Retry-After on REST, -32009 on MCP) instead of a 500,
 * /readyz says not ready, the profile and the catalog still answer, nothing is corrupted, no
 * answered booking is lost, and service comes back by itself once the fault is gone.
 * The full-disk and read-only cases mount a tiny tmpfs (root only): skipped, with the reason in the
 * title, where mounting is not allowed.
 */
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { connectMcp } from '../mcp/helpers.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'usp-sqlite-faults-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close().catch(() => undefined);
  server = undefined;
});

/** `n` free slots that cannot overlap: the first of each open day from `offset` on. */
async function freeSlots(s: TestServer, n: number, offset = 2): Promise<string[]> {
  const out: string[] = [];
  for (let d = offset; out.length < n && d < offset + 60; d++) {
    const r = await s.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(d),
      end_date: day(d),
      limit: 1,
    });
    expect(r.status).toBe(200);
    if (r.body.slots[0]) out.push(r.body.slots[0].id);
  }
  expect(out).toHaveLength(n);
  return out;
}

const book = (s: TestServer, slot: string, key?: string) =>
  s.call(
    'POST',
    '/bookings',
    { service_id: 'svc_haircut', slot_id: slot, buyer: BUYER },
    key ? { idempotencyKey: key } : {},
  );

async function expectUnavailable(res: { status: number; body: any; headers: Headers }) {
  expect(res.status).toBe(503);
  expect(res.body.code).toBe('service_unavailable');
  expect(res.headers.get('retry-after')).toBe('2');
}

/**
 * Take the write lock on `db` once the server lets go of it. The server runs in this process, and a
 * background pass (the outbox runner's claim) may hold an open group commit whose COMMIT is due on
 * the next turn of the event loop: a synchronous busy wait here would block that turn and never get
 * the lock. So try without waiting, and yield between tries.
 */
async function takeWriteLock(db: Database.Database): Promise<void> {
  db.pragma('busy_timeout = 0');
  const begin = db.prepare('BEGIN IMMEDIATE');
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      begin.run();
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

async function expectIntact(file: string, bookingIds: string[]) {
  const db = new Database(file, { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    for (const id of bookingIds) expect(db.prepare('SELECT id FROM bookings WHERE id = ?').get(id)).toEqual({ id });
  } finally {
    db.close();
  }
}

describe('a SQLite database locked by another process past the busy timeout answers 503 at once, then recovers', () => {
  test('bookings answer service_unavailable on REST and -32009 on MCP while the lock is held; /readyz is 503; the catalog and profile answer; after release a booking is 201', async () => {
    const file = join(tempDir(), 'locked.db');
    server = await startTestServer({ db: file, dbTimeouts: { statementTimeoutMs: 200 } });
    const [a, b, c] = await freeSlots(server, 3);
    const first = await book(server, a);
    expect(first.status).toBe(201);

    const other = new Database(file);
    await takeWriteLock(other);
    try {
      const t0 = Date.now();
      await expectUnavailable(await book(server, b, 'locked-key'));
      expect(Date.now() - t0).toBeLessThan(2000);
      const mcp = await connectMcp('v2', 'http', server.url);
      try {
        const err = await mcp.callError('usp_bookings_create', {
          service_id: 'svc_haircut',
          slot_id: b,
          buyer: BUYER,
          _meta: { usp: { profile: 'https://platform.example/profiles/agent.json' } },
        });
        expect(err.code).toBe(-32009);
      } finally {
        await mcp.close();
      }
      const ready = await server.call('GET', '/readyz', undefined, { profile: null });
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ status: 'unavailable', database: 'sqlite' });
      expect(ready.body.reason).toMatch(/locked/);
      expect((await server.call('GET', '/healthz', undefined, { profile: null })).status).toBe(200);
      expect((await server.call('GET', '/.well-known/usp', undefined, { profile: null })).status).toBe(200);
      expect((await server.call('POST', '/services/list', {}, { profile: null })).status).toBe(200);
    } finally {
      other.prepare('ROLLBACK').run();
      other.close();
    }
    expect((await server.call('GET', '/readyz', undefined, { profile: null })).status).toBe(200);
    // The retry with the same key books exactly once.
    const retried = await book(server, b, 'locked-key');
    expect(retried.status).toBe(201);
    const third = await book(server, c);
    expect(third.status).toBe(201);
    await server.close();
    server = undefined;
    await expectIntact(file, [first.body.booking.id, retried.body.booking.id, third.body.booking.id]);
  });
});

describe('a SQLite file deleted under a running server is not written to as a ghost', () => {
  test('after the file is removed, bookings answer 503 and /readyz names the cause; nothing is written to the unlinked file', async () => {
    const dir = tempDir();
    const file = join(dir, 'vanish.db');
    server = await startTestServer({ db: file });
    const [a, b] = await freeSlots(server, 2);
    expect((await book(server, a)).status).toBe(201);
    for (const f of ['vanish.db', 'vanish.db-wal', 'vanish.db-shm']) rmSync(join(dir, f), { force: true });
    await expectUnavailable(await book(server, b));
    const ready = await server.call('GET', '/readyz', undefined, { profile: null });
    expect(ready.status).toBe(503);
    expect(ready.body.reason).toMatch(/moved or deleted/);
    expect((await server.call('GET', '/healthz', undefined, { profile: null })).status).toBe(200);
  });
});

function canMount(): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'needs root on Linux to mount a tmpfs';
  const probe = tempDir();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'mounting a tmpfs is not allowed here';
  }
}
const NO_MOUNT = canMount();

function tmpfs(sizeKb: number): { dir: string; unmount(): void } {
  const dir = tempDir();
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k`, 'tmpfs', dir]);
  return { dir, unmount: () => execFileSync('umount', ['-l', dir], { stdio: 'ignore' }) };
}

describe.skipIf(NO_MOUNT)(
  `a full disk answers 503, corrupts nothing, and recovers once space is freed${NO_MOUNT ? ` (skipped: ${NO_MOUNT})` : ''}`,
  () => {
    test('with the disk filled, bookings answer 503 and /readyz is 503; after freeing space every answered booking is there and the file checks ok', async () => {
      const fs = tmpfs(3072);
      try {
        const file = join(fs.dir, 'full.db');
        server = await startTestServer({ db: file });
        const slots = await freeSlots(server, 24);
        const answered: string[] = [];
        for (const s of slots.slice(0, 2)) {
          const r = await book(server, s);
          expect(r.status).toBe(201);
          answered.push(r.body.booking.id);
        }
        // Fill the disk.
        try {
          execFileSync('dd', ['if=/dev/zero', `of=${join(fs.dir, 'filler')}`, 'bs=64k'], { stdio: 'ignore' });
        } catch {
          /* dd stops with ENOSPC: that is the point */
        }
        // A booking whose pages fit in the write-ahead log's space already on disk still commits (the log is
        // reused after each checkpoint): book until one needs more and is refused.
        const statuses: number[] = [];
        for (const s of slots.slice(2, 23)) {
          const r = await book(server, s);
          statuses.push(r.status);
          if (r.status === 201) answered.push(r.body.booking.id);
          else {
            await expectUnavailable(r);
            break;
          }
        }
        expect(statuses).toContain(503);
        expect((await server.call('GET', '/readyz', undefined, { profile: null })).status).toBe(503);
        rmSync(join(fs.dir, 'filler'));
        expect((await server.call('GET', '/readyz', undefined, { profile: null })).status).toBe(200);
        const after = await book(server, slots[23]!);
        expect(after.status).toBe(201);
        answered.push(after.body.booking.id);
        await server.close();
        server = undefined;
        await expectIntact(file, answered);
      } finally {
        await server?.close().catch(() => undefined);
        server = undefined;
        fs.unmount();
      }
    });

    test('a database on a read-only file system refuses to start with a message that names the cause', async () => {
      const fs = tmpfs(2048);
      try {
        const file = join(fs.dir, 'ro.db');
        const s = await startTestServer({ db: file });
        await s.close();
        execFileSync('mount', ['-o', 'remount,ro', fs.dir]);
        await expect(startTestServer({ db: file })).rejects.toThrow(
          /database unavailable: the database file cannot be opened .*read-only file system/,
        );
      } finally {
        fs.unmount();
      }
    });
  },
);
