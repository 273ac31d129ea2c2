/**
 * Retention (the sweep's purgeRetained): what only grows with every booking, the outbox and the
 * booking-scoped credentials, is purged once it can no longer matter, in batches of short
 * transactions; pending events (a reminder scheduled for next month) and live credentials stay.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { openSqliteStore, type Store } from '../../src/store/index.js';
import { DEFAULT_EVENT_RETENTION_MS, purgeRetained } from '../../src/operations/sweep.js';
import { TEST_NOW as NOW } from '../support/time.js';

const DAY = 86_400_000;
let store: Store;
afterEach(() => store?.close());

const event = (i: number, dueMs: number) => ({
  event_id: `evt_${i}`,
  event: 'booking.confirmed',
  order_key: `bkg_${i}`,
  principal: 'P',
  profile: null,
  payload: { booking_id: `bkg_${i}` },
  created_ms: dueMs,
  due_ms: dueMs,
});

describe('the sweep purges dispatched events past their retention and expired credentials', () => {
  test('an old database is purged over several batches; pending events, recent events and live credentials stay', async () => {
    store = openSqliteStore({ path: ':memory:' });
    const OLD = 12_000;
    await store.transaction(async (tx) => {
      for (let i = 0; i < OLD; i++) await tx.outbox.add(event(i, NOW - 30 * DAY + i));
      await tx.outbox.add(event(OLD, NOW - DAY));
      for (let i = 0; i < OLD; i++) {
        await tx.security.putCredential({
          value_hash: `h${i}`,
          resource_kind: 'hold',
          resource_id: `hld_${i}`,
          jkt: null,
          principal: 'P',
          expires_ms: NOW - DAY,
          revoked: false,
        });
      }
      await tx.security.putCredential({
        value_hash: 'h_live',
        resource_kind: 'booking',
        resource_id: 'bkg_live',
        jkt: null,
        principal: 'P',
        expires_ms: NOW + DAY,
        revoked: false,
      });
    });
    // Everything due went out, except one old event still pending (its target was down).
    const due = await store.read((tx) => tx.outbox.due(NOW, 100_000));
    await store.transaction((tx) =>
      tx.outbox.markDispatched(due.filter((e) => e.event_id !== 'evt_7').map((e) => e.seq)),
    );
    await store.transaction((tx) => tx.outbox.add({ ...event(OLD + 1, NOW + 20 * DAY), event: 'booking.reminder' }));

    expect(await purgeRetained(store, NOW, DEFAULT_EVENT_RETENTION_MS)).toEqual({ events: OLD - 1, credentials: OLD });
    const left = (await store.read((tx) => tx.outbox.recent(100))).map((e) => e.event_id).sort();
    expect(left).toEqual([`evt_${OLD}`, `evt_${OLD + 1}`, 'evt_7']);
    expect(await store.read((tx) => tx.security.credential('h_live'))).not.toBeNull();
    expect(await store.read((tx) => tx.security.credential('h0'))).toBeNull();
    // A second sweep finds nothing more.
    expect(await purgeRetained(store, NOW, DEFAULT_EVENT_RETENTION_MS)).toEqual({ events: 0, credentials: 0 });
  });
});

describe('--event-retention-days reaches the running sweep', () => {
  test('serve --event-retention-days 2 purges a dispatched event of three days ago and keeps one of yesterday (the default of 7 would keep both)', async () => {
    const { createUspServer } = await import('../../src/server/compose.js');
    const { retentionOptions } = await import('../../src/server/cli/serve.js');
    const { ManualClock } = await import('../../src/operations/index.js');
    const { demoBusiness } = await import('../support/server.js');
    const opts = retentionOptions({ 'event-retention-days': '2' } as never);
    expect(opts.eventRetentionMs).toBe(2 * DAY);
    const server = await createUspServer({
      business: demoBusiness(),
      db: ':memory:',
      sandbox: true,
      clock: new ManualClock(NOW),
      sweepIntervalMs: 20,
      eventRetentionMs: opts.eventRetentionMs,
      webhooks: { enabled: false },
    });
    try {
      await server.store.transaction(async (tx) => {
        await tx.outbox.add(event(1, NOW - 3 * DAY));
        await tx.outbox.add(event(2, NOW - DAY));
      });
      const due = await server.store.read((tx) => tx.outbox.due(NOW, 10));
      await server.store.transaction((tx) => tx.outbox.markDispatched(due.map((e) => e.seq)));
      const ids = async () =>
        (await server.store.read((tx) => tx.outbox.recent(10)))
          .map((e) => e.event_id)
          .filter((id) => id === 'evt_1' || id === 'evt_2');
      const deadline = Date.now() + 5000;
      while ((await ids()).includes('evt_1') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(await ids()).toEqual(['evt_2']);
    } finally {
      await server.close();
    }
  });
});
