/** The tables of the booking core, written once and rendered per engine (see types.ts). */
import type { IfNew, SqlTypes } from './types.js';

/** Capacity claims on resources; `constraints` adds an engine's own table constraints. */
export const claimsTable = (t: SqlTypes, constraints = '') => `
  CREATE TABLE claims (
    resource_id TEXT NOT NULL,
    start_ms ${t.int} NOT NULL,
    end_ms ${t.int} NOT NULL,
    slot_key TEXT NOT NULL,
    owner_id TEXT NOT NULL,
    spots INTEGER NOT NULL,
    is_hold ${t.flag} NOT NULL,
    service_id TEXT NOT NULL,
    expires_at_ms ${t.int},
    PRIMARY KEY (owner_id, resource_id)${constraints}
  );
  CREATE INDEX claims_by_resource ON claims (resource_id, start_ms);
`;

/** Bookings. PostgreSQL has no rowid: `seq` orders its rows as the rowid orders SQLite's. */
export const bookingsTable = (t: SqlTypes) => `
  CREATE TABLE bookings (${t.engine === 'postgres' ? '\n    seq BIGSERIAL NOT NULL UNIQUE,' : ''}
    id TEXT PRIMARY KEY,
    service_id TEXT NOT NULL,
    status TEXT NOT NULL,
    hold_id TEXT UNIQUE,
    principal TEXT,
    expires_at_ms ${t.int},
    data TEXT NOT NULL
  );
  CREATE INDEX bookings_pending_expiry ON bookings (expires_at_ms) WHERE status IN ('pending', 'requires_action');
`;

export const holdsTable = (t: SqlTypes) => `
  CREATE TABLE holds (
    id TEXT PRIMARY KEY,
    service_id TEXT NOT NULL,
    status TEXT NOT NULL,
    principal TEXT,
    buyer_key TEXT,
    expires_at_ms ${t.int} NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX holds_by_principal ON holds (principal, service_id, status);
`;

export const waitlistTable = (t: SqlTypes) => `
  CREATE TABLE waitlist_entries (
    id ${t.sortedText} PRIMARY KEY,
    service_id TEXT NOT NULL,
    status TEXT NOT NULL,
    principal TEXT,
    created_ms ${t.int} NOT NULL,
    offer_expires_ms ${t.int},
    data TEXT NOT NULL
  );
  CREATE INDEX waitlist_by_service ON waitlist_entries (service_id, status, created_ms);
  CREATE INDEX waitlist_by_principal ON waitlist_entries (principal, created_ms, id);
`;

export const idempotencyTable = (t: SqlTypes) => `
  CREATE TABLE idempotency (
    scope TEXT PRIMARY KEY,
    request_hash TEXT NOT NULL,
    status INTEGER NOT NULL,
    body TEXT NOT NULL,
    created_ms ${t.int} NOT NULL,
    expires_ms ${t.int} NOT NULL
  );
`;

/** The catalog feed's entries and the feed subscriptions. */
export const catalogTables = (t: SqlTypes) => `
  CREATE TABLE catalog (
    id ${t.sortedText} PRIMARY KEY,
    data TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    modified_ms ${t.int} NOT NULL,
    deleted ${t.flag} NOT NULL
  );
  CREATE INDEX catalog_feed ON catalog (modified_ms, id);
  CREATE TABLE feed_subscriptions (
    id ${t.sortedText} PRIMARY KEY,
    status TEXT NOT NULL,
    principal TEXT,
    data TEXT NOT NULL
  );
`;

export const KV_TABLE = `
  CREATE TABLE kv (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
`;

/** Issued credentials, spent proof ids, and principals bound to a platform profile. */
export const securityTables = (t: SqlTypes, proofJtiIndex = '') => `
  CREATE TABLE credentials (
    value_hash TEXT PRIMARY KEY,
    resource_kind TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    jkt TEXT,
    principal TEXT,
    expires_ms ${t.int} NOT NULL,
    revoked ${t.flag} NOT NULL DEFAULT ${t.no}
  );
  CREATE INDEX credentials_by_resource ON credentials (resource_id);
  CREATE TABLE proof_jti (
    jti TEXT PRIMARY KEY,
    keep_until_ms ${t.int} NOT NULL
  );${proofJtiIndex}
  CREATE TABLE principal_bindings (
    principal TEXT PRIMARY KEY,
    profile TEXT NOT NULL,
    bound_ms ${t.int} NOT NULL
  );
`;

export const PROOF_JTI_EXPIRY_INDEX = `
  CREATE INDEX proof_jti_expiry ON proof_jti (keep_until_ms);`;
export const IDEMPOTENCY_EXPIRY_INDEX = `
  CREATE INDEX idempotency_expiry ON idempotency (expires_ms);`;

/**
 * The longest claim ever added bounds the scan for claims overlapping an interval from below
 * (claims_by_resource is ordered by start); purges by expiry read an index instead of every row.
 */
export const claimSpanTable = (t: SqlTypes) => `
  CREATE TABLE claim_span (id INTEGER PRIMARY KEY CHECK (id = 1), max_ms ${t.int} NOT NULL);
  INSERT INTO claim_span (id, max_ms) SELECT 1, COALESCE(MAX(end_ms - start_ms), 0) FROM claims;
  CREATE INDEX claims_by_end ON claims (end_ms);
  CREATE INDEX claims_expiring ON claims (expires_at_ms) WHERE expires_at_ms IS NOT NULL;
`;

/** Availability versions: one counter per resource, bumped by each engine's triggers. */
export const resourceVersionsTable = (t: SqlTypes) => `
  CREATE TABLE resource_versions (resource_id TEXT PRIMARY KEY, version ${t.int} NOT NULL)${t.withoutRowid};
`;

/** Run-time administration: schedule changes, the audit log, business users and sessions, platform keys. */
export const adminTables = (t: SqlTypes, ifNew: IfNew) => `
  CREATE TABLE ${ifNew}schedule_changes (
    id TEXT PRIMARY KEY,
    resource_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    start_ms ${t.int},
    end_ms ${t.int},
    date TEXT,
    hours TEXT,
    reason TEXT,
    created_ms ${t.int} NOT NULL,
    created_by TEXT NOT NULL
  );
  CREATE INDEX ${ifNew}schedule_changes_resource ON schedule_changes (resource_id);
  CREATE TABLE ${ifNew}admin_audit (
    seq ${t.serialKey},
    at_ms ${t.int} NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT,
    outcome TEXT NOT NULL
  );
  CREATE TABLE ${ifNew}business_users (email TEXT PRIMARY KEY, password_hash TEXT NOT NULL, created_ms ${t.int} NOT NULL);
  CREATE TABLE ${ifNew}admin_sessions (id_hash TEXT PRIMARY KEY, email TEXT NOT NULL, csrf TEXT NOT NULL, created_ms ${t.int} NOT NULL, expires_ms ${t.int} NOT NULL);
  CREATE TABLE ${ifNew}platform_api_keys (id TEXT PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE, label TEXT NOT NULL, created_ms ${t.int} NOT NULL, revoked_ms ${t.int});
`;

/** The business's definition as data (the business file becomes an import and export format) and its version. */
export const definitionTables = (t: SqlTypes) => `
  CREATE TABLE definition_entries (
    kind ${t.sortedText} NOT NULL,
    id ${t.sortedText} NOT NULL,
    position INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (kind, id)
  )${t.withoutRowid};
  CREATE TABLE definition_version (one INTEGER PRIMARY KEY CHECK (one = 1), version ${t.int} NOT NULL);
`;
