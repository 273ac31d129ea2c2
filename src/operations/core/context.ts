/**
 * What every operation handler runs against: the business (compiled once at start), the store
 * transaction, the caller, the id source, and the events it raises; and the small rules every
 * handler shares (who may act on a resource, a new revision, an outbox row).
 */
import { type CredentialKind, isoUtc } from '../../domain/index.js';
import type { OutboxEvent, Tx } from '../../store/index.js';
import type { HttpEvidence, IssuedCredential } from '../../security/index.js';
import type { Business } from '../business.js';
import type { IdSource } from './ids.js';
import type { RegistryEnv } from '../registry/env.js';
import type { AvailabilityCache } from '../availability-cache.js';
import type { DashboardSignInEnv } from '../admin/sign-in-env.js';

/**
 * Who is calling, as the security module authenticated it (src/security/authenticate.ts): the
 * principal is what the caller proved (its key, its signing key, its API key); only on public calls
 * and in a sandbox without proof does the presented profile URI stand in for it.
 */
export interface Caller {
  /** Stable identity the business binds resources to; null for anonymous public calls. */
  principal: string | null;
  /** Platform profile URI presented (USP-Agent / _meta.usp.profile). */
  profile: string | null;
  /** True when the caller is the business itself (admin API key or the local CLI). */
  business: boolean;
  /** Thumbprint of the key the caller proved (platform_key_pop): issued credentials are bound to it. */
  jkt?: string;
  /** The one resource a presented booking-scoped credential opens. */
  credential?: { kind: string; id: string };
  /** False when a sandbox accepted the call without any proof of identity. */
  authenticated?: boolean;
  /** Version and capability keys the caller's platform profile declares (when it was fetched). */
  platform?: { version: string; capabilities: string[] };
  /** Who acted for the business, for the audit log: `admin_api_key`, `user:<email>` (a dashboard session), `cli`. */
  actor?: string;
  /** The buyer account an OAuth token was linked to, and the scopes the buyer granted (spec 10.2.4). */
  account?: { id: string; scopes: readonly string[] };
}

export interface RaisedEvent {
  event: string;
  orderKey: string;
  principal: string | null;
  /** The owning platform's profile URI (its webhook_url receives the event). */
  profile?: string | null;
  payload: Record<string, unknown>;
  dueMs?: number;
}

/** Outbound services a role's operations need beyond the store (the registry's fetcher). */
export interface OperationEnv {
  registry?: RegistryEnv;
  admin?: AdminEnv;
  /** Computed availability answers kept for reuse (absent: every query computes). */
  availability?: AvailabilityCache;
  /** Calendar busy times older than this are stale (`--calendar-stale-hours`; default 24 h). */
  calendarStaleMs?: number;
  /** The dashboard's sign-in: the admin key in a sandbox, the backoff, its log lines and counters. */
  dashboardSignIn?: DashboardSignInEnv;
  /** The name of a principal's webhook resource, keyed by the business's own secret (./webhook-resource.ts). */
  webhookResourceUri?: (principal: string) => string;
}

/** The business's own machinery an admin operation may drive: signing keys, the delivery queue. */
export interface AdminEnv {
  /** Make a new webhook signing key; the old one stays published for its grace period. */
  rotateSigningKey(nowMs: number): Promise<string>;
  signingKeys(): Array<{ kid: string; created_ms: number; activates_ms?: number; retired_ms?: number }>;
  /** Wake the webhook dispatcher (deliveries put back in the queue). */
  nudgeDeliveries(): void;
}

/** What an operation's `prepare` step sees: no transaction, a consistent read when it needs one. */
export interface PrepareContext {
  now: number;
  caller: Caller;
  env: OperationEnv;
  read<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** The HTTP request as the door received it (a check of a signature made by someone other than a platform). */
  http?: HttpEvidence;
}

export interface OperationContext {
  tx: Tx;
  /** The role's outbound services (absent in the business's own housekeeping). */
  env?: OperationEnv;
  /** What the operation's `prepare` step returned. */
  prepared?: unknown;
  now: number;
  biz: Business;
  caller: Caller;
  ids: IdSource;
  /** The caller's precondition (If-Match / _meta.usp.if_match), for conditional operations. */
  ifMatch?: string;
  /** The language the request asked for (a BCP 47 tag Intl knows), when it said one: see OperationRequest.locale. */
  locale?: string;
  /** Raise an event; it is written to the outbox in this transaction. */
  emit(e: RaisedEvent): void;
  /**
   * Say this transaction queued work a worker sends after commit without raising an event (a payment
   * job): the scope's channels are told once it commits, as they are for events (./channels.ts).
   */
  queued?(): void;
  /** Say this transaction created the booking `id` (it cannot have opted out of anything yet: see RaisedInTransaction.created). */
  created?(bookingId: string): void;
  /**
   * Issue a booking-scoped credential for a resource just created (bound to the caller's proven
   * key when there is one); undefined for the business itself.
   */
  issueCredential(kind: CredentialKind, resourceId: string, expiresMs: number): Promise<IssuedCredential | undefined>;
}

/** Instants on the wire: RFC 3339 UTC without fractional seconds. */
export const iso = isoUtc;

/** A new revision token for a resource just written. */
export function newRevision(ctx: OperationContext): string {
  return ctx.ids.next('rev');
}

/** The outbox row for an event raised at `now`. */
export function outboxEvent(e: RaisedEvent, ids: IdSource, now: number): OutboxEvent {
  return {
    event_id: ids.next('evt'),
    event: e.event,
    order_key: e.orderKey,
    principal: e.principal,
    profile: e.profile ?? null,
    payload: e.payload,
    created_ms: now,
    due_ms: e.dueMs ?? now,
  };
}

/** May the caller act on a resource created by `owner`? Its creator, its credential holder, or the business. */
export function mayAct(caller: Caller, owner: string | null, resourceId: string): boolean {
  if (caller.business) return true;
  if (caller.credential && caller.credential.id === resourceId) return true;
  return caller.principal !== null && owner === caller.principal;
}
