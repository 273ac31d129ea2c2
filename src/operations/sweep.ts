/**
 * Housekeeping that makes side effects timely; correctness never depends on it, because expiry
 * is also applied whenever a resource is read. Expires overdue pending bookings and waitlist
 * offers (raising their events and passing freed places on) and purges old idempotency records.
 */
import type { OutboxEvent, Store } from '../store/port.js';
import { expireIfDue } from './engine/bookings.js';
import { expireOfferIfDue } from './engine/waitlist.js';
import type { Business, Clock, IdSource, OperationContext } from './runtime.js';

export async function sweep(store: Store, biz: Business, clock: Clock, ids: IdSource, batch = 100): Promise<OutboxEvent[]> {
  const events: OutboxEvent[] = [];
  await store.transaction(async (tx) => {
    const now = clock.now();
    const ctx: OperationContext = {
      tx,
      now,
      biz,
      ids,
      caller: { principal: 'business', profile: null, business: true },
      issueCredential: async () => undefined,
      emit: (e) =>
        events.push({
          event_id: ids.next('evt'),
          event: e.event,
          order_key: e.orderKey,
          principal: e.principal,
          profile: e.profile ?? null,
          payload: e.payload,
          created_ms: now,
          due_ms: e.dueMs ?? now,
        }),
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
    for (const e of events) await tx.outbox.add(e);
  });
  return events;
}
