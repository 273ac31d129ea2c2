/**
 * Schema of the PostgreSQL store. Each entry runs once, in order, recorded in `schema_migrations`;
 * the runner holds a session advisory lock so that several processes starting together on an empty
 * database apply every migration exactly once.
 *
 * Tables are written once for both engines (src/store/shared/schema) and rendered here with
 * PostgreSQL's types: BIGINT for epoch milliseconds, TEXT for the JSON documents in
 * `data`/`payload`/`body` (byte-for-byte parity with SQLite), BOOLEAN for flags. Ids that are ordered
 * or paginated on use the "C" collation so that they sort bytewise, as in SQLite. A migration is
 * recorded by its position: an entry, once released, keeps its meaning (test/store/migrations-snapshot).
 */
import * as ddl from '../shared/schema/index.js';
import { POSTGRES_CALENDARS_MIGRATION } from './calendars.js';
import { POSTGRES_FRONTDESK_MIGRATION } from './frontdesk-repo.js';

const t = ddl.POSTGRES_TYPES;

/** A table constraint of `claims` that only PostgreSQL can express. */
const CLAIMS_NO_OVERLAP = `,
    -- Database-level net under the advisory locks: two firm claims (no expiry: confirmed bookings)
    -- of different slots never overlap on one resource. Claims of one shared slot (group classes)
    -- may. Holds and pending bookings expire by the caller's clock, which a constraint cannot see,
    -- so they are left to the check-and-reserve lock; they become firm (and checked) on confirmation.
    CONSTRAINT claims_no_overlap EXCLUDE USING gist (
      resource_id WITH =,
      int8range(start_ms, GREATEST(start_ms, end_ms)) WITH &&,
      slot_key WITH <>
    ) WHERE (expires_at_ms IS NULL)`;

/** The outbox as PostgreSQL created it in one step (SQLite added `profile` and `status` later). */
const OUTBOX = `
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
`;

export const POSTGRES_MIGRATIONS: readonly string[] = [
  [
    ddl.claimsTable(t, CLAIMS_NO_OVERLAP),
    ddl.bookingsTable(t),
    '  CREATE INDEX bookings_by_status ON bookings (status, seq);',
    ddl.holdsTable(t),
    ddl.waitlistTable(t),
    ddl.idempotencyTable(t),
    ddl.IDEMPOTENCY_EXPIRY_INDEX,
    ddl.catalogTables(t),
    OUTBOX,
    ddl.KV_TABLE,
    ddl.securityTables(t, ddl.PROOF_JTI_EXPIRY_INDEX),
    ddl.webhookTables(t),
  ].join('\n'),
  `
  CREATE INDEX IF NOT EXISTS outbox_scheduled ON outbox (order_key, event) WHERE status = 'pending';
  `,
  `${ddl.registryBusinessesTable(t, 'IF NOT EXISTS ')}
  CREATE INDEX IF NOT EXISTS registry_businesses_due ON registry_businesses (next_index_ms);
  CREATE INDEX IF NOT EXISTS registry_businesses_geo ON registry_businesses (lat, lng) WHERE lat IS NOT NULL;
  ${ddl.registryTermsTable(t, 'IF NOT EXISTS ', 'registry_business_terms', 'bid')}
  ${ddl.registryServicesTable(t, 'IF NOT EXISTS ')}
  CREATE INDEX IF NOT EXISTS registry_services_bid ON registry_services (bid);
  CREATE INDEX IF NOT EXISTS registry_services_geo ON registry_services (lat, lng) WHERE lat IS NOT NULL;
  CREATE INDEX IF NOT EXISTS registry_services_price ON registry_services (currency, price_min);
  ${ddl.registryTermsTable(t, 'IF NOT EXISTS ', 'registry_service_terms', 'rid')}
  CREATE INDEX IF NOT EXISTS registry_service_terms_rid ON registry_service_terms (rid);
  `,
  `
  -- The operator's counts (metrics): bookings per status and active holds, each from an index.
  CREATE INDEX IF NOT EXISTS bookings_by_status ON bookings (status);
  CREATE INDEX IF NOT EXISTS holds_active ON holds (status, expires_at_ms);
  `,
  // Run-time administration: schedule changes, the audit log, business users and sessions, platform keys.
  ddl.adminTables(t, 'IF NOT EXISTS '),
  ddl.oauthTables(t),
  // The longest claim ever added bounds the scan for claims overlapping an interval from below
  // (claims_by_resource is ordered by start); purges by expiry read an index instead of every row.
  ddl.claimSpanTable(t),
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
  `${ddl.resourceVersionsTable(t)}  CREATE FUNCTION bump_resource_version() RETURNS trigger LANGUAGE plpgsql AS $$
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
  ddl.paymentTables(t),
  // The mail outbox: messages to people, committed with the change that causes them.
  ddl.mailTables(t),
  // The business's definition as data (the business file becomes an import and export format) and its version.
  ddl.definitionTables(t),
  // Client notes, and each booking's end as a column (personal-data retention reads it by index).
  POSTGRES_FRONTDESK_MIGRATION,
  // Calendar busy claims (a source column on claims), feed state and the CalDAV push queue.
  POSTGRES_CALENDARS_MIGRATION,
  // The mail outbox becomes the notification outbox: a channel on each message ('email' so far).
  ddl.NOTIFICATION_CHANNEL_MIGRATION,
];
