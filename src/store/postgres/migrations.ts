/**
 * Schema of the PostgreSQL store. Each entry runs once, in order, recorded in `schema_migrations`;
 * the runner holds a session advisory lock so that several processes starting together on an empty
 * database apply every migration exactly once.
 *
 * Tables mirror the SQLite schema column for column: BIGINT for epoch milliseconds, TEXT for the
 * JSON documents in `data`/`payload`/`body` (byte-for-byte parity with SQLite), BOOLEAN for flags.
 * Ids that are ordered or paginated on use the "C" collation so that they sort bytewise, as in SQLite.
 */
import { POSTGRES_FRONTDESK_MIGRATION } from './frontdesk-repo.js';
import { POSTGRES_OAUTH_MIGRATION } from './oauth-repo.js';
import { POSTGRES_PAYMENTS_MIGRATION } from './payments.js';
import { POSTGRES_MAIL_MIGRATION } from './mail.js';
import { POSTGRES_CALENDARS_MIGRATION } from './calendars.js';

export const POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE claims (
    resource_id TEXT NOT NULL,
    start_ms BIGINT NOT NULL,
    end_ms BIGINT NOT NULL,
    slot_key TEXT NOT NULL,
    owner_id TEXT NOT NULL,
    spots INTEGER NOT NULL,
    is_hold BOOLEAN NOT NULL,
    service_id TEXT NOT NULL,
    expires_at_ms BIGINT,
    PRIMARY KEY (owner_id, resource_id),
    -- Database-level net under the advisory locks: two firm claims (no expiry: confirmed bookings)
    -- of different slots never overlap on one resource. Claims of one shared slot (group classes)
    -- may. Holds and pending bookings expire by the caller's clock, which a constraint cannot see,
    -- so they are left to the check-and-reserve lock; they become firm (and checked) on confirmation.
    CONSTRAINT claims_no_overlap EXCLUDE USING gist (
      resource_id WITH =,
      int8range(start_ms, GREATEST(start_ms, end_ms)) WITH &&,
      slot_key WITH <>
    ) WHERE (expires_at_ms IS NULL)
  );
  CREATE INDEX claims_by_resource ON claims (resource_id, start_ms);

  CREATE TABLE bookings (
    seq BIGSERIAL NOT NULL UNIQUE,
    id TEXT PRIMARY KEY,
    service_id TEXT NOT NULL,
    status TEXT NOT NULL,
    hold_id TEXT UNIQUE,
    principal TEXT,
    expires_at_ms BIGINT,
    data TEXT NOT NULL
  );
  CREATE INDEX bookings_pending_expiry ON bookings (expires_at_ms) WHERE status IN ('pending', 'requires_action');
  CREATE INDEX bookings_by_status ON bookings (status, seq);

  CREATE TABLE holds (
    id TEXT PRIMARY KEY,
    service_id TEXT NOT NULL,
    status TEXT NOT NULL,
    principal TEXT,
    buyer_key TEXT,
    expires_at_ms BIGINT NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX holds_by_principal ON holds (principal, service_id, status);

  CREATE TABLE waitlist_entries (
    id TEXT COLLATE "C" PRIMARY KEY,
    service_id TEXT NOT NULL,
    status TEXT NOT NULL,
    principal TEXT,
    created_ms BIGINT NOT NULL,
    offer_expires_ms BIGINT,
    data TEXT NOT NULL
  );
  CREATE INDEX waitlist_by_service ON waitlist_entries (service_id, status, created_ms);
  CREATE INDEX waitlist_by_principal ON waitlist_entries (principal, created_ms, id);

  CREATE TABLE idempotency (
    scope TEXT PRIMARY KEY,
    request_hash TEXT NOT NULL,
    status INTEGER NOT NULL,
    body TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL
  );
  CREATE INDEX idempotency_expiry ON idempotency (expires_ms);

  CREATE TABLE catalog (
    id TEXT COLLATE "C" PRIMARY KEY,
    data TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    modified_ms BIGINT NOT NULL,
    deleted BOOLEAN NOT NULL
  );
  CREATE INDEX catalog_feed ON catalog (modified_ms, id);

  CREATE TABLE feed_subscriptions (
    id TEXT COLLATE "C" PRIMARY KEY,
    status TEXT NOT NULL,
    principal TEXT,
    data TEXT NOT NULL
  );

  CREATE TABLE outbox (
    seq BIGSERIAL PRIMARY KEY,
    event_id TEXT NOT NULL UNIQUE,
    event TEXT NOT NULL,
    order_key TEXT NOT NULL,
    principal TEXT,
    profile TEXT,
    payload TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    due_ms BIGINT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending'
  );
  CREATE INDEX outbox_due ON outbox (status, due_ms, seq);
  CREATE INDEX outbox_by_order_key ON outbox (order_key, event) WHERE status = 'pending';

  CREATE TABLE kv (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE TABLE credentials (
    value_hash TEXT PRIMARY KEY,
    resource_kind TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    jkt TEXT,
    principal TEXT,
    expires_ms BIGINT NOT NULL,
    revoked BOOLEAN NOT NULL DEFAULT FALSE
  );
  CREATE INDEX credentials_by_resource ON credentials (resource_id);

  CREATE TABLE proof_jti (
    jti TEXT PRIMARY KEY,
    keep_until_ms BIGINT NOT NULL
  );
  CREATE INDEX proof_jti_expiry ON proof_jti (keep_until_ms);

  CREATE TABLE principal_bindings (
    principal TEXT PRIMARY KEY,
    profile TEXT NOT NULL,
    bound_ms BIGINT NOT NULL
  );

  CREATE TABLE webhook_deliveries (
    id BIGSERIAL PRIMARY KEY,
    event_id TEXT NOT NULL,
    event TEXT NOT NULL,
    seq BIGINT NOT NULL,
    order_key TEXT NOT NULL,
    target_url TEXT NOT NULL,
    subscription_id TEXT,
    body TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms BIGINT NOT NULL,
    lease_until_ms BIGINT,
    created_ms BIGINT NOT NULL,
    delivered_ms BIGINT,
    last_status INTEGER,
    last_error TEXT,
    last_latency_ms DOUBLE PRECISION,
    UNIQUE (event_id, target_url)
  );
  CREATE INDEX deliveries_due ON webhook_deliveries (status, next_attempt_ms);
  CREATE INDEX deliveries_order ON webhook_deliveries (order_key, target_url, seq);

  CREATE TABLE webhook_attempts (
    delivery_id BIGINT NOT NULL,
    attempt INTEGER NOT NULL,
    at_ms BIGINT NOT NULL,
    status_code INTEGER,
    latency_ms DOUBLE PRECISION NOT NULL,
    error TEXT,
    PRIMARY KEY (delivery_id, attempt)
  );
  `,
  `
  CREATE INDEX IF NOT EXISTS outbox_scheduled ON outbox (order_key, event) WHERE status = 'pending';
  `,
  `
  CREATE TABLE IF NOT EXISTS registry_businesses (
    bid BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    profile_url TEXT NOT NULL UNIQUE,
    deployment_mode TEXT NOT NULL,
    status TEXT NOT NULL,
    owner TEXT,
    entry TEXT NOT NULL,
    lat DOUBLE PRECISION,
    lng DOUBLE PRECISION,
    verticals TEXT NOT NULL,
    categories TEXT NOT NULL,
    search_text TEXT NOT NULL,
    name_text TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    last_indexed_ms BIGINT,
    next_index_ms BIGINT NOT NULL,
    failures INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS registry_businesses_due ON registry_businesses (next_index_ms);
  CREATE INDEX IF NOT EXISTS registry_businesses_geo ON registry_businesses (lat, lng) WHERE lat IS NOT NULL;
  CREATE TABLE IF NOT EXISTS registry_business_terms (bid BIGINT NOT NULL, term TEXT NOT NULL, PRIMARY KEY (term, bid));
  CREATE TABLE IF NOT EXISTS registry_services (
    rid BIGSERIAL PRIMARY KEY,
    bid BIGINT NOT NULL,
    business_id TEXT NOT NULL,
    service_id TEXT NOT NULL,
    vertical TEXT NOT NULL,
    terms TEXT NOT NULL,
    search_text TEXT NOT NULL,
    name_text TEXT NOT NULL,
    currency TEXT,
    price_min BIGINT,
    price_max BIGINT,
    dur_min INTEGER,
    dur_max INTEGER,
    lat DOUBLE PRECISION,
    lng DOUBLE PRECISION,
    result TEXT NOT NULL,
    indexed_ms BIGINT NOT NULL,
    UNIQUE (business_id, service_id)
  );
  CREATE INDEX IF NOT EXISTS registry_services_bid ON registry_services (bid);
  CREATE INDEX IF NOT EXISTS registry_services_geo ON registry_services (lat, lng) WHERE lat IS NOT NULL;
  CREATE INDEX IF NOT EXISTS registry_services_price ON registry_services (currency, price_min);
  CREATE TABLE IF NOT EXISTS registry_service_terms (rid BIGINT NOT NULL, term TEXT NOT NULL, PRIMARY KEY (term, rid));
  CREATE INDEX IF NOT EXISTS registry_service_terms_rid ON registry_service_terms (rid);
  `,
  `
  -- The operator's counts (metrics): bookings per status and active holds, each from an index.
  CREATE INDEX IF NOT EXISTS bookings_by_status ON bookings (status);
  CREATE INDEX IF NOT EXISTS holds_active ON holds (status, expires_at_ms);
  `,
  // Run-time administration: schedule changes, the audit log, business users and sessions, platform keys.
  `
  CREATE TABLE IF NOT EXISTS schedule_changes (
    id TEXT PRIMARY KEY,
    resource_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    start_ms BIGINT,
    end_ms BIGINT,
    date TEXT,
    hours TEXT,
    reason TEXT,
    created_ms BIGINT NOT NULL,
    created_by TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS schedule_changes_resource ON schedule_changes (resource_id);
  CREATE TABLE IF NOT EXISTS admin_audit (
    seq BIGSERIAL PRIMARY KEY,
    at_ms BIGINT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT,
    outcome TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS business_users (email TEXT PRIMARY KEY, password_hash TEXT NOT NULL, created_ms BIGINT NOT NULL);
  CREATE TABLE IF NOT EXISTS admin_sessions (id_hash TEXT PRIMARY KEY, email TEXT NOT NULL, csrf TEXT NOT NULL, created_ms BIGINT NOT NULL, expires_ms BIGINT NOT NULL);
  CREATE TABLE IF NOT EXISTS platform_api_keys (id TEXT PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE, label TEXT NOT NULL, created_ms BIGINT NOT NULL, revoked_ms BIGINT);
  `,
  POSTGRES_OAUTH_MIGRATION,
  // The longest claim ever added bounds the scan for claims overlapping an interval from below
  // (claims_by_resource is ordered by start); purges by expiry read an index instead of every row.
  `
  CREATE TABLE claim_span (id INTEGER PRIMARY KEY CHECK (id = 1), max_ms BIGINT NOT NULL);
  INSERT INTO claim_span (id, max_ms) SELECT 1, COALESCE(MAX(end_ms - start_ms), 0) FROM claims;
  CREATE INDEX claims_by_end ON claims (end_ms);
  CREATE INDEX claims_expiring ON claims (expires_at_ms) WHERE expires_at_ms IS NOT NULL;
  `,
  // Registry search indexes: trigram GIN indexes (pg_trgm, created with btree_gist by the
  // store) serve the free-text LIKE '%word%' predicates as they are written; the operator class is
  // named in the schema the extension lives in, since a store's search_path holds only its own schema.
  // No pending list (fastupdate off): every search would scan it, unsorted, until a vacuum merged it.
  `
  DO $$
  DECLARE ext_schema TEXT;
  BEGIN
    SELECT n.nspname INTO ext_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
    IF ext_schema IS NULL THEN RAISE EXCEPTION 'the pg_trgm extension is missing'; END IF;
    EXECUTE format('CREATE INDEX IF NOT EXISTS registry_services_text ON registry_services USING gin (search_text %I.gin_trgm_ops) WITH (fastupdate = off)', ext_schema);
    EXECUTE format('CREATE INDEX IF NOT EXISTS registry_businesses_text ON registry_businesses USING gin (search_text %I.gin_trgm_ops) WITH (fastupdate = off)', ext_schema);
  END $$;
  -- A search reads a few thousand rows at most: starting parallel workers costs more than it saves.
  ALTER TABLE registry_services SET (parallel_workers = 0);
  ALTER TABLE registry_businesses SET (parallel_workers = 0);
  `,
  // Due webhook deliveries are read in (next_attempt_ms, seq) order with a LIMIT: with seq in the
  // index the scan stops after LIMIT rows instead of sorting every due row (see the SQLite migration).
  `
  CREATE INDEX IF NOT EXISTS deliveries_due_order ON webhook_deliveries (status, next_attempt_ms, seq);
  DROP INDEX IF EXISTS deliveries_due;
  CREATE INDEX IF NOT EXISTS credentials_expiry ON credentials (expires_ms);
  `,
  // Availability versions: one counter per resource, bumped by triggers in the same transaction as
  // every change to a claim or a run-time schedule change on it (whatever code writes the rows), so
  // a cached availability answer is still right exactly while the counters of its resources are
  // unchanged; a reader in another process sees the bump with the rows it describes. The triggers
  // are deferred to COMMIT: the counter's row lock is then held only while the transaction commits,
  // never while it goes on to wait for a resource's advisory lock (a cancellation that offers the
  // freed place to the waitlist locks the slot's resources after removing its claims).
  `
  CREATE TABLE resource_versions (resource_id TEXT PRIMARY KEY, version BIGINT NOT NULL);
  CREATE FUNCTION bump_resource_version() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO resource_versions (resource_id, version) VALUES (NEW.resource_id, 1)
        ON CONFLICT (resource_id) DO UPDATE SET version = resource_versions.version + 1;
    ELSE
      INSERT INTO resource_versions (resource_id, version) VALUES (OLD.resource_id, 1)
        ON CONFLICT (resource_id) DO UPDATE SET version = resource_versions.version + 1;
      IF TG_OP = 'UPDATE' THEN
        IF NEW.resource_id <> OLD.resource_id THEN
          INSERT INTO resource_versions (resource_id, version) VALUES (NEW.resource_id, 1)
            ON CONFLICT (resource_id) DO UPDATE SET version = resource_versions.version + 1;
        END IF;
      END IF;
    END IF;
    RETURN NULL;
  END $$;
  CREATE CONSTRAINT TRIGGER claims_version AFTER INSERT OR UPDATE OR DELETE ON claims
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_resource_version();
  CREATE CONSTRAINT TRIGGER schedule_changes_version AFTER INSERT OR UPDATE OR DELETE ON schedule_changes
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_resource_version();
  `,
  // Payment provider jobs, applied provider events and provider ids (the payment provider port).
  POSTGRES_PAYMENTS_MIGRATION,
  // The mail outbox: messages to people, committed with the change that causes them.
  POSTGRES_MAIL_MIGRATION,
  // The business's definition as data (the business file becomes an import and export format) and its version.
  `
  CREATE TABLE definition_entries (
    kind TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    position INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (kind, id)
  );
  CREATE TABLE definition_version (one INTEGER PRIMARY KEY CHECK (one = 1), version BIGINT NOT NULL);
  `,
  // Client notes, and each booking's end as a column (personal-data retention reads it by index).
  POSTGRES_FRONTDESK_MIGRATION,
  // Calendar busy claims (a source column on claims), feed state and the CalDAV push queue.
  POSTGRES_CALENDARS_MIGRATION,
];
