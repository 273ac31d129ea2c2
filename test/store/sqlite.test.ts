/**
 * The embedded SQLite store: the shared Store contract on an in-memory and on a file database,
 * then what only SQLite has (schema migrations recorded in the file, WAL journaling).
 */
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { openSqliteStore } from '../../src/store/index.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { dueDeliveriesQuery } from '../../src/store/shared/sql.js';
import { SQLITE_DIALECT } from '../../src/store/sqlite/statements.js';
import { storeContract } from './contract.js';
import { dueContract, queuedMail } from './due-contract.js';
import { frontDeskContract } from './frontdesk-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'usp-store-'));
let files = 0;
const freshFile = () => join(dir, `store-${++files}.db`);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

storeContract('sqlite :memory:', async () => openSqliteStore({ path: ':memory:' }));
dueContract('sqlite :memory:', async () => openSqliteStore({ path: ':memory:' }));
storeContract('sqlite file', async () => openSqliteStore({ path: freshFile() }));
dueContract('sqlite file', async () => openSqliteStore({ path: freshFile() }));

test('a file store answers when work is due again from memory until a commit, its own or another process’s', async () => {
  // The work hub asks every loaded business every few seconds: seven indexed reads each time before.
  const path = freshFile();
  const sql: string[] = [];
  const store = openSqliteStore({ path, onStatement: (s) => sql.push(s) });
  const other = openSqliteStore({ path });
  const reads = () => sql.filter((s) => s.includes('MIN(due_ms) FROM mail_messages')).length;
  const enqueue = (id: string, due: number) => (tx: Parameters<Parameters<typeof store.transaction>[0]>[0]) =>
    tx.mail.enqueue(queuedMail(id, due));
  try {
    expect((await store.nextDue()).mail).toBeNull();
    expect((await store.nextDue()).mail).toBeNull();
    expect(reads()).toBe(1);
    await store.transaction(enqueue('mail_1', 5_000));
    expect((await store.nextDue()).mail).toBe(5_000);
    await other.transaction(enqueue('mail_2', 4_000));
    expect((await store.nextDue()).mail).toBe(4_000);
    expect(await store.nextDue()).toMatchObject({ mail: 4_000, events: null });
    expect(reads()).toBe(3);
  } finally {
    await other.close();
    await store.close();
  }
});
frontDeskContract('sqlite :memory:', async () => openSqliteStore({ path: ':memory:' }));

describe('SQLite file databases keep their schema and data across opens', () => {
  test('reopening the same file keeps its data and runs each migration only once', async () => {
    const path = freshFile();
    const first = openSqliteStore({ path });
    await first.transaction(async (tx) => {
      await tx.kv.set('k', 'kept');
      await tx.catalog.upsert({
        id: 'svc_a',
        data: { id: 'svc_a' },
        fingerprint: 'fp',
        modified_ms: 1,
        deleted: false,
      });
    });
    await first.close();

    const second = openSqliteStore({ path });
    try {
      expect(await second.read((tx) => tx.kv.get('k'))).toBe('kept');
      expect((await second.read((tx) => tx.catalog.all())).map((s) => s.id)).toEqual(['svc_a']);
    } finally {
      await second.close();
    }

    const raw = new Database(path, { readonly: true });
    try {
      const versions = raw.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as Array<{
        version: number;
      }>;
      expect(versions.map((v) => v.version)).toEqual(SQLITE_MIGRATIONS.map((_, i) => i + 1));
    } finally {
      raw.close();
    }
  });

  test('a file database runs in WAL mode', async () => {
    const path = freshFile();
    const store = openSqliteStore({ path });
    try {
      await store.transaction((tx) => tx.kv.set('k', 'v'));
      // WAL is a persistent property of the file: a second connection reports it.
      const raw = new Database(path, { readonly: true });
      try {
        expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        raw.close();
      }
      expect(existsSync(`${path}-wal`)).toBe(true);
    } finally {
      await store.close();
    }
  });

  test('opening a file in a directory that does not exist yet creates the directory', async () => {
    const path = join(dir, 'nested', 'deeper', 'store.db');
    const store = openSqliteStore({ path });
    try {
      await store.transaction((tx) => tx.kv.set('k', 'v'));
      expect(existsSync(path)).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe('SQLite query plans stay bounded as the data grows', () => {
  /** EXPLAIN QUERY PLAN of `sql` on a migrated file database. */
  async function planOf(sql: string, args: unknown[]): Promise<string> {
    const path = freshFile();
    await openSqliteStore({ path }).close();
    const raw = new Database(path, { readonly: true });
    try {
      return (raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as Array<{ detail: string }>)
        .map((r) => r.detail)
        .join('\n');
    } finally {
      raw.close();
    }
  }

  test('due webhook deliveries are read in order from an index, never sorted (a backlog sharing one due time cost a sort of all of it per lease)', async () => {
    const { sql, args } = dueDeliveriesQuery(SQLITE_DIALECT, 1_000, 8);
    const plan = await planOf(sql, args);
    expect(plan).toMatch(/USING INDEX deliveries_due_order/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });

  test('retention purges find old dispatched events and expired credentials through indexes, not by reading every row', async () => {
    expect(
      await planOf(`SELECT seq FROM outbox WHERE status IN ('dispatched', 'canceled') AND due_ms < ? LIMIT ?`, [1, 10]),
    ).toMatch(/USING (COVERING )?INDEX outbox_due/);
    expect(await planOf('SELECT value_hash FROM credentials WHERE expires_ms < ? LIMIT ?', [1, 10])).toMatch(
      /USING INDEX credentials_expiry/,
    );
  });
});
