/**
 * What a committed event costs the dispatcher in transactions: its expansion into deliveries and
 * the claim of those deliveries share one, and the attempt's record is the other. Before, the
 * expansion committed alone first, so each booking's events took three transactions; a business
 * hosted beside many others commits each of them alone (no group commit with its neighbours'), so
 * every transaction saved is a COMMIT saved per booking (docs/DECISIONS.md, "Deliveries expanded in
 * the claim's transaction").
 */
import Database, { type Statement } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, WebhookDispatcher } from '../../src/webhooks/index.js';
import { openSqliteStore, type Store } from '../../src/store/index.js';
import { outboxEvent } from '../support/records.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { BUYER, day, firstSlot, startWebhookServer } from './helpers.js';

const NOW = Date.parse('2026-12-01T17:00:00Z');

/** The store, counting its write transactions. */
function counted(real: Store) {
  const count = { transactions: 0 };
  const store = new Proxy(real, {
    get(target, key) {
      if (key === 'transaction')
        return <T>(fn: (tx: never) => Promise<T>) => {
          count.transactions++;
          return target.transaction(fn as never);
        };
      const v = Reflect.get(target, key);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { store, count };
}

describe('the dispatcher’s transactions per event', () => {
  it('one event to one platform: expanded and claimed in one transaction, its attempt recorded in another', async () => {
    const real = openSqliteStore({ path: ':memory:' });
    try {
      await real.transaction((tx) =>
        tx.outbox.add(outboxEvent('evt_1', { profile: 'https://agents.salon-partners.com/usp.json' })),
      );
      const { store, count } = counted(real);
      const sent: string[] = [];
      const due: string[] = [];
      const dispatcher = new WebhookDispatcher({
        store,
        now: () => NOW,
        keyring: { active: () => ({}) } as never,
        sender: {
          send: async (url) => {
            sent.push(url);
            return { status: 200, latencyMs: 1, error: null };
          },
        },
        retry: DEFAULT_RETRY,
        resolveProfile: async () => ({ webhook_url: 'https://hooks.salon-partners.com/usp' }) as never,
        allowLoopback: false,
        onDue: (e) => void due.push(e.event_id),
        log: { info: () => undefined, warn: () => undefined },
        pollMs: 60_000,
      });
      // The loop's first pass (start schedules it at once); nothing else nudges it.
      dispatcher.start();
      for (let i = 0; i < 200 && sent.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      await dispatcher.idle();
      await dispatcher.stop(0);
      expect(sent).toEqual(['https://hooks.salon-partners.com/usp']);
      // The MCP sessions were handed the event once its expansion committed.
      expect(due).toEqual(['evt_1']);
      const delivered = await real.read((tx) => tx.webhooks.list({ limit: 10 }));
      expect(delivered.map((d) => d.status)).toEqual(['delivered']);
      // One pass: the event expanded and its delivery claimed in one transaction, the attempt
      // recorded in a second (three before: the expansion committed alone first).
      expect(count.transactions).toBe(2);
      expect(await real.read((tx) => tx.outbox.due(NOW, 10))).toEqual([]);
    } finally {
      await real.close();
    }
  });
});

/**
 * Counts the write transactions (BEGIN IMMEDIATE to COMMIT) that the connections to one database
 * file run and that write to a booking's tables or its webhook's (the outbox, the deliveries and
 * attempts). Only that file's: the `doors` project shares one process among its files (isolate:
 * false), so a server an earlier file started may still be finishing its work when this one counts,
 * and CI counted such a transaction twice (3 for 2). The server's own other workers poll on their own
 * (payment jobs, calendar pushes), so only writes to those tables count.
 */
function countWrites(file: string): { readonly n: number; restore(): void } {
  const db = new Database(':memory:');
  const proto = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<
    'run' | 'get' | 'all',
    (this: Statement, ...args: unknown[]) => unknown
  >;
  db.close();
  const original = { run: proto.run, get: proto.get, all: proto.all };
  const count = { n: 0 };
  let open: { touched: boolean } | undefined;
  const BOOKING_OR_WEBHOOK = /\b(bookings|claims|outbox|webhook_deliveries|webhook_attempts)\b/;
  // A write to them that changed a row: a dispatcher pass that found nothing to do (asked for again
  // as an attempt ends, when the claim could not tell that nothing was left) writes nothing.
  const WRITES = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;
  const changed = (m: 'run' | 'get' | 'all', result: unknown) =>
    m === 'run'
      ? (result as { changes: number }).changes > 0
      : m === 'get'
        ? result !== undefined
        : (result as unknown[]).length > 0;
  for (const m of ['run', 'get', 'all'] as const)
    proto[m] = function (this: Statement, ...args: unknown[]) {
      if (this.database.name !== file) return original[m].apply(this, args);
      if (this.source === 'BEGIN IMMEDIATE') open = { touched: false };
      else if (this.source === 'COMMIT') {
        if (open?.touched) count.n++;
        open = undefined;
      }
      const result = original[m].apply(this, args);
      if (open && WRITES.test(this.source) && BOOKING_OR_WEBHOOK.test(this.source) && changed(m, result))
        open.touched = true;
      return result;
    };
  return {
    get n() {
      return count.n;
    },
    restore: () => void Object.assign(proto, original),
  };
}

describe('a booking and its webhook delivery, in write transactions', () => {
  it('the booking leases its delivery in its own transaction: two in all, the booking and the attempt’s record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usp-pass-tx-'));
    const rx = await startWebhookReceiver();
    // No poll: only the booking's commit starts the dispatcher (the work hub's way in `host serve`).
    const file = join(dir, 'business.db');
    const t = await startWebhookServer({ db: file, pollMs: 0 });
    const writes = countWrites(file);
    try {
      const profile = t.platform('counted', rx.url('/hooks'));
      const slot = await firstSlot(t, 'svc_haircut', day(2), profile);
      const before = writes.n;
      const r = await t.call(
        'POST',
        '/bookings',
        { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER },
        profile,
      );
      expect(r.status).toBe(201);
      await rx.waitFor((reqs) => reqs.length > 0, 5000, 'the booking’s webhook');
      await t.server.dispatcher.idle();
      const deliveries = await t.server.store.read((tx) => tx.webhooks.list({ limit: 10 }));
      expect(deliveries.map((d) => d.status)).toEqual(['delivered']);
      // The booking (its event expanded and its delivery leased with it) and the attempt's record:
      // three before (the dispatcher claimed in a transaction of its own), each a COMMIT alone for a
      // business hosted beside many others.
      expect(writes.n - before).toBe(2);
    } finally {
      writes.restore();
      await t.close();
      await rx.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
