/**
 * The storage port. Asynchronous on purpose: SQLite (synchronous driver) and PostgreSQL
 * (asynchronous driver) sit behind the same interface. A transaction is an async function that
 * receives the repositories; it commits when the function resolves and rolls back when it throws.
 * Check-and-reserve (availability re-validation and the claim that books it) always happens inside
 * one transaction.
 */
import type { RegistryRepo } from './registry-port.js';
import type { AdminRepo } from './admin-port.js';
import {
  isoUtc,
  type BookingRecord,
  type HoldRecord,
  type SubscriptionRecord,
  type WaitlistRecord,
  type WaitlistStatus,
  type CredentialKind,
} from '../domain/index.js';

/** A resource occupied by a booking or an active hold over its blocked interval (buffers included). */
import type { AccountRepo, OAuthRepo } from './oauth-port.js';
import type { PaymentRepo } from './payment-port.js';
import type { MailRepo } from './mail-port.js';
import type { DefinitionRepo } from './definition-port.js';
import type { FrontDeskRepo } from './frontdesk-port.js';
import type { CalendarRepo } from './calendar-port.js';
import type { OutboxEvent } from './outbox-event.js';

import type { DueTimes } from './shared/due.js';

export type { OutboxEvent };

export interface ClaimRow {
  resource_id: string;
  start_ms: number;
  end_ms: number;
  slot_key: string;
  owner_id: string;
  spots: number;
  is_hold: boolean;
  service_id: string;
  /** When the claim stops counting by itself (holds, pending bookings); null = until removed. */
  expires_at_ms: number | null;
}

export interface ClaimRepo {
  /** Claims on any of the resources overlapping [fromMs, toMs) that have not expired at nowMs. */
  active(resourceIds: readonly string[], fromMs: number, toMs: number, nowMs: number): Promise<ClaimRow[]>;
  add(rows: readonly ClaimRow[]): Promise<void>;
  removeOwner(ownerId: string): Promise<void>;
  /** Hand a hold's claims to the booking made from it (same resources and interval). */
  transfer(fromOwner: string, toOwner: string, expiresAtMs: number | null): Promise<void>;
  setExpiry(ownerId: string, expiresAtMs: number | null): Promise<void>;
  /** Forget claims that can no longer matter: ended before `endedBeforeMs`, or expired by `nowMs`. */
  purgeEnded(endedBeforeMs: number, nowMs: number): Promise<number>;
  /**
   * The availability version of these resources: a number that changes (it only grows) whenever a
   * transaction that changed one of their claims or run-time schedule changes commits. The store
   * bumps it in that same transaction, whatever wrote the rows, so an answer computed in a snapshot
   * that read version v is the answer for as long as the version still reads v (cached availability).
   */
  version(resourceIds: readonly string[]): Promise<number>;
}

export interface BookingRepo {
  get(id: string): Promise<BookingRecord | null>;
  byHold(holdId: string): Promise<BookingRecord | null>;
  insert(rec: BookingRecord): Promise<void>;
  update(rec: BookingRecord): Promise<void>;
  /** Most recently created first (for the business's own tools). */
  recent(limit: number, status?: string): Promise<BookingRecord[]>;
  /** Ids of pending / requires_action bookings whose expiry passed (for the sweeper). */
  expiredPending(
    nowMs: number,
    limit: number,
  ): Promise<string[]> /** Counts an operator watches (metrics, read at scrape time): each is one indexed count. */;
  gauges(nowMs: number): Promise<StoreGauges>;
}

/** What the store holds right now, as an operator sees it. */
export interface StoreGauges {
  /** Bookings per status (statuses with none are absent). */
  bookings_by_status: Record<string, number>;
  /** Holds still active and not yet expired. */
  active_holds: number;
  /** Outbox events due and not yet dispatched (the dispatcher's backlog). */
  outbox_due: number;
  /** Webhook deliveries waiting for an attempt (due or scheduled for a retry). */
  deliveries_pending: number;
  /** Of those, the ones a worker holds a lease on right now. */
  deliveries_leased: number;
}

export interface HoldRepo {
  get(id: string): Promise<HoldRecord | null>;
  insert(rec: HoldRecord): Promise<void>;
  update(rec: HoldRecord): Promise<void>;
  /** Active, unexpired holds a principal has for one buyer on one service (hold-abuse limit). */
  countActive(principal: string | null, buyerKey: string | null, serviceId: string, nowMs: number): Promise<number>;
}

