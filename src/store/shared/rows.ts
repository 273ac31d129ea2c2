/**
 * Engine-neutral row handling: the columns both adapters read, the mapping of a row to the port's
 * types, and the values a record is written with. Booleans arrive as 0/1 from SQLite and as booleans
 * from PostgreSQL; int8 arrives as a number from both (the PostgreSQL adapter parses it so).
 */
import type { BookingRecord, HoldRecord, SubscriptionRecord, WaitlistRecord } from '../../domain/index.js';
import type {
  ClaimRow,
  CredentialRow,
  DeliveryAttempt,
  IdempotencyRecord,
  OutboxEvent,
  StoredService,
  WebhookDelivery,
} from '../port.js';

export const json = (v: unknown): string => JSON.stringify(v);
export const parse = <T>(s: string): T => JSON.parse(s) as T;

/** A database row as the driver hands it over. */
export type Row = Record<string, any>;

export const CLAIM_COLUMNS =
  'resource_id, start_ms, end_ms, slot_key, owner_id, spots, is_hold, service_id, expires_at_ms';
export const OUTBOX_COLUMNS = 'seq, event_id, event, order_key, principal, profile, payload, created_ms, due_ms';
export const DELIVERY_COLUMNS =
  'id, event_id, event, seq, order_key, target_url, subscription_id, body, status, attempts, next_attempt_ms, created_ms, delivered_ms, last_status, last_error, last_latency_ms';
export const ATTEMPT_COLUMNS = 'delivery_id, attempt, at_ms, status_code, latency_ms, error';
export const CATALOG_COLUMNS = 'id, data, fingerprint, modified_ms, deleted';
export const IDEMPOTENCY_COLUMNS = 'scope, request_hash, status, body, created_ms, expires_ms';
export const CREDENTIAL_COLUMNS = 'value_hash, resource_kind, resource_id, jkt, principal, expires_ms, revoked';

const flag = (v: unknown): boolean => v === true || v === 1;

export const toClaim = (r: Row): ClaimRow => ({
  resource_id: r.resource_id,
  start_ms: r.start_ms,
  end_ms: r.end_ms,
  slot_key: r.slot_key,
  owner_id: r.owner_id,
  spots: r.spots,
  is_hold: flag(r.is_hold),
  service_id: r.service_id,
  expires_at_ms: r.expires_at_ms,
});

export const toService = (r: Row): StoredService => ({
  id: r.id,
  data: parse(r.data),
  fingerprint: r.fingerprint,
  modified_ms: r.modified_ms,
  deleted: flag(r.deleted),
});

export const toOutbox = (r: Row): OutboxEvent & { seq: number } => ({
  seq: r.seq,
  event_id: r.event_id,
  event: r.event,
  order_key: r.order_key,
  principal: r.principal,
  profile: r.profile ?? null,
  payload: parse<Record<string, unknown>>(r.payload),
  created_ms: r.created_ms,
  due_ms: r.due_ms,
});

/** The internal `seq` ordering column is not part of OutboxEvent. */
export const withoutSeq = (r: Row): OutboxEvent => {
  const { seq: _seq, ...e } = toOutbox(r);
  return e;
};

export const toDelivery = (r: Row): WebhookDelivery => ({
  id: r.id,
  event_id: r.event_id,
  event: r.event,
  seq: r.seq,
  order_key: r.order_key,
  target_url: r.target_url,
  subscription_id: r.subscription_id,
  body: r.body,
  status: r.status,
  attempts: r.attempts,
  next_attempt_ms: r.next_attempt_ms,
  created_ms: r.created_ms,
  delivered_ms: r.delivered_ms,
  last_status: r.last_status,
  last_error: r.last_error,
  last_latency_ms: r.last_latency_ms,
});

export const toAttempt = (r: Row): DeliveryAttempt => ({
  delivery_id: r.delivery_id,
  attempt: r.attempt,
  at_ms: r.at_ms,
  status_code: r.status_code,
  latency_ms: r.latency_ms,
  error: r.error,
});

export const toIdempotency = (r: Row): IdempotencyRecord => ({
  scope: r.scope,
  request_hash: r.request_hash,
  status: r.status,
  body: parse(r.body),
  created_ms: r.created_ms,
  expires_ms: r.expires_ms,
});

