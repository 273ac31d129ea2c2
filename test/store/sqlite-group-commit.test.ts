/**
 * Group commit on SQLite: write transactions that start in the same turn of the event loop share
 * one COMMIT, each after the first in its own savepoint. What callers can observe must not change: a transaction
 * is answered only once it is committed, one that throws leaves no trace and takes no neighbour
 * with it, and reads see committed data only (on a second connection, so they never queue behind writes).
 */
import Database from 'better-sqlite3';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { openSqliteStore, type Store } from '../../src/store/index.js';
import { logSyncs, PIN_FRAMES } from '../../src/store/sqlite/checkpointer.js';

let dir: string | undefined;
let store: Store | undefined;
let other: Database.Database | undefined;
afterEach(async () => {
  other?.close();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = store = other = undefined;
});

function open(opts: { walRestartFrames?: number; checkpointDelayMs?: number } = {}): { store: Store; path: string } {
  dir = mkdtempSync(join(tmpdir(), 'usp-group-commit-'));
  const path = join(dir, 'usp.db');
  store = openSqliteStore({ path, ...opts });
  other = new Database(path, { readonly: true });
  return { store, path };
}

/**
 * Frames in the write-ahead log: every COMMIT appends at least one (the pages it changed).
 * `TRUNCATE` checkpoints and empties the log first.
 */
function walFrames(path: string, mode: 'PASSIVE' | 'TRUNCATE' = 'PASSIVE'): number {
  const db = new Database(path);
  try {
    const [r] = db.pragma(`wal_checkpoint(${mode})`) as Array<{ log: number }>;
    return r.log;
  } finally {
    db.close();
  }
}

/** How many times the log started over: the checkpoint sequence number in its header (bytes 12-15). */
function walRestarts(path: string): number {
  const fd = openSync(`${path}-wal`, 'r');
  try {
    const head = Buffer.alloc(16);
    readSync(fd, head, 0, 16, 0);
    return head.readUInt32BE(12);
  } finally {
    closeSync(fd);
  }
}

