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
        await tx.security.putCredential({ value_hash: `h${i}`, resource_kind: 'hold', resource_id: `hld_${i}`, jkt: null, principal: 'P', expires_ms: NOW - DAY, revoked: false });
      }
      await tx.security.putCredential({ value_hash: 'h_live', resource_kind: 'booking', resource_id: 'bkg_live', jkt: null, principal: 'P', expires_ms: NOW + DAY, revoked: false });
    });
    // Everything due went out, except one old event still pending (its target was down).
    const due = await store.read((tx) => tx.outbox.due(NOW, 100_000));
    await store.transaction((tx) => tx.outbox.markDispatched(due.filter((e) => e.event_id !== 'evt_7').map((e) => e.seq)));
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
