/**
 * Keep the stored catalog in step with the business file: a service that appeared, changed,
 * was suspended or disappeared since the last run gets a new `modified_at` (the feed) and a
 * catalog event in the outbox, in one transaction.
 */
import { createHash } from 'node:crypto';
import type { OutboxEvent, Store } from '../store/index.js';
import type { Clock } from './clock.js';
import type { IdSource } from './ids.js';
import type { Business } from './business.js';

export async function syncCatalog(store: Store, biz: Business, clock: Clock, ids: IdSource): Promise<OutboxEvent[]> {
  const events: OutboxEvent[] = [];
  await store.transaction(async (tx) => {
    events.length = 0; // the store may run this again after a deadlock
    const now = clock.now();
    const stored = new Map((await tx.catalog.all()).map((s) => [s.id, s] as const));
    const raise = (event: string, serviceId: string, data: Record<string, unknown>) => {
      const e: OutboxEvent = {
        event_id: ids.next('evt'),
        event,
        order_key: serviceId,
        principal: null,
        profile: null,
        payload: { service_id: serviceId, data },
        created_ms: now,
        due_ms: now,
      };
      events.push(e);
      return tx.outbox.add(e);
    };
    for (const [id, svc] of biz.published) {
      const fingerprint = createHash('sha256').update(JSON.stringify(svc)).digest('base64url');
      const prev = stored.get(id);
      stored.delete(id);
      if (prev && !prev.deleted && prev.fingerprint === fingerprint) continue;
      await tx.catalog.upsert({ id, data: svc, fingerprint, modified_ms: now, deleted: false });
      if (!prev || prev.deleted) await raise('service.created', id, svc);
      else if (svc.status === 'suspended' && prev.data.status !== 'suspended') await raise('service.suspended', id, svc);
      else await raise('service.updated', id, svc);
    }
    for (const prev of stored.values()) {
      if (prev.deleted) continue;
      await tx.catalog.upsert({ ...prev, modified_ms: now, deleted: true });
      await raise('service.deleted', prev.id, prev.data);
    }
  });
  return events;
}
