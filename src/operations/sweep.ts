/**
 * Housekeeping that makes side effects timely; correctness never depends on it, because expiry
 * is also applied whenever a resource is read. Expires overdue pending bookings and waitlist
 * offers (raising their events and passing freed places on) and purges old idempotency records.
 */
import type { OutboxEvent, Store } from '../store/index.js';
import { expireIfDue } from './steps/booking-lifecycle.js';
import { expireOfferIfDue } from './steps/waitlist-offers.js';
import { outboxEvent, type OperationContext } from './context.js';
import type { Clock } from './clock.js';
import type { IdSource } from './ids.js';
import type { Business } from './business.js';

export async function sweep(store: Store, biz: Business, clock: Clock, ids: IdSource, batch = 100): Promise<OutboxEvent[]> {
  const events: OutboxEvent[] = [];
  await store.transaction(async (tx) => {
    events.length = 0; // the store may run this again after a deadlock
    const now = clock.now();
    const ctx: OperationContext = {
      tx,
      now,
      biz,
      ids,
      caller: { principal: 'business', profile: null, business: true },
      issueCredential: async () => undefined,
      emit: (e) => void events.push(outboxEvent(e, ids, now)),
    };
    for (const id of await tx.bookings.expiredPending(now, batch)) {
      const rec = await tx.bookings.get(id);
      if (rec) await expireIfDue(ctx, rec);
    }
    for (const id of await tx.waitlist.expiredOffers(now, batch)) {
      const rec = await tx.waitlist.get(id);
      if (rec) await expireOfferIfDue(ctx, rec);
    }
    await tx.idempotency.purge(now);
    // Claims of past services and lapsed holds keep availability queries and re-checks fast.
    await tx.claims.purgeEnded(now - 86_400_000, now);
    await tx.security.purge(now);
    for (const e of events) await tx.outbox.add(e);
  });
  return events;
}
