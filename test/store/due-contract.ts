/**
 * `Store.nextDue` (src/store/shared/due.ts), run on both engines by sqlite.test.ts and
 * postgres.test.ts: an empty store has nothing due; each kind of queued work counts at its earliest
 * due instant, and work done (mail sent, a booking confirmed, an event dispatched) no longer counts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { booking, outboxEvent, waitlistEntry } from '../support/records.js';
import { TEST_NOW as NOW } from '../support/time.js';

/** A reminder queued for `due` (epoch ms), on the email channel unless another is named. */
export const queuedMail = (id: string, due: number, channel?: string) => ({
  id,
  kind: 'reminder',
  subject_id: 'bkg_d',
  recipient: 'ada@example.com',
  locale: null,
  payload: {},
  due_ms: due,
  created_ms: NOW,
  ...(channel ? { channel } : {}),
});

export function dueContract(name: string, open: () => Promise<Store>): void {
  describe(`the store says when its background work is next due (${name})`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store.close();
    });

    test('nothing queued: nothing due; each kind of work counts at its earliest instant, and done work not at all', async () => {
      expect(await store.nextDue()).toEqual({
        mail: null,
        events: null,
        deliveries: null,
        payments: null,
        pushes: null,
        expiries: null,
      });
      await store.transaction(async (tx) => {
        const mail = (id: string, due: number, channel?: string) => tx.mail.enqueue(queuedMail(id, due, channel));
        await mail('m_late', NOW + 9_000);
        await mail('m_early', NOW + 3_000);
        // A channel with no runner here is no reason to wake.
        await mail('m_sms', NOW + 1_000, 'sms');
        await tx.outbox.add(outboxEvent('evt_later', { due_ms: NOW + 7_000 }));
        await tx.outbox.add(outboxEvent('evt_soon', { due_ms: NOW + 4_000 }));
        await tx.webhooks.add({
          event_id: 'evt_soon',
          event: 'booking.confirmed',
          seq: 1,
          order_key: 'bkg_1',
          target_url: 'https://platform.example/hooks',
          subscription_id: null,
          body: '{}',
          next_attempt_ms: NOW + 5_000,
          created_ms: NOW,
        });
        await tx.payments.enqueue({
          id: 'pj_1',
          kind: 'refund',
          booking_id: 'bkg_p',
          payload: {},
          created_ms: NOW + 6_000,
        });
        await tx.calendars.setPushTargets(['res_alice']);
        await tx.bookings.insert(booking('bkg_pending', { status: 'pending', expiresAtMs: NOW + 8_000 }));
        await tx.bookings.insert(booking('bkg_kept', { status: 'confirmed' }));
        await tx.waitlist.insert(waitlistEntry('wl_1', { status: 'offered', offerExpiresMs: NOW + 2_000 }));
      });
      const due = await store.nextDue();
      expect({ ...due, pushes: undefined }).toEqual({
        mail: NOW + 3_000,
        events: NOW + 4_000,
        deliveries: NOW + 5_000,
        payments: NOW + 6_000,
        pushes: undefined,
        expiries: NOW + 2_000,
      });
      // The bookings on a pushed resource queued their pushes (the engine's trigger).
      expect(due.pushes).not.toBeNull();
      await store.transaction(async (tx) => {
        await tx.outbox.markDispatched(
          (await tx.outbox.due(NOW + 5_000, 10)).filter((e) => e.event_id === 'evt_soon').map((e) => e.seq),
        );
        await tx.waitlist.update(waitlistEntry('wl_1', { status: 'expired' }));
      });
      const after = await store.nextDue();
      expect([after.events, after.expiries]).toEqual([NOW + 7_000, NOW + 8_000]);
    });
  });
}
