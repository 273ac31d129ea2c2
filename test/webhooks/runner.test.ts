/**
 * The webhook dispatcher runs on the shared leased runner (src/outbox/runner.ts), so every way an
 * attempt can end is recorded by the runner: a sender that throws (a fault of ours, not an HTTP
 * answer) is a failed attempt, retried on the spec's schedule and then given up. Before, the
 * dispatcher's own loop logged it as "could not be recorded" and left the delivery under its lease,
 * with no attempt on record, to be sent again only once the lease lapsed.
 */
import { describe, expect, it } from 'vitest';
import { WebhookDispatcher } from '../../src/webhooks/index.js';
import { openSqliteStore } from '../../src/store/index.js';
import { TEST_NOW, waitFor } from '../support/time.js';

describe('a webhook sender that throws', () => {
  it('is a failed attempt on record, retried on the schedule, then given up', async () => {
    const store = openSqliteStore({ path: ':memory:' });
    let now = TEST_NOW;
    const warnings: string[] = [];
    const dispatcher = new WebhookDispatcher({
      store,
      now: () => now,
      keyring: { active: () => undefined } as never,
      sender: {
        send: async () => {
          throw new Error('sender bug: cannot sign');
        },
      },
      retry: { firstRetryMs: 30_000, maxRetries: 1, maxTotalMs: 60_000 },
      resolveProfile: async () => {
        throw new Error('no profiles here');
      },
      allowLoopback: false,
      log: { info: () => undefined, warn: (m) => void warnings.push(m) },
      pollMs: 60_000,
    });
    try {
      await store.transaction((tx) =>
        tx.webhooks.add({
          event_id: 'evt_1',
          event: 'booking.confirmed',
          seq: 1,
          order_key: 'bkg_1',
          target_url: 'https://hooks.acme-platform.com/usp',
          subscription_id: null,
          body: '{}',
          next_attempt_ms: now,
          created_ms: now,
        }),
      );
      const delivery = async () => (await store.read((tx) => tx.webhooks.list({ limit: 10 })))[0];
      dispatcher.start();
      await waitFor(async () => (await delivery()).attempts === 1, 5000, 'the first attempt on record');
      const first = await delivery();
      expect(first).toMatchObject({
        status: 'pending',
        next_attempt_ms: TEST_NOW + 30_000,
        last_error: 'Error: sender bug: cannot sign',
      });
      expect(await store.read((tx) => tx.webhooks.attempts(first.id))).toMatchObject([
        { attempt: 1, at_ms: TEST_NOW, status_code: null },
      ]);

      now += 30_000;
      dispatcher.nudge();
      await waitFor(
        async () => (await delivery()).status === 'failed',
        5000,
        'the delivery given up after its one retry',
      );
      expect((await delivery()).attempts).toBe(2);
      expect(warnings).toEqual(['webhook delivery failed; it will be retried', 'webhook delivery failed for good']);
    } finally {
      await dispatcher.stop(0);
      await store.close();
    }
  });
});
