/**
 * Keep the stored catalog in step with the business definition: a service that appeared, changed,
 * was suspended or archived, or disappeared since the last publication gets a new `modified_at` (the
 * feed) and a catalog event, in the transaction that changed it (at start, an import, an admin edit).
 */
import { createHash } from 'node:crypto';
import { publishService, type BusinessDef } from '../domain/index.js';
import type { OutboxEvent, Store, Tx } from '../store/index.js';
import type { Clock } from './core/clock.js';
import type { IdSource } from './core/ids.js';
import type { Business } from './business.js';

/** Raises one catalog event (`service.created`, ...) for a service, with the published service as data. */
export type CatalogEventSink = (
  event: string,
  serviceId: string,
  data: Record<string, unknown>,
) => Promise<void> | void;

/** Republish what changed between the stored catalog and `published`, raising an event per change. */
export async function publishCatalog(
  tx: Tx,
  published: ReadonlyMap<string, Record<string, unknown>>,
  now: number,
  raise: CatalogEventSink,
): Promise<void> {
  const stored = new Map((await tx.catalog.all()).map((s) => [s.id, s] as const));
  for (const [id, svc] of published) {
    const fingerprint = createHash('sha256').update(JSON.stringify(svc)).digest('base64url');
    const prev = stored.get(id);
    stored.delete(id);
    if (prev && !prev.deleted && prev.fingerprint === fingerprint) continue;
    await tx.catalog.upsert({ id, data: svc, fingerprint, modified_ms: now, deleted: false });
    const status = svc.status as string | undefined;
    if (!prev || prev.deleted) await raise('service.created', id, svc);
    // Archived: no new bookings, existing ones stand; the spec's event for a service withdrawn from sale.
    else if (status === 'archived' && prev.data.status !== 'archived') await raise('service.deleted', id, svc);
    else if (status === 'suspended' && prev.data.status !== 'suspended') await raise('service.suspended', id, svc);
    else await raise('service.updated', id, svc);
  }
  for (const prev of stored.values()) {
    if (prev.deleted) continue;
    await tx.catalog.upsert({ ...prev, modified_ms: now, deleted: true });
    await raise('service.deleted', prev.id, prev.data);
  }
}

/** A catalog event as the outbox keeps it: ordered by service, for every subscriber (no owner), due now. */
export function catalogEvent(
  ids: IdSource,
  now: number,
  event: string,
  serviceId: string,
  data: Record<string, unknown>,
): OutboxEvent {
  return {
    event_id: ids.next('evt'),
    event,
    order_key: serviceId,
    principal: null,
    profile: null,
    payload: { service_id: serviceId, data },
    created_ms: now,
    due_ms: now,
  };
}

/** The published services of a definition, by id. */
export function publishedOf(def: BusinessDef): Map<string, Record<string, unknown>> {
  return new Map(
    def.services.map((s) => [s.id, publishService(s, def) as unknown as Record<string, unknown>] as const),
  );
}

/**
 * Publish the catalog the business serves now (`business()` is read inside the transaction, so a
 * retry, and every later sync, takes the latest snapshot: the one after an edit, a suspension or its
 * end), returning the events raised for the caller to announce after the commit.
 */
export async function syncCatalog(
  store: Store,
  business: () => Business,
  clock: Clock,
  ids: IdSource,
): Promise<OutboxEvent[]> {
  const events: OutboxEvent[] = [];
  await store.transaction(async (tx) => {
    events.length = 0; // the store may run this again after a deadlock
    const now = clock.now();
    await publishCatalog(
      tx,
      business().published as unknown as ReadonlyMap<string, Record<string, unknown>>,
      now,
      (event, serviceId, data) => {
        const e = catalogEvent(ids, now, event, serviceId, data);
        events.push(e);
        return tx.outbox.add(e);
      },
    );
  });
  return events;
}
