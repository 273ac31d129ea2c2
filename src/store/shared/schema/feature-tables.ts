/**
 * The tables of the features added after the core (OAuth, payments, mail, calendars), written once
 * and rendered per engine (see types.ts). Triggers, which the engines write differently, stand
 * beside each engine's repository.
 */
import type { SqlTypes } from './types.js';

/** The columns a leased queue's worker reads and writes (see shared/leased-queue.ts), due by `due`. */
const leasedColumns = (t: SqlTypes, due: string) => `status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    ${due} ${t.int} NOT NULL,
    lease_until_ms ${t.int},
    created_ms ${t.int} NOT NULL,`;

/** OAuth server records and buyer accounts. PostgreSQL has no rowid: `seq` keeps insertion order. */
export const oauthTables = (t: SqlTypes) => `
  CREATE TABLE oauth_records (
    model TEXT NOT NULL,
    id TEXT NOT NULL,${t.engine === 'postgres' ? '\n    seq BIGSERIAL,' : ''}
    payload TEXT NOT NULL,
    grant_id TEXT,
    uid TEXT,
    user_code TEXT,
    account_id TEXT,
    expires_ms ${t.int},
    consumed_ms ${t.int},
    PRIMARY KEY (model, id)
  );
  CREATE INDEX oauth_by_grant ON oauth_records (grant_id);
  CREATE INDEX oauth_by_uid ON oauth_records (uid);
  CREATE INDEX oauth_by_account ON oauth_records (account_id, model);
  CREATE TABLE buyer_accounts (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    name TEXT NOT NULL,
    phone TEXT,
    created_ms ${t.int} NOT NULL
  );
  CREATE TABLE buyer_bookings (
    account_id TEXT NOT NULL,
    booking_id TEXT NOT NULL,
    created_ms ${t.int} NOT NULL,
    PRIMARY KEY (account_id, booking_id)
  );
  CREATE INDEX buyer_bookings_recent ON buyer_bookings (account_id, created_ms);
`;

/** Payment provider jobs, applied provider events and provider ids (the payment provider port). */
export const paymentTables = (t: SqlTypes) => `
  CREATE TABLE payment_jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    booking_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    ${leasedColumns(t, 'next_attempt_ms')}
    last_error TEXT,
    result TEXT
  );
  CREATE INDEX payment_jobs_due ON payment_jobs (next_attempt_ms) WHERE status = 'pending';
  CREATE INDEX payment_jobs_by_booking ON payment_jobs (booking_id, created_ms);
  CREATE TABLE payment_events (provider TEXT NOT NULL, event_id TEXT NOT NULL, received_ms ${t.int} NOT NULL, PRIMARY KEY (provider, event_id));
  CREATE TABLE payment_refs (provider TEXT NOT NULL, ref TEXT NOT NULL, booking_id TEXT NOT NULL, PRIMARY KEY (provider, ref));
`;

/** The mail outbox: messages to people, committed with the change that causes them. */
export const mailTables = (t: SqlTypes) => `
  CREATE TABLE mail_messages (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    subject_id TEXT NOT NULL,
    recipient TEXT NOT NULL,
    locale TEXT,
    payload TEXT NOT NULL,
    ${leasedColumns(t, 'due_ms')}
    sent_ms ${t.int},
    last_error TEXT
  );
  CREATE INDEX mail_messages_due ON mail_messages (due_ms) WHERE status = 'queued';
  CREATE INDEX mail_messages_by_subject ON mail_messages (subject_id, created_ms);
`;

/**
 * The mail outbox becomes the notification outbox: each message says its channel (every message so
 * far is mail), and each channel's runner leases its own due messages from the index.
 */
export const NOTIFICATION_CHANNEL_MIGRATION = `
  ALTER TABLE mail_messages ADD COLUMN channel TEXT NOT NULL DEFAULT 'email';
  CREATE INDEX mail_messages_due_by_channel ON mail_messages (channel, due_ms) WHERE status = 'queued';
  DROP INDEX mail_messages_due;
`;

/**
 * Calendar busy claims (a source column on claims), feed state and the CalDAV push queue; each
 * engine adds the trigger that queues a push when a booking on a pushed resource changes.
 */
export const calendarTables = (t: SqlTypes) => `
  ALTER TABLE claims ADD COLUMN source TEXT NOT NULL DEFAULT 'booking';
  CREATE INDEX claims_by_source ON claims (source) WHERE source <> 'booking';
  CREATE TABLE calendar_feeds (
    feed_key TEXT PRIMARY KEY,
    resource_id TEXT NOT NULL,
    etag TEXT,
    last_modified TEXT,
    last_attempt_ms ${t.int},
    last_ok_ms ${t.int},
    last_error TEXT,
    busy_count INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE calendar_push_targets (resource_id TEXT PRIMARY KEY)${t.withoutRowid};
  CREATE TABLE calendar_push_jobs (
    booking_id TEXT PRIMARY KEY,
    version ${t.int} NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_ms ${t.int} NOT NULL,
    lease_until_ms ${t.int},
    last_error TEXT,
    seq ${t.serial} NOT NULL
  );
  CREATE INDEX calendar_push_jobs_due ON calendar_push_jobs (next_attempt_ms);
  CREATE TABLE calendar_events (
    booking_id TEXT NOT NULL,
    calendar_key TEXT NOT NULL,
    href TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    PRIMARY KEY (booking_id, calendar_key)
  );
`;
