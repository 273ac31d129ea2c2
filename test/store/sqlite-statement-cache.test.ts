/**
 * What a SQLite connection keeps of its statements: each text once, prepared on its first use. A
 * hosted business builds about eight repositories as it opens and calls a few of their methods;
 * building one keeps nothing (its statements were made as it was built and entered in the cache,
 * 2.4 KB per business), and the methods are every store's (closures of each store before).
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { openSqliteStore } from '../../src/store/index.js';
import { Statements } from '../../src/store/sqlite/statements.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** A store in memory, and how many statement texts its connections keep for lookup. */
function watchedStore() {
  const caches = new Set<Statements>();
  const prepare = Statements.prototype.prepare;
  vi.spyOn(Statements.prototype, 'prepare').mockImplementation(function (this: Statements, sql: string) {
    caches.add(this);
    return prepare.call(this, sql);
  });
  const store = openSqliteStore({ path: ':memory:' });
  return { store, kept: () => [...caches].reduce((n, c) => n + c.kept, 0) };
}

describe("a SQLite connection's statements", () => {
  test('building repositories keeps and prepares none; a call prepares its text once, kept for the next call', async () => {
    const { store, kept } = watchedStore();
    try {
      const prepared = vi.spyOn(Database.prototype, 'prepare');
      const repos = await store.transaction(async (tx) => {
        // The repositories a hosted business builds as it opens.
        return [
          tx.outbox,
          tx.webhooks,
          tx.calendars,
          tx.catalog,
          tx.definition,
          tx.kv,
          tx.admin,
          tx.subscriptions,
        ] as const;
      });
      expect(kept()).toBe(0);
      expect(prepared).not.toHaveBeenCalled();
      await store.transaction(async (tx) => {
        await tx.kv.get('a');
        await tx.admin.scheduleChanges(['res_a', 'res_b']);
      });
      const first = prepared.mock.calls.length;
      expect(kept()).toBe(2);
      await store.transaction(async (tx) => {
        await tx.kv.get('b');
        await tx.admin.scheduleChanges(['res_c', 'res_d']);
      });
      expect(prepared.mock.calls.length).toBe(first);
      expect(kept()).toBe(2);
      // One set of methods for every store: another store's repository has the same functions.
      const other = openSqliteStore({ path: ':memory:' });
      try {
        const [outbox, calendars, admin, subscriptions] = await other.transaction(async (tx) => [
          tx.outbox,
          tx.calendars,
          tx.admin,
          tx.subscriptions,
        ]);
        expect(outbox.due).toBe(repos[0].due);
        expect(calendars.busy).toBe(repos[2].busy);
        expect(admin.hasUsers).toBe(repos[6].hasUsers);
        expect(subscriptions.active).toBe(repos[7].active);
      } finally {
        await other.close();
      }
    } finally {
      await store.close();
    }
  });

  test("what a business runs as it opens (its definition, feeds and push targets, its owner's set-up) keeps nothing", async () => {
    const { store, kept } = watchedStore();
    try {
      await store.transaction(async (tx) => {
        await tx.definition.entries();
        await tx.definition.clear();
        await tx.definition.bump();
        await tx.calendars.forgetFeedsExcept(['feed_a']);
        await tx.calendars.setPushTargets(['res_a']);
        await tx.admin.hasUsers();
      });
      expect(kept()).toBe(0);
    } finally {
      await store.close();
    }
  });
});
