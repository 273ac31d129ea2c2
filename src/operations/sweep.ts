/**
 * Housekeeping that makes side effects timely; correctness never depends on it, because expiry
 * is also applied whenever a resource is read. Expires overdue pending bookings and waitlist
 * offers (raising their events and passing freed places on) and purges old idempotency records,
 * lapsed claims and proofs, dispatched outbox events past their retention and expired credentials.
 * The events it raises reach the scope's channels as a call's do (each writes its rows in the same
 * transaction, and is told once it committed); it names none of them.
 */
import type { OutboxEvent, Store, Tx } from '../store/index.js';
import { expireIfDue } from './bookings/lifecycle.js';
import { expireOfferIfDue } from './waitlist/offers.js';
import { outboxEvent, type OperationContext } from './core/context.js';
import type { Clock } from './core/clock.js';
import type { IdSource } from './core/ids.js';
import type { Business } from './business.js';
import type { EventChannels } from './core/channels.js';
import { erasePastBookings } from './retention.js';

/** Dispatched events are kept this long after they were due by default (spec-free: our own retention). */
export const DEFAULT_EVENT_RETENTION_MS = 7 * 86_400_000;

/** Rows one retention statement deletes: short transactions, so writes never wait long behind a purge. */
const PURGE_BATCH = 5_000;
/** Batches one sweep deletes at most per table (a first sweep of an old database spreads over several). */
const PURGE_ROUNDS = 20;

export interface SweepOptions {
  /** Rows per expiry batch (bookings, offers). */
  batch?: number;
  /** Keep dispatched and canceled outbox events this long after they were due (default 7 days). */
  eventRetentionMs?: number;
  /** Erase the people of bookings that ended longer ago than this (off when unset). */
  personalDataRetentionMs?: number;
}

/** What a sweep runs against: one scope's store, business and channels, and the clock and ids. */
export interface SweepTarget {
  store: Store;
  /** The business whose bookings and offers expire; absent for a role with none (the registry): only the purges run. */
  biz: Business | undefined;
  channels: EventChannels;
  clock: Clock;
  ids: IdSource;
}

/** One sweep; the events it raised, already handed to the channels. */
export async function sweep(target: SweepTarget, opts: SweepOptions = {}): Promise<OutboxEvent[]> {
  const { store, biz, channels, clock, ids } = target;
  const batch = opts.batch ?? 100;
  const events: OutboxEvent[] = [];
  const queued = { any: false };
  const swept = store.transaction(async (tx) => {
    events.length = 0; // the store may run this again after a deadlock
    queued.any = false;
    const now = clock.now();
    if (biz) await expireDue(tx, biz, ids, now, batch, events, queued);
    await tx.idempotency.purge(now);
    // Claims of past services and lapsed holds keep availability queries and re-checks fast.
    await tx.claims.purgeEnded(now - 86_400_000, now);
    await tx.security.purge(now);
    for (const e of events) await tx.outbox.add(e);
    await channels.write(tx, { biz, events, now });
  });
  // Nothing it wrote is kept: a channel forgets what it held for it.
  await swept.catch((err) => {
    channels.rolledBack(events);
    throw err;
  });
  // As after a call: a sweep that expired nothing wakes nobody.
  if (events.length > 0 || queued.any) channels.committed(events);
  await purgeRetained(store, clock.now(), opts.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS);
  if (biz && opts.personalDataRetentionMs !== undefined)
    await erasePastBookings(store, biz, clock, ids, opts.personalDataRetentionMs);
  return events;
}

/** Pending bookings and waitlist offers whose time ran out, expired as the business. */
async function expireDue(
  tx: Tx,
  biz: Business,
  ids: IdSource,
  now: number,
  batch: number,
  events: OutboxEvent[],
  queued: { any: boolean },
): Promise<void> {
  const ctx: OperationContext = {
    tx,
    now,
    biz,
    ids,
    caller: { principal: 'business', profile: null, business: true },
    issueCredential: async () => undefined,
    emit: (e) => void events.push(outboxEvent(e, ids, now)),
    queued: () => {
      queued.any = true;
    },
  };
  for (const id of await tx.bookings.expiredPending(now, batch)) {
    const rec = await tx.bookings.get(id);
    if (rec) await expireIfDue(ctx, rec);
  }
  for (const id of await tx.waitlist.expiredOffers(now, batch)) {
    const rec = await tx.waitlist.get(id);
    if (rec) await expireOfferIfDue(ctx, rec);
  }
}

/**
 * Retention for what only grows with every booking: outbox events dispatched (or canceled) longer
 * than `eventRetentionMs` ago, and credentials past their expiry, in batches of their own
 * transactions.
 */
export async function purgeRetained(
  store: Store,
  now: number,
  eventRetentionMs: number,
): Promise<{ events: number; credentials: number }> {
  const out = { events: 0, credentials: 0 };
  for (let i = 0; i < PURGE_ROUNDS; i++) {
    const n = await store.transaction((tx) => tx.outbox.purgeDispatched(now - eventRetentionMs, PURGE_BATCH));
    out.events += n;
    if (n < PURGE_BATCH) break;
  }
  for (let i = 0; i < PURGE_ROUNDS; i++) {
    const n = await store.transaction((tx) => tx.security.purgeCredentials(now, PURGE_BATCH));
    out.credentials += n;
    if (n < PURGE_BATCH) break;
  }
  return out;
}