describe('write transactions started together share one commit, and each is answered only once committed', () => {
  test('fifty transactions started in one turn write the log once, not fifty times', async () => {
    const { store, path } = open();
    await store.transaction((tx) => tx.kv.set('counter', '0'));
    expect(walFrames(path, 'TRUNCATE')).toBe(0);
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.transaction((tx) => tx.kv.set('counter', String(i + 1)))),
    );
    // One commit of the one changed page (plus at most a page or two of b-tree bookkeeping).
    expect(walFrames(path)).toBeLessThan(5);
    expect((other!.prepare('SELECT value FROM kv WHERE key = ?').get('counter') as { value: string }).value).toBe('50');
  });

  test('when a transaction is answered, another connection already sees its write', async () => {
    const { store } = open();
    const seen: boolean[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store
          .transaction((tx) => tx.kv.set(`k${i}`, 'v'))
          .then(() => seen.push(other!.prepare('SELECT 1 FROM kv WHERE key = ?').get(`k${i}`) !== undefined)),
      ),
    );
    expect(seen).toEqual(Array(20).fill(true));
  });

  test('a transaction that throws in a shared commit leaves no trace, and its neighbours commit', async () => {
    const { store } = open();
    const results = await Promise.allSettled([
      store.transaction((tx) => tx.kv.set('a', '1')),
      store.transaction(async (tx) => {
        await tx.kv.set('b', '1');
        throw new Error('refused');
      }),
      store.transaction((tx) => tx.kv.set('c', '1')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const keys = (other!.prepare('SELECT key FROM kv ORDER BY key').all() as Array<{ key: string }>).map((r) => r.key);
    expect(keys).toEqual(['a', 'c']);
  });

  test('the first transaction of a batch (no savepoint of its own) that throws leaves no trace, and those after it commit once answered', async () => {
    const { store } = open();
    await store.transaction((tx) => tx.kv.set('before', '1'));
    const seen: string[] = [];
    const answered = (key: string) => () => {
      if (other!.prepare('SELECT 1 FROM kv WHERE key = ?').get(key) !== undefined) seen.push(key);
    };
    const results = await Promise.allSettled([
      store.transaction(async (tx) => {
        await tx.kv.set('a', '1');
        throw new Error('refused');
      }),
      store.transaction((tx) => tx.kv.set('b', '1')).then(answered('b')),
      store.transaction(async (tx) => {
        await tx.kv.set('c', '1');
        throw new Error('refused too');
      }),
      store.transaction((tx) => tx.kv.set('d', '1')).then(answered('d')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect(seen).toEqual(['b', 'd']);
    const keys = (other!.prepare('SELECT key FROM kv ORDER BY key').all() as Array<{ key: string }>).map((r) => r.key);
    expect(keys).toEqual(['b', 'before', 'd']);
    // The batch closed by the refusal leaves the store taking writes as before.
    await store.transaction((tx) => tx.kv.set('e', '1'));
    expect(await store.read((tx) => tx.kv.get('e'))).toBe('1');
  });

  test('a read never sees a write that is not committed yet, and sees every write already answered', async () => {
    const { store } = open();
    await store.transaction((tx) => tx.kv.set('x', 'before'));
    const write = store.transaction((tx) => tx.kv.set('x', 'written'));
    // Issued while the write's batch is still open: it reads the last commit, without waiting for the batch.
    const beside = store.read((tx) => tx.kv.get('x'));
    await write;
    expect(await beside).toBe('before');
    expect(await store.read((tx) => tx.kv.get('x'))).toBe('written');
  });
});

describe('the write-ahead log is copied back into the database file by a background thread, not by a commit', () => {
  test('a commit far below the automatic checkpoint size reaches the database file shortly after, with no further write', async () => {
    // Alone, it waits for its checkpoint up to the delay (10 s by default): 1 s here.
    const { store, path } = open({ checkpointDelayMs: 1000 });
    const before = statSync(path).size;
    // About 60 pages: SQLite's own checkpoint would wait for 1,000.
    await store.transaction(async (tx) => {
      for (let i = 0; i < 60; i++) await tx.kv.set(`page${i}`, 'x'.repeat(4000));
    });
    const deadline = Date.now() + 5000;
    // Until the data pages are in the file (the schema's own checkpoint may land first).
    while (statSync(path).size <= before + 60 * 4000 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(statSync(path).size).toBeGreaterThan(before + 60 * 4000);
  });

  test('a quiet file is checkpointed once for several commits, a busy one at the next tick', async () => {
    // Each checkpoint syncs the log and the file: a business among many hosted, a file each, was
    // checkpointed after every booking. Only checkpoints write the database file (the writer's own
    // are off), so its modification time counts them.
    const { store, path } = open({ checkpointDelayMs: 1500 });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const copies = () => statSync(path).mtimeMs;
    await store.transaction((tx) => tx.kv.set('schema', 'x'));
    // The file's first checkpoint (its schema, at the worker's first tick).
    for (let at = copies(), end = Date.now() + 5000; copies() === at && Date.now() < end; ) await sleep(20);
    await sleep(300);
    const quiet = copies();
    const syncedBefore = logSyncs();
    // Three commits, each 150 ms after the last (more than a tick apart): none copied back yet.
    // Before, each was copied back at the tick after it (three checkpoints).
    for (let i = 0; i < 3; i++) {
      await store.transaction((tx) => tx.kv.set(`quiet${i}`, 'x'.repeat(4000)));
      await sleep(150);
    }
    expect(copies()).toBe(quiet);
    // Yet they are on the disk within a tick: the worker synced the log (a power cut loses no
    // more than before the pacing).
    expect(logSyncs() - syncedBefore).toBeGreaterThan(0);
    // Copied back together once the first waited its delay (1.5 s here, 10 s by default).
    for (const end = Date.now() + 5000; copies() === quiet && Date.now() < end; ) await sleep(20);
    expect(copies()).not.toBe(quiet);
    await sleep(300);
    const busy = copies();
    // Eight commits (a busy file's tick): copied back at the next tick, not after the delay.
    for (let i = 0; i < 8; i++) await store.transaction((tx) => tx.kv.set(`busy${i}`, 'x'.repeat(4000)));
    const started = Date.now();
    while (copies() === busy && Date.now() - started < 5000) await sleep(10);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  test('a quiet file copied back keeps its log, so the next commit appends instead of starting it over; a long log starts over', async () => {
    // Starting the log over syncs its new header inside the COMMIT, on the event loop: a business
    // among many, copied back between two bookings, paid that sync on each (the hosting bench's
    // bookings across 1,000 businesses: 0.60-0.74x one business's, 0.83x with the log held).
    const { store, path } = open({ checkpointDelayMs: 200 });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const copies = () => statSync(path).mtimeMs;
    const copied = async (at: number) => {
      for (const end = Date.now() + 5000; copies() === at && Date.now() < end; ) await sleep(20);
      expect(copies()).not.toBe(at);
    };
    await store.transaction((tx) => tx.kv.set('schema', 'x'));
    await copied(0);
    await sleep(300);
    const restarts0 = walRestarts(path);
    for (let i = 0; i < 4; i++) {
      const at = copies();
      await store.transaction((tx) => tx.kv.set(`quiet${i}`, 'x'.repeat(4000)));
      // The commit appended to the log, which the last copy left whole.
      expect(walRestarts(path)).toBe(restarts0);
      await copied(at);
    }
    expect(other?.prepare("SELECT count(*) AS n FROM kv WHERE key LIKE 'quiet%'").get()).toEqual({ n: 4 });
    // A log of PIN_FRAMES or more is let go at its copy: a later commit starts it over.
    const size = statSync(path).size;
    await store.transaction(async (tx) => {
      for (let i = 0; i < PIN_FRAMES; i++) await tx.kv.set(`long${i}`, 'x'.repeat(4000));
    });
    // The file changes with the copy's first page, and the copy is complete only after its sync: a
    // commit before that appends (and is copied at a later tick), so a few tries on a loaded machine.
    for (const end = Date.now() + 10_000; statSync(path).size < size + PIN_FRAMES * 3000 && Date.now() < end; )
      await sleep(20);
    for (let i = 0; i < 20 && walRestarts(path) === restarts0; i++) {
      await sleep(300);
      await store.transaction((tx) => tx.kv.set(`after${i}`, 'x'));
    }
    expect(walRestarts(path)).toBe(restarts0 + 1);
  });

  test('writes that never pause still let the log start over, again and again, so it stays bounded', async () => {
    // 512 frames (2 MB) instead of 4,096 (16 MB), so that the test writes little. Each round of
    // eight transactions begins right after the last one's COMMIT, as the booking load does: the
    // worker's checkpoint is never complete when a write begins, so the log can start over only
    // when the writer waits for the worker to copy the rest.
    const { store, path } = open({ walRestartFrames: 512 });
    const value = 'x'.repeat(4000);
    // The worker thread is running once a first write reaches the database file.
    const before = statSync(path).size;
    await store.transaction((tx) => tx.kv.set('first', value));
    while (statSync(path).size <= before) await new Promise((r) => setTimeout(r, 20));
    const restarts0 = walRestarts(path);
    let n = 0;
    // About 40 MB through the log (a page per value, plus the b-tree's), over many of the worker's 100 ms ticks.
    while (n < 10_000) {
      await Promise.all(Array.from({ length: 8 }, () => store.transaction((tx) => tx.kv.set(`k${n++}`, value))));
    }
    // About 30 restarts here; without the writer's checkpoint, none or one, and a log of 57-63 MB.
    // 4-30 restarts here, by the machine's load; without the wait for the worker's copy, none or one.
    expect(walRestarts(path) - restarts0).toBeGreaterThanOrEqual(3);
    // The file keeps the longest the log ever was (nothing truncates it): 2-32 MB here, by the load
    // (the worker's ticks come later on a busy machine); without the restarts, 57-63 MB: every page written.
    expect(statSync(`${path}-wal`).size).toBeLessThan(40 * 1024 * 1024);
  });
});
