import { SQLITE_PAYMENTS_MIGRATION } from './payments.js';
import { SQLITE_MAIL_MIGRATION } from './mail.js';
import { SQLITE_FRONTDESK_MIGRATION } from './frontdesk-repo.js';
import { SQLITE_CALENDARS_MIGRATION } from './calendars.js';
import { SQLITE_OAUTH_MIGRATION } from './oauth-repo.js';

/** Schema of the embedded store. Each entry runs once, in order, recorded in `schema_migrations`. */
export const SQLITE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE claims (
    resource_id TEXT NOT NULL,
    start_ms INTEGER NOT NULL,
    end_ms INTEGER NOT NULL,
    slot_key TEXT NOT NULL,
    owner_id TEXT NOT NULL,
    spots INTEGER NOT NULL,
    is_hold INTEGER NOT NULL,
    service_id TEXT NOT NULL,
    expires_at_ms INTEGER,
    PRIMARY KEY (owner_id, resource_id)
  );
  CREATE INDEX claims_by_resource ON claims (resource_id, start_ms);
  CREATE TABLE bookings (
    id TEXT PRIMARY KEY,
    service_id TEXT NOT NULL,
    status TEXT NOT NULL,
    hold_id TEXT UNIQUE,
    principal TEXT,
    expires_at_ms INTEGER,
    data TEXT NOT NULL
  );
  CREATE INDEX bookings_pending_expiry ON bookings (expires_at_ms) WHERE status IN ('pending', 'requires_action');
  CREATE TABLE holds (
    id TEXT PRIMARY KEY,
    service_id TEXT NOT NULL,
    status TEXT NOT NULL,
    principal TEXT,
    buyer_key TEXT,
    expires_at_ms INTEGER NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX holds_by_principal ON holds (principal, service_id, status);
  CREATE TABLE waitlist_entries (
    id TEXT PRIMARY KEY,
    service_id TEXT NOT NULL,
    status TEXT NOT NULL,
    principal TEXT,
    created_ms INTEGER NOT NULL,
    offer_expires_ms INTEGER,
    data TEXT NOT NULL
  );
  CREATE INDEX waitlist_by_service ON waitlist_entries (service_id, status, created_ms);
  CREATE INDEX waitlist_by_principal ON waitlist_entries (principal, created_ms, id);
  CREATE TABLE idempotency (
    scope TEXT PRIMARY KEY,
    request_hash TEXT NOT NULL,
    status INTEGER NOT NULL,
    body TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL
  );
  CREATE TABLE catalog (
    id TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    modified_ms INTEGER NOT NULL,
    deleted INTEGER NOT NULL
  );
  CREATE INDEX catalog_feed ON catalog (modified_ms, id);
  CREATE TABLE feed_subscriptions (
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    principal TEXT,
    data TEXT NOT NULL
  );
  CREATE TABLE outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL UNIQUE,
    event TEXT NOT NULL,
    order_key TEXT NOT NULL,
    principal TEXT,
    payload TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    due_ms INTEGER NOT NULL
  );
  CREATE TABLE kv (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  `
  CREATE TABLE credentials (
    value_hash TEXT PRIMARY KEY,
    resource_kind TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    jkt TEXT,
    principal TEXT,
    expires_ms INTEGER NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX credentials_by_resource ON credentials (resource_id);
  CREATE TABLE proof_jti (
    jti TEXT PRIMARY KEY,
    keep_until_ms INTEGER NOT NULL
  );
  CREATE TABLE principal_bindings (
    principal TEXT PRIMARY KEY,
    profile TEXT NOT NULL,
    bound_ms INTEGER NOT NULL
  );
  `,
  `
  ALTER TABLE outbox ADD COLUMN profile TEXT;
  ALTER TABLE outbox ADD COLUMN status TEXT NOT NULL DEFAULT 'pending';
  CREATE INDEX outbox_due ON outbox (status, due_ms, seq);
  CREATE TABLE webhook_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL,
    event TEXT NOT NULL,
    seq INTEGER NOT NULL,
    order_key TEXT NOT NULL,
    target_url TEXT NOT NULL,
    subscription_id TEXT,
    body TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms INTEGER NOT NULL,
    lease_until_ms INTEGER,
    created_ms INTEGER NOT NULL,
    delivered_ms INTEGER,
    last_status INTEGER,
    last_error TEXT,
    last_latency_ms INTEGER,
    UNIQUE (event_id, target_url)
  );
  CREATE INDEX deliveries_due ON webhook_deliveries (status, next_attempt_ms);
  CREATE INDEX deliveries_order ON webhook_deliveries (order_key, target_url, seq);
  CREATE TABLE webhook_attempts (
    delivery_id INTEGER NOT NULL,
    attempt INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    status_code INTEGER,
    latency_ms INTEGER NOT NULL,
    error TEXT,
    PRIMARY KEY (delivery_id, attempt)
  );
  `,
  `
  CREATE INDEX outbox_scheduled ON outbox (order_key, event) WHERE status = 'pending';
  `,
  `
  CREATE TABLE registry_businesses (
    bid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    profile_url TEXT NOT NULL UNIQUE,
    deployment_mode TEXT NOT NULL,
    status TEXT NOT NULL,
    owner TEXT,
    entry TEXT NOT NULL,
    lat REAL,
    lng REAL,
    verticals TEXT NOT NULL,
    categories TEXT NOT NULL,
    search_text TEXT NOT NULL,
    name_text TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    last_indexed_ms INTEGER,
    next_index_ms INTEGER NOT NULL,
    failures INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX registry_businesses_due ON registry_businesses (next_index_ms);
  CREATE TABLE registry_business_terms (bid INTEGER NOT NULL, term TEXT NOT NULL, PRIMARY KEY (term, bid)) WITHOUT ROWID;
  CREATE VIRTUAL TABLE registry_business_geo USING rtree (bid, min_lat, max_lat, min_lng, max_lng);
  CREATE TABLE registry_services (
    rid INTEGER PRIMARY KEY,
    bid INTEGER NOT NULL,
    business_id TEXT NOT NULL,
    service_id TEXT NOT NULL,
    vertical TEXT NOT NULL,
    terms TEXT NOT NULL,
    search_text TEXT NOT NULL,
    name_text TEXT NOT NULL,
    currency TEXT,
    price_min INTEGER,
    price_max INTEGER,
    dur_min INTEGER,
    dur_max INTEGER,
    lat REAL,
    lng REAL,
    result TEXT NOT NULL,
    indexed_ms INTEGER NOT NULL,
    UNIQUE (business_id, service_id)
  );
  CREATE INDEX registry_services_bid ON registry_services (bid);
  CREATE INDEX registry_services_price ON registry_services (currency, price_min);
  CREATE TABLE registry_service_terms (rid INTEGER NOT NULL, term TEXT NOT NULL, PRIMARY KEY (term, rid)) WITHOUT ROWID;
  CREATE INDEX registry_service_terms_rid ON registry_service_terms (rid);
  CREATE VIRTUAL TABLE registry_service_geo USING rtree (rid, min_lat, max_lat, min_lng, max_lng);
  `,
  `
  -- The operator's counts (metrics): bookings per status and active holds, each from an index.
  CREATE INDEX bookings_by_status ON bookings (status);
  CREATE INDEX holds_active ON holds (status, expires_at_ms);
  `,
  // Run-time administration: schedule changes, the audit log, business users and sessions, platform keys.
  `
  CREATE TABLE schedule_changes (
    id TEXT PRIMARY KEY,
    resource_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    start_ms INTEGER,
    end_ms INTEGER,
    date TEXT,
    hours TEXT,
    reason TEXT,
    created_ms INTEGER NOT NULL,
    created_by TEXT NOT NULL
  );
  CREATE INDEX schedule_changes_resource ON schedule_changes (resource_id);
  CREATE TABLE admin_audit (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms INTEGER NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT,
    outcome TEXT NOT NULL
  );
  CREATE TABLE business_users (email TEXT PRIMARY KEY, password_hash TEXT NOT NULL, created_ms INTEGER NOT NULL);
  CREATE TABLE admin_sessions (id_hash TEXT PRIMARY KEY, email TEXT NOT NULL, csrf TEXT NOT NULL, created_ms INTEGER NOT NULL, expires_ms INTEGER NOT NULL);
  CREATE TABLE platform_api_keys (id TEXT PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE, label TEXT NOT NULL, created_ms INTEGER NOT NULL, revoked_ms INTEGER);
  CREATE INDEX bookings_start ON bookings (json_extract(data, '$.priv.start_ms'));
  `,
  SQLITE_OAUTH_MIGRATION,
  // The longest claim ever added bounds the scan for claims overlapping an interval from below
  // (claims_by_resource is ordered by start); purges by expiry read an index instead of every row.
  `
  CREATE TABLE claim_span (id INTEGER PRIMARY KEY CHECK (id = 1), max_ms INTEGER NOT NULL);
  INSERT INTO claim_span (id, max_ms) SELECT 1, COALESCE(MAX(end_ms - start_ms), 0) FROM claims;
  CREATE INDEX claims_by_end ON claims (end_ms);
  CREATE INDEX claims_expiring ON claims (expires_at_ms) WHERE expires_at_ms IS NOT NULL;
  CREATE INDEX idempotency_expiry ON idempotency (expires_ms);
  CREATE INDEX proof_jti_expiry ON proof_jti (keep_until_ms);
  `,
  // Registry search indexes: free text through FTS5 trigram tables (every query word is a
  // substring of the text, so a trigram phrase finds exactly the candidates LIKE then confirms), and
  // category membership carrying the price and duration bounds, so a category + price search is
  // answered from this table's b-tree without reading the services' rows. Triggers keep both in step
  // with the tables they index; the existing rows are copied in.
  `
  CREATE VIRTUAL TABLE registry_service_fts USING fts5(search_text, content='', contentless_delete=1, tokenize='trigram');
  CREATE VIRTUAL TABLE registry_business_fts USING fts5(search_text, content='', contentless_delete=1, tokenize='trigram');
  INSERT INTO registry_service_fts (rowid, search_text) SELECT rid, search_text FROM registry_services;
  INSERT INTO registry_business_fts (rowid, search_text) SELECT bid, search_text FROM registry_businesses;
  CREATE TRIGGER registry_services_fts_ins AFTER INSERT ON registry_services BEGIN
    INSERT INTO registry_service_fts (rowid, search_text) VALUES (NEW.rid, NEW.search_text);
  END;
  CREATE TRIGGER registry_services_fts_del AFTER DELETE ON registry_services BEGIN
    DELETE FROM registry_service_fts WHERE rowid = OLD.rid;
  END;
  CREATE TRIGGER registry_services_fts_upd AFTER UPDATE OF search_text ON registry_services BEGIN
    DELETE FROM registry_service_fts WHERE rowid = OLD.rid;
    INSERT INTO registry_service_fts (rowid, search_text) VALUES (NEW.rid, NEW.search_text);
  END;
  CREATE TRIGGER registry_businesses_fts_ins AFTER INSERT ON registry_businesses BEGIN
    INSERT INTO registry_business_fts (rowid, search_text) VALUES (NEW.bid, NEW.search_text);
  END;
  CREATE TRIGGER registry_businesses_fts_del AFTER DELETE ON registry_businesses BEGIN
    DELETE FROM registry_business_fts WHERE rowid = OLD.bid;
  END;
  CREATE TRIGGER registry_businesses_fts_upd AFTER UPDATE OF search_text ON registry_businesses BEGIN
    DELETE FROM registry_business_fts WHERE rowid = OLD.bid;
    INSERT INTO registry_business_fts (rowid, search_text) VALUES (NEW.bid, NEW.search_text);
  END;
  CREATE TABLE registry_service_categories (
    term TEXT NOT NULL,
    rid INTEGER NOT NULL,
    currency TEXT,
    price_min INTEGER,
    price_max INTEGER,
    dur_min INTEGER,
    dur_max INTEGER,
    PRIMARY KEY (term, rid)
  ) WITHOUT ROWID;
  CREATE INDEX registry_service_categories_price ON registry_service_categories (term, currency, price_min, price_max, rid);
  INSERT INTO registry_service_categories (term, rid, currency, price_min, price_max, dur_min, dur_max)
    SELECT t.term, t.rid, s.currency, s.price_min, s.price_max, s.dur_min, s.dur_max FROM registry_service_terms t JOIN registry_services s ON s.rid = t.rid;
  CREATE TRIGGER registry_service_terms_cat_ins AFTER INSERT ON registry_service_terms BEGIN
    INSERT OR REPLACE INTO registry_service_categories (term, rid, currency, price_min, price_max, dur_min, dur_max)
      SELECT NEW.term, NEW.rid, s.currency, s.price_min, s.price_max, s.dur_min, s.dur_max FROM registry_services s WHERE s.rid = NEW.rid;
  END;
  CREATE TRIGGER registry_service_terms_cat_del AFTER DELETE ON registry_service_terms BEGIN
    DELETE FROM registry_service_categories WHERE term = OLD.term AND rid = OLD.rid;
  END;
  CREATE TRIGGER registry_services_cat_upd AFTER UPDATE OF currency, price_min, price_max, dur_min, dur_max ON registry_services BEGIN
    UPDATE registry_service_categories SET currency = NEW.currency, price_min = NEW.price_min, price_max = NEW.price_max, dur_min = NEW.dur_min, dur_max = NEW.dur_max
      WHERE term IN (SELECT term FROM registry_service_terms WHERE rid = NEW.rid) AND rid = NEW.rid;
  END;
  `,
  // Due webhook deliveries are read in (next_attempt_ms, seq) order with a LIMIT: with seq in the
  // index the scan stops after LIMIT rows. Without it every due row that shares a next_attempt_ms
  // (a batch expanded in one millisecond, a backlog for a platform that is down) was sorted on each
  // lease, so the dispatcher's cost grew with the backlog.
  `
  CREATE INDEX deliveries_due_order ON webhook_deliveries (status, next_attempt_ms, seq);
  DROP INDEX deliveries_due;
  -- Retention: expired credentials are purged by expiry (the sweep), read from this index.
  CREATE INDEX credentials_expiry ON credentials (expires_ms);
  `,
  // Availability versions: one counter per resource, bumped by triggers in the same transaction as
  // every change to a claim or a run-time schedule change on it (whatever code writes the row), so
  // a cached availability answer is still right exactly while the counters of its resources are
  // unchanged. Only ever incremented: the sum over a service's resources changes whenever one does.
  `
  CREATE TABLE resource_versions (resource_id TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TRIGGER claims_version_ins AFTER INSERT ON claims BEGIN
    INSERT INTO resource_versions (resource_id, version) VALUES (NEW.resource_id, 1)
      ON CONFLICT (resource_id) DO UPDATE SET version = version + 1;
  END;
  CREATE TRIGGER claims_version_del AFTER DELETE ON claims BEGIN
    INSERT INTO resource_versions (resource_id, version) VALUES (OLD.resource_id, 1)
      ON CONFLICT (resource_id) DO UPDATE SET version = version + 1;
  END;
  CREATE TRIGGER claims_version_upd AFTER UPDATE ON claims BEGIN
    INSERT INTO resource_versions (resource_id, version) VALUES (OLD.resource_id, 1)
      ON CONFLICT (resource_id) DO UPDATE SET version = version + 1;
    INSERT INTO resource_versions (resource_id, version) SELECT NEW.resource_id, 1 WHERE NEW.resource_id <> OLD.resource_id
      ON CONFLICT (resource_id) DO UPDATE SET version = version + 1;
  END;
  CREATE TRIGGER schedule_changes_version_ins AFTER INSERT ON schedule_changes BEGIN
    INSERT INTO resource_versions (resource_id, version) VALUES (NEW.resource_id, 1)
      ON CONFLICT (resource_id) DO UPDATE SET version = version + 1;
  END;
  CREATE TRIGGER schedule_changes_version_del AFTER DELETE ON schedule_changes BEGIN
    INSERT INTO resource_versions (resource_id, version) VALUES (OLD.resource_id, 1)
      ON CONFLICT (resource_id) DO UPDATE SET version = version + 1;
  END;
  CREATE TRIGGER schedule_changes_version_upd AFTER UPDATE ON schedule_changes BEGIN
    INSERT INTO resource_versions (resource_id, version) VALUES (OLD.resource_id, 1)
      ON CONFLICT (resource_id) DO UPDATE SET version = version + 1;
    INSERT INTO resource_versions (resource_id, version) SELECT NEW.resource_id, 1 WHERE NEW.resource_id <> OLD.resource_id
      ON CONFLICT (resource_id) DO UPDATE SET version = version + 1;
  END;
  `,
  // Payment provider jobs, applied provider events and provider ids (the payment provider port).
  SQLITE_PAYMENTS_MIGRATION,
  // The mail outbox: messages to people, committed with the change that causes them.
  SQLITE_MAIL_MIGRATION,
  // The business's definition as data (the business file becomes an import and export format) and its version.
  `
  CREATE TABLE definition_entries (
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    position INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (kind, id)
  ) WITHOUT ROWID;
  CREATE TABLE definition_version (one INTEGER PRIMARY KEY CHECK (one = 1), version INTEGER NOT NULL);
  `,
  // Client notes, and each booking's end as a column (personal-data retention reads it by index).
  SQLITE_FRONTDESK_MIGRATION,
  // Calendar busy claims (a source column on claims), feed state and the CalDAV push queue.
  SQLITE_CALENDARS_MIGRATION,
];
