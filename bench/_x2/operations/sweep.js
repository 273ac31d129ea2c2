import { expireIfDue } from './engine/bookings.js';
import { expireOfferIfDue } from './engine/waitlist.js';
export async function sweep(store, biz, clock, ids, batch = 100) {
    const events = [];
    await store.transaction(async (tx) => {
        const now = clock.now();
        const ctx = {
            tx,
            now,
            biz,
            ids,
            caller: { principal: 'business', profile: null, business: true },
            issueCredential: async () => undefined,
            emit: (e) => events.push({
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
            if (rec)
                await expireIfDue(ctx, rec);
        }
        for (const id of await tx.waitlist.expiredOffers(now, batch)) {
            const rec = await tx.waitlist.get(id);
            if (rec)
                await expireOfferIfDue(ctx, rec);
        }
        await tx.idempotency.purge(now);
        for (const e of events)
            await tx.outbox.add(e);
    });
    return events;
}
//# sourceMappingURL=sweep.js.map