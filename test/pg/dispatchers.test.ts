/**
 * Webhook dispatchers of several processes on one PostgreSQL database: each due event is expanded
 * into its deliveries by one of them. Before, every dispatcher read the same pending events and
 * expanded them all, the losers' inserts discarded by ON CONFLICT: the more processes, the more work
 * per booking. Skipped, with the reason in the title, when no PostgreSQL URL is set.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { DEFAULT_RETRY, WebhookDispatcher } from '../../src/webhooks/index.js';
import { outboxEvent } from '../support/records.js';
import { TEST_NOW } from '../support/time.js';
import { PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from './helpers.js';

const title = (what: string) => (PG_URL ? what : noteSkipped(what));

describe.skipIf(!PG_URL)(title('two processes’ webhook dispatchers on one PostgreSQL database'), () => {
  const schema = schemaName('usp_dispatchers');
  const inserts: string[] = [];
  const stores: Store[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      stores.push(
        await openPostgresStore({
          url: urlWithSchema(schema),
          onStatement: (sql) => void (/INSERT INTO webhook_deliveries/.test(sql) && inserts.push(sql)),
        }),
      );
    }
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await dropSchema(schema);
  });

  const dispatcher = (store: Store) =>
    new WebhookDispatcher({
      store,
      now: () => TEST_NOW,
      keyring: {} as never,
      sender: { send: async () => ({ status: 200, latencyMs: 0, error: null }) },
      retry: DEFAULT_RETRY,
      resolveProfile: async () => ({ webhook_url: null }) as never,
      allowLoopback: false,
      log: { info: () => undefined, warn: () => undefined },
      pollMs: 60_000,
    });

  test('passes run at once expand each due event once, and every event is dispatched', async () => {
    const n = 30;
    await stores[0].transaction(async (tx) => {
      for (let i = 0; i < n; i++) await tx.outbox.add(outboxEvent(`evt_d${i}`, { order_key: `bkg_d${i}` }));
    });
    inserts.length = 0;
    const [a, b] = stores.map(dispatcher);
    await Promise.all([a.tick(), b.tick()]);
    await Promise.all([a.idle(), b.idle()]);
    // One expansion's deliveries are one statement, a VALUES list of one row each: n rows in all.
    const rows = inserts.map((q) => q.slice(q.indexOf(' VALUES ')).split(/\)\s*,\s*\(/).length);
    expect(rows.reduce((a, r) => a + r, 0)).toBe(n);
    expect(await stores[1].read((tx) => tx.outbox.due(TEST_NOW, 100))).toEqual([]);
    await a.stop(0);
    await b.stop(0);
  });
});
