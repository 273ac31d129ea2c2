/**
 * Group commit on SQLite: write transactions that start in the same turn of the event loop share
 * one COMMIT, each after the first in its own savepoint. What callers can observe must not change: a transaction
 * is answered only once it is committed, one that throws leaves no trace and takes no neighbour
 * with it, and reads see committed data only (on a second connection, so they never queue behind writes).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { openSqliteStore, type Store } from '../../src/store/index.js';

let dir: string | undefined;
let store: Store | undefined;
let other: Database.Database | undefined;
afterEach(async () => {
  other?.close();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = store = other = undefined;
});

function open(): { store: Store; path: string } {
  dir = mkdtempSync(join(tmpdir(), 'usp-group-commit-'));
  const path = join(dir, 'usp.db');
  store = openSqliteStore({ path });
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
    const { store, path } = open();
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
});
