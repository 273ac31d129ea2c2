/**
 * What the business's own administration keeps in the store: staff time off and dated exceptions
 * added at run time (merged with the business file's schedules), the audit log of admin actions,
 * business users and their dashboard sessions, and platform API keys issued at run time. Kept apart
 * from the protocol's repositories: none of it is visible to a platform.
 */
import type { BookingRecord } from '../domain/index.js';
import type { OutboxEvent } from './outbox-event.js';

/** A run-time change to one resource's schedule: time off (an interval) or a dated exception (hours for one local date). */
export interface ScheduleChangeRow {
  id: string;
  resource_id: string;
  kind: 'time_off' | 'exception';
  /** time_off: the interval, epoch ms. */
  start_ms: number | null;
  end_ms: number | null;
  /** exception: the local date and its opening hours (empty = closed that day). */
  date: string | null;
  hours: Array<{ opens: string; closes: string }> | null;
  reason: string | null;
  created_ms: number;
  created_by: string;
}

/** One admin action: who did what to which resource, when, and how it ended. */
export interface AuditRow {
  seq?: number;
  at_ms: number;
  actor: string;
  action: string;
  target: string | null;
  outcome: string;
}

export interface BusinessUserRow {
  email: string;
  /** `scrypt$N$r$p$salt$hash` (base64url), from node:crypto. */
  password_hash: string;
  created_ms: number;
}

/** A dashboard session: only the hash of its cookie value is kept. */
export interface AdminSessionRow {
  id_hash: string;
  email: string;
  csrf: string;
  created_ms: number;
  expires_ms: number;
}

/** A platform API key issued at run time: only its SHA-256 is kept. */
export interface PlatformKeyRow {
  id: string;
  sha256: string;
  label: string;
  created_ms: number;
  revoked_ms: number | null;
}

export interface AdminRepo {
  /** Run-time schedule changes, for the given resources (all when omitted), oldest first. */
  scheduleChanges(resourceIds?: readonly string[]): Promise<ScheduleChangeRow[]>;
  addScheduleChange(row: ScheduleChangeRow): Promise<void>;
  /** The removed row, or null when there was none. */
  removeScheduleChange(id: string): Promise<ScheduleChangeRow | null>;
  addAudit(row: AuditRow): Promise<void>;
  /** Newest first, before the given sequence number when set. */
  auditLog(limit: number, beforeSeq?: number): Promise<AuditRow[]>;
  putUser(u: BusinessUserRow): Promise<void>;
  user(email: string): Promise<BusinessUserRow | null>;
  /** Whether the business has any dashboard user (a first start offers a setup link when not). */
  hasUsers(): Promise<boolean>;
  putSession(s: AdminSessionRow): Promise<void>;
  /** The session, when it exists and has not expired at nowMs. */
  session(idHash: string, nowMs: number): Promise<AdminSessionRow | null>;
  deleteSession(idHash: string): Promise<void>;
  addPlatformKey(k: PlatformKeyRow): Promise<void>;
  platformKeys(): Promise<PlatformKeyRow[]>;
  /** An unrevoked key by the SHA-256 of its value. */
  platformKeyByHash(sha256: string): Promise<PlatformKeyRow | null>;
  /** True when the key existed and was not yet revoked. */
  revokePlatformKey(id: string, nowMs: number): Promise<boolean>;
  /** Bookings whose appointment starts in [fromMs, toMs), by start. */
  bookingsStarting(fromMs: number, toMs: number): Promise<BookingRecord[]>;
  /** Every outbox event of one order key (a booking's history), oldest first. */
  eventsOf(orderKey: string): Promise<OutboxEvent[]>;
}
