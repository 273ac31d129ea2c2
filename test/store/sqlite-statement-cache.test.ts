/**
 * What a SQLite connection keeps of its statements: a repository keeps the statements it prepares
 * as it is built (its own fields), so the connection's cache keeps only the texts looked up on each
 * call (an IN list of n values, optional filters). A hosted business builds about eight
 * repositories as it opens: the statements they prepared through the cache were entered in the cache too (2.4 KB each).
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { openSqliteStore } from '../../src/store/index.js';
import { Statements } from '../../src/store/sqlite/statements.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a SQLite connection's statement cache", () => {
  test('keeps a text looked up on each call once, and none a repository prepared as it was built', async () => {
    const caches = new Set<Statements>();
    const prepare = Statements.prototype.prepare;
    const building: number[] = [];
    vi.spyOn(Statements.prototype, 'prepare').mockImplementation(function (this: Statements, sql: string) {
      caches.add(this);
      building.push(this.building);
      return prepare.call(this, sql);
    });
    const store = openSqliteStore({ path: ':memory:' });
    try {
      await store.transaction(async (tx) => {
        // Repositories a hosted business builds as it opens, and one call-dependent text.
        void [tx.outbox, tx.webhooks, tx.calendars, tx.catalog, tx.definition, tx.kv, tx.subscriptions];
        await tx.admin.scheduleChanges(['res_a', 'res_b']);
        await tx.admin.scheduleChanges(['res_c', 'res_d']);
      });
      expect(building.filter((b) => b > 0).length).toBeGreaterThan(20);
      expect([...caches].reduce((n, c) => n + c.kept, 0)).toBe(1);
    } finally {
      await store.close();
    }
  });
});
