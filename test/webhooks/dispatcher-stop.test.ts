/**
 * A stop that lands while the dispatcher is claiming due deliveries: the claim commits (the rows
 * are leased), and the stop must release those leases with the rest, not leave them held until
 * they lapse (CI once found one still leased after a SIGTERM under a burst of bookings).
 */
import { describe, expect, it } from 'vitest';
import { WebhookDispatcher, DEFAULT_RETRY } from '../../src/webhooks/index.js';
import { openSqliteStore, type Store } from '../../src/store/index.js';

const NOW = Date.parse('2026-12-01T17:00:00Z');

/** The store, with every transaction that claimed deliveries held back after its COMMIT until `open()`. */
function heldAfterClaim(real: Store) {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  let claimed!: () => void;
  const claimCommitted = new Promise<void>((r) => (claimed = r));
  const store = new Proxy(real, {
    get(target, key) {
      if (key === 'transaction') {
        return <T>(fn: (tx: any) => Promise<T>) => {
          // What the claim in this transaction leased (whatever else the transaction returns).
          let claims: Promise<unknown[]> | undefined;
          const watch = (tx: any) =>
            new Proxy(tx, {
              get(t, k) {
                if (k !== 'webhooks') return t[k];
                return new Proxy(t.webhooks, {
                  get(w, m) {
                    const v = w[m];
                    if (m === 'claimDue') return (...a: unknown[]) => (claims = v.apply(w, a));
                    return typeof v === 'function' ? v.bind(w) : v;
                  },
                });
              },
            });
          return target
            .transaction((tx) => fn(watch(tx)))
            .then(async (out) => {
              if (claims && (await claims).length > 0) {
                claimed();
                await gate;
              }
              return out;
            });
        };
      }
      const v = Reflect.get(target, key);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { store, open, claimCommitted };
}

describe('stop() during a claim of due deliveries', () => {
  it('releases the leases the claim just took: another worker can claim the delivery at once', async () => {
    const real = openSqliteStore({ path: ':memory:' });
    try {
      await real.transaction((tx) =>
        tx.webhooks.add({
          event_id: 'evt_1',
          event: 'booking.confirmed',
          seq: 1,
          order_key: 'bkg_1',
          target_url: 'https://platform.example/hooks',
          subscription_id: null,
          body: '{}',
          next_attempt_ms: NOW,
          created_ms: NOW,
        }),
      );
      const held = heldAfterClaim(real);
      const warnings: string[] = [];
      const dispatcher = new WebhookDispatcher({
        store: held.store,
        now: () => NOW,
        keyring: {} as never,
        sender: { send: async () => ({ status: 200, latencyMs: 0, error: null }) },
        retry: DEFAULT_RETRY,
        resolveProfile: async () => {
          throw new Error('no profiles here');
        },
        allowLoopback: false,
        log: { info: () => undefined, warn: (m) => void warnings.push(m) },
        pollMs: 60_000,
      });
      dispatcher.start();
      await held.claimCommitted; // leased in the database; the dispatcher has not seen the answer yet
      const stopped = dispatcher.stop(200);
      held.open();
      await stopped;
      const again = await real.transaction((tx) => tx.webhooks.claimDue(NOW, 10, NOW + 60_000, []));
      expect(again.map((d) => d.event_id)).toEqual(['evt_1']);
      expect(warnings).toEqual([]);
    } finally {
      await real.close();
    }
  });
});