export interface WaitlistQuery {
  principal: string | null;
  serviceId?: string;
  status?: WaitlistStatus;
  afterCreatedMs?: number;
  afterId?: string;
  limit: number;
}

export interface WaitlistRepo {
  get(id: string): Promise<WaitlistRecord | null>;
  insert(rec: WaitlistRecord): Promise<void>;
  update(rec: WaitlistRecord): Promise<void>;
  /** The caller's entries, oldest first, keyset-paginated. */
  list(q: WaitlistQuery): Promise<WaitlistRecord[]>;
  /** Entries of a service in the given statuses, oldest first. */
  byService(serviceId: string, statuses: readonly WaitlistStatus[]): Promise<WaitlistRecord[]>;
  /** Offered entries whose offer window passed (for the sweeper). */
  expiredOffers(nowMs: number, limit: number): Promise<string[]>;
}

export interface IdempotencyRecord {
  scope: string;
  request_hash: string;
  status: number;
  body: unknown;
  created_ms: number;
  expires_ms: number;
}

export interface IdempotencyRepo {
  get(scope: string, nowMs: number): Promise<IdempotencyRecord | null>;
  /**
   * Lock the scope until commit (one execution per key, even when two processes receive it at
   * once; the lock `Tx.lock([\`idempotency:${scope}\`])` takes), then read its live record. On
   * PostgreSQL the lock and the read are one round trip.
   */
  claim(scope: string, nowMs: number): Promise<IdempotencyRecord | null>;
  put(rec: IdempotencyRecord): Promise<void>;
  purge(nowMs: number): Promise<number>;
}

/** The catalog as last published: feeds and catalog events are computed from it. */
export interface StoredService {
  id: string;
  /** The published Service object (without availability_hint). */
  data: Record<string, unknown>;
  fingerprint: string;
  modified_ms: number;
  deleted: boolean;
}

export interface CatalogRepo {
  all(): Promise<StoredService[]>;
  upsert(s: StoredService): Promise<void>;
  /** Ascending (modified_ms, id) after the given position. */
  feed(afterMs: number, afterId: string, limit: number, locationId?: string): Promise<StoredService[]>;
}

export interface SubscriptionRepo {
  get(id: string): Promise<SubscriptionRecord | null>;
  insert(rec: SubscriptionRecord): Promise<void>;
  update(rec: SubscriptionRecord): Promise<void>;
  active(): Promise<SubscriptionRecord[]>;
}

/**
 * The JSON an event is delivered as, by webhook or MCP notification: the event, its id, the
 * resource id, a timestamp and the data. The timestamp is when the event occurs: its due time
 * (a reminder happens when it is due, not when the booking that scheduled it was made).
 */
export function eventBody(e: OutboxEvent, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event: e.event,
    event_id: e.event_id,
    ...e.payload,
    ...extra,
    timestamp: isoUtc(Math.max(e.created_ms, e.due_ms)),
  };
}

export interface OutboxRepo {
  add(e: OutboxEvent): Promise<void>;
  /** Newest events first, for inspection. */
  recent(limit: number): Promise<OutboxEvent[]>;
  /** The delivered bodies (eventBody) of one principal's dispatched events, newest first. */
  recentBodies(principal: string, limit: number): Promise<Array<Record<string, unknown>>>;
  /** Events that are due and not yet dispatched, oldest first (with their outbox sequence). */
  due(nowMs: number, limit: number): Promise<Array<OutboxEvent & { seq: number }>>;
  /** Mark events dispatched; returns the ones this call moved from pending (another worker may have won the rest). */
  markDispatched(seqs: readonly number[]): Promise<number[]>;
  /** Events by sequence (for processes told about them by another one). */
  bySeq(seqs: readonly number[]): Promise<Array<OutboxEvent & { seq: number }>>;
  /** Withdraw scheduled events not yet dispatched (a reminder for a booking that moved or ended). */
  cancelScheduled(orderKey: string, event: string): Promise<number>;
  /**
   * Retention: delete up to `limit` events already dispatched or canceled that were due before
   * `dueBeforeMs` (their deliveries carry their own copy of the body); returns how many went.
   */
  purgeDispatched(dueBeforeMs: number, limit: number): Promise<number>;
}