export const toCredential = (r: Row): CredentialRow => ({
  value_hash: r.value_hash,
  resource_kind: r.resource_kind,
  resource_id: r.resource_id,
  jkt: r.jkt,
  principal: r.principal,
  expires_ms: r.expires_ms,
  revoked: flag(r.revoked),
});

/**
 * A table that keeps one JSON document per row beside the columns it is searched by. Both adapters
 * build `get` (by id), `insert` and `update` from this description.
 */
export interface DocumentTable<T> {
  table: string;
  /** Columns written on insert, in the order of `values`. */
  columns: readonly string[];
  values(rec: T): unknown[];
  /** Columns an update sets, in the order of `updateValues` (which ends with the id). */
  updated: readonly string[];
  updateValues(rec: T): unknown[];
}

export const BOOKINGS: DocumentTable<BookingRecord> = {
  table: 'bookings',
  columns: ['id', 'service_id', 'status', 'hold_id', 'principal', 'expires_at_ms', 'end_ms', 'data'],
  values: (rec) => [
    rec.booking.id,
    rec.booking.service_id,
    rec.booking.status,
    rec.priv.hold_id ?? null,
    rec.priv.principal,
    rec.priv.expires_at_ms ?? null,
    rec.priv.end_ms,
    json(rec),
  ],
  updated: ['status', 'expires_at_ms', 'end_ms', 'data'],
  updateValues: (rec) => [
    rec.booking.status,
    rec.priv.expires_at_ms ?? null,
    rec.priv.end_ms,
    json(rec),
    rec.booking.id,
  ],
};

export const HOLDS: DocumentTable<HoldRecord> = {
  table: 'holds',
  columns: ['id', 'service_id', 'status', 'principal', 'buyer_key', 'expires_at_ms', 'data'],
  values: (rec) => [
    rec.hold.id,
    rec.hold.service_id,
    rec.hold.status,
    rec.priv.principal,
    rec.priv.buyer_key ?? null,
    rec.priv.expires_at_ms,
    json(rec),
  ],
  updated: ['status', 'expires_at_ms', 'data'],
  updateValues: (rec) => [rec.hold.status, rec.priv.expires_at_ms, json(rec), rec.hold.id],
};

export const WAITLIST_ENTRIES: DocumentTable<WaitlistRecord> = {
  table: 'waitlist_entries',
  columns: ['id', 'service_id', 'status', 'principal', 'created_ms', 'offer_expires_ms', 'data'],
  values: (rec) => [
    rec.entry.id,
    rec.entry.service_id,
    rec.entry.status,
    rec.priv.principal,
    rec.priv.created_ms,
    rec.priv.offer_expires_ms ?? null,
    json(rec),
  ],
  updated: ['status', 'offer_expires_ms', 'data'],
  updateValues: (rec) => [rec.entry.status, rec.priv.offer_expires_ms ?? null, json(rec), rec.entry.id],
};

export const FEED_SUBSCRIPTIONS: DocumentTable<SubscriptionRecord> = {
  table: 'feed_subscriptions',
  columns: ['id', 'status', 'principal', 'data'],
  values: (rec) => [rec.subscription.id, rec.subscription.status, rec.priv.principal, json(rec)],
  updated: ['status', 'data'],
  updateValues: (rec) => [rec.subscription.status, json(rec), rec.subscription.id],
};

/** get, insert and update of a document table. */
export interface DocumentRepo<T> {
  get(id: string): Promise<T | null>;
  insert(rec: T): Promise<void>;
  update(rec: T): Promise<void>;
}

/** event_id, event, order_key, principal, profile, payload, created_ms, due_ms */
export const outboxValues = (e: OutboxEvent): unknown[] => [
  e.event_id,
  e.event,
  e.order_key,
  e.principal,
  e.profile,
  json(e.payload),
  e.created_ms,
  e.due_ms,
];

/** scope, request_hash, status, body, created_ms, expires_ms */
export const idempotencyValues = (rec: IdempotencyRecord): unknown[] => [
  rec.scope,
  rec.request_hash,
  rec.status,
  json(rec.body),
  rec.created_ms,
  rec.expires_ms,
];
