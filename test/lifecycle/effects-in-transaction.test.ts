/**
 * Entering a status does its effects inside the operation's transaction: a store error while
 * freeing the slot of a completed booking fails the operation and commits nothing, rather than
 * leaving a completed booking that still holds its slot.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Tx } from '../../src/store/index.js';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';

const admin = (t: TestServer, method: string, path: string, body?: unknown) =>
  t.call(method, path, body, { apiKey: ADMIN_KEY, profile: null });

/** Make every transaction's `claims.removeOwner` fail while `broken.on` is set. */
function breakRemoveOwner(t: TestServer): { on: boolean } {
  const broken = { on: false };
  const store = t.server.store;
  const transaction = store.transaction.bind(store);
  store.transaction = <T>(fn: (tx: Tx) => Promise<T>) =>
    transaction((tx) => {
      if (!broken.on) return fn(tx);
      const claims = new Proxy(tx.claims, {
        get: (target, key, recv) =>
          key === 'removeOwner'
            ? async () => Promise.reject(new Error('disk I/O error'))
            : Reflect.get(target, key, recv),
      });
      return fn(
        new Proxy(tx, { get: (target, key, recv) => (key === 'claims' ? claims : Reflect.get(target, key, recv)) }),
      );
    });
  return broken;
}

describe('a store error while a booking enters a final status', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  it('completing a booking whose slot cannot be freed fails with server_error and the booking stays in_progress', async () => {
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(2),
      end_date: day(2),
    });
    const made = await t.call('POST', '/bookings', {
      service_id: 'svc_haircut',
      slot_id: q.body.slots[0].id,
      buyer: BUYER,
    });
    expect(made.body.booking.status).toBe('confirmed');
    const id = made.body.booking.id;
    expect((await admin(t, 'POST', `/admin/bookings/${id}/start`)).body.booking.status).toBe('in_progress');
    const broken = breakRemoveOwner(t);
    broken.on = true;
    const r = await admin(t, 'POST', `/admin/bookings/${id}/complete`);
    broken.on = false;
    expect(r.status).toBe(500);
    expect(r.body.code).toBe('server_error');
    const after = await t.call('GET', `/bookings/${id}`);
    expect(after.body.booking.status).toBe('in_progress');
    const events = await t.server.store.read((tx) => tx.outbox.recent(100));
    expect(events.filter((e) => e.order_key === id).map((e) => e.event)).not.toContain('booking.completed');
    // Once the store answers again, the same move goes through and frees the slot.
    expect((await admin(t, 'POST', `/admin/bookings/${id}/complete`)).body.booking.status).toBe('completed');
  });
});