/** `skipped`: the target is a reserved name (RFC 2606, 6761) and was never contacted. */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'canceled' | 'skipped';

/** One event going to one webhook target; its attempts are logged separately. */
export interface WebhookDelivery {
  id: number;
  event_id: string;
  event: string;
  /** Outbox sequence of the event: deliveries of one order key to one target go out in this order. */
  seq: number;
  order_key: string;
  target_url: string;
  subscription_id: string | null;
  /** The exact JSON body to send (the same bytes on every attempt). */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_ms: number;
  created_ms: number;
  delivered_ms: number | null;
  last_status: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
}

export interface DeliveryAttempt {
  delivery_id: number;
  attempt: number;
  at_ms: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

export interface WebhookRepo {
  /** Add a delivery (a duplicate event_id + target is ignored, so expansion can be retried safely). */
  add(
    d: Omit<
      WebhookDelivery,
      'id' | 'status' | 'attempts' | 'delivered_ms' | 'last_status' | 'last_error' | 'last_latency_ms'
    >,
  ): Promise<void>;
  /**
   * Lease due deliveries: pending, due, not leased by another worker, and with no earlier pending
   * delivery of the same order key to the same target (causal order). Targets in `busy` are skipped.
   */
  claimDue(
    nowMs: number,
    limit: number,
    leaseUntilMs: number,
    busy: readonly string[],
  ): Promise<WebhookDelivery[] & { leftBehind?: boolean }>;
  /**
   * PostgreSQL only: the deliveries of events this transaction wrote, inserted from their outbox rows
   * in COMMIT's round trip (after the writes held for it), and those events marked dispatched. A row
   * with `lease` is leased until `leaseUntilMs` unless an earlier delivery of its order key to its
   * target is pending. Once committed: each event's seq, with its delivery as inserted (or null),
   * whether it was leased, and whether it was announced on the store's channel (NOTIFY, sent with
   * COMMIT). Never awaited inside the transaction (it settles with COMMIT).
   */
  addAtCommit?(
    rows: ReadonlyArray<{ event_id: string; target_url: string; body: string; lease: boolean }>,
    nowMs: number,
    leaseUntilMs: number,
  ): Promise<
    Array<{ event_id: string; seq: number; delivery: WebhookDelivery | null; leased: boolean; announced: boolean }>
  >;
  /** Give up the leases on these deliveries (a worker shutting down): another worker may claim them at once. */
  releaseLeases(ids: readonly number[]): Promise<void>;
  /** Record one attempt and the delivery's new state (clears the lease). */
  recordAttempt(a: DeliveryAttempt, next: { status: DeliveryStatus; next_attempt_ms: number }): Promise<void>;
  list(q: { status?: DeliveryStatus; limit: number }): Promise<WebhookDelivery[]>;
  attempts(deliveryId: number): Promise<DeliveryAttempt[]>;
  /** Put failed deliveries (one, or all when id is null) back in the queue. */
  retry(id: number | null, nowMs: number): Promise<number>;
}

export interface KeyValueRepo {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
}

/** A booking-scoped credential as the business keeps it: only the hash of its value. */
export interface CredentialRow {
  value_hash: string;
  resource_kind: CredentialKind;
  resource_id: string;
  /** RFC 7638 thumbprint the credential is bound to (cnf.jkt), when the caller proved a key. */
  jkt: string | null;
  principal: string | null;
  expires_ms: number;
  revoked: boolean;
}

export interface SecurityRepo {
  putCredential(c: CredentialRow): Promise<void>;
  credential(valueHash: string): Promise<CredentialRow | null>;
  /** Invalidate every credential of a resource (terminal state). */
  revokeCredentials(resourceId: string): Promise<void>;
  /** Record a proof's jti; false when it was already seen and is still remembered. */
  claimJti(jti: string, nowMs: number, keepUntilMs: number): Promise<boolean>;
  /** The profile URI a principal first presented (trust on first use). */
  boundProfile(principal: string): Promise<string | null>;
  bindProfile(principal: string, profile: string, nowMs: number): Promise<void>;
  purge(nowMs: number): Promise<void>;
  /**
   * Delete up to `limit` credentials that expired before `expiredBeforeMs` (an expired credential
   * is refused exactly as an unknown one is); returns how many went.
   */
  purgeCredentials(expiredBeforeMs: number, limit: number): Promise<number>;
}

export interface Tx {
  /**
   * Serialize this transaction with any other that locks one of the same keys, until commit.
   * Check-and-reserve locks the slot's resources (sorted) so that two processes can never both
   * see a slot free and both take it. A no-op where transactions are already serial (SQLite).
   * Resolved once the locks are granted, unless `beforeRead`: the caller's next step is a read of
   * the store, and a store may send the locks with that read, in its round trip (the read still runs
   * once they are granted and sees what committed before), so the call may resolve before.
   */
  lock(keys: readonly string[], o?: { beforeRead?: boolean }): Promise<void>;
  /**
   * Independent reads, run side by side: a store may send their statements together, in one round
   * trip (PostgreSQL: each branch's next statement waits until every other branch has one too, and
   * each still runs in the order issued, after the locks asked for before it). Settles once every
   * branch has (the first error is thrown then), so nothing of a branch outlives the call.
   */
  together<T extends readonly unknown[]>(...fns: { readonly [K in keyof T]: () => Promise<T[K]> }): Promise<T>;
  security: SecurityRepo;
  webhooks: WebhookRepo;
  claims: ClaimRepo;
  bookings: BookingRepo;
  holds: HoldRepo;
  waitlist: WaitlistRepo;
  idempotency: IdempotencyRepo;
  catalog: CatalogRepo;
  subscriptions: SubscriptionRepo;
  outbox: OutboxRepo;
  kv: KeyValueRepo;
  registry: RegistryRepo;
  admin: AdminRepo;
  oauth: OAuthRepo;
  accounts: AccountRepo;
  payments: PaymentRepo;
  mail: MailRepo;
  /** The business's definition (catalog, resources, locations, details) as stored rows. */
  definition: DefinitionRepo;
  frontdesk: FrontDeskRepo;
  calendars: CalendarRepo;
}

/** Cross-process announcement of dispatched events (PostgreSQL LISTEN/NOTIFY); absent in one process. */
export interface EventChannel {
  publish(seqs: readonly number[]): Promise<void>;
  subscribe(listener: (seqs: number[]) => void): () => void;
}

/**
 * The database cannot serve this call right now: the connection is down or was cut, connecting or a
 * statement timed out, the file is locked past the wait, read-only, gone or the disk is full. It is
 * typed so that the pipeline answers `service_unavailable` (retry later) instead of `server_error`,
 * and so that the webhook dispatcher and sweeper pause quietly. Nothing the call meant to write was
 * committed, except that a write whose COMMIT was cut off may or may not have landed: a retry with
 * the same Idempotency-Key answers from the stored result if it did.
 */
export class StoreUnavailable extends Error {
  override readonly name = 'StoreUnavailable';
  /** Brand: layers that import the store for types only recognise the fault by it. */
  readonly storeUnavailable = true as const;
  constructor(
    /** A short, loggable reason (`connection refused`, `database is locked`, ...). */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`database unavailable: ${reason}`, options);
  }
}

export interface Store {
  /** Present when several processes share the store and must hear about each other's events. */
  readonly channel?: EventChannel;
  /**
   * Run `fn` in one serializable write transaction. An engine with real concurrency (PostgreSQL) may
   * roll back and run `fn` again after a deadlock or a conflicting claim, so `fn` keeps its effects
   * inside the transaction (or resets them when it starts).
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Run `fn` on a consistent read snapshot. Writes inside it are a programming error. */
  read<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Resolve when the database answers a trivial query and can take writes; throw StoreUnavailable otherwise (readiness). */
  ping(): Promise<void>;
  /**
   * The stored business definition's version (DefinitionRepo.version) in one cheap statement outside
   * any transaction: every call compares it with the version its process compiled.
   */
  definitionVersion(): Promise<number>;
  /**
   * The same read, answered at once, by a store that reads without waiting (SQLite's prepared
   * statement): a call whose version did not move then costs no promise. Absent on PostgreSQL.
   */
  definitionVersionNow?(): number;
  /** When each kind of background work is next due (shared/due.ts): one statement of indexed MIN() reads, outside any transaction. */
  nextDue(): Promise<DueTimes>;
  close(): Promise<void>;
  readonly engine: 'sqlite' | 'postgres';
}
