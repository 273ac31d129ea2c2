import * as ddl from '../shared/schema/index.js';
import { SQLITE_CALENDARS_MIGRATION } from './calendars.js';
import { SQLITE_FRONTDESK_MIGRATION } from './frontdesk-repo.js';

const t = ddl.SQLITE_TYPES;

/**
 * Triggers that keep `target` in step with `table` on insert, delete and update of `columns`:
 * `insert` and `remove` are the statements for one row, written with the row as `ROW`.
 */
function mirrorTriggers(name: string, table: string, columns: string | null, insert: string, remove: string): string {
  const ins = insert.replaceAll('ROW.', 'NEW.');
  const del = remove.replaceAll('ROW.', 'OLD.');
  return `
  CREATE TRIGGER ${name}_ins AFTER INSERT ON ${table} BEGIN
    ${ins}
  END;
  CREATE TRIGGER ${name}_del AFTER DELETE ON ${table} BEGIN
    ${del}
  END;
  CREATE TRIGGER ${name}_upd AFTER UPDATE${columns ? ` OF ${columns}` : ''} ON ${table} BEGIN
    ${del}
    ${ins}
  END;`;
}

/** A trigram full-text table mirroring `table`'s search_text, keyed by its rowid `key`. */
const ftsTriggers = (table: string, fts: string, key: string) =>
  mirrorTriggers(
    `${table}_fts`,
    table,
    'search_text',
    `INSERT INTO ${fts} (rowid, search_text) VALUES (ROW.${key}, ROW.search_text);`,
    `DELETE FROM ${fts} WHERE rowid = ROW.${key};`,
  );

const BUMP = (
  row: 'NEW' | 'OLD',
) => `INSERT INTO resource_versions (resource_id, version) VALUES (${row}.resource_id, 1)
      ON CONFLICT (resource_id) DO UPDATE SET version = version + 1;`;

/** Bumps the version of the resource a row of `table` is on (both resources when it moves). */
const versionTriggers = (table: string) => `
  CREATE TRIGGER ${table}_version_ins AFTER INSERT ON ${table} BEGIN
    ${BUMP('NEW')}
  END;
  CREATE TRIGGER ${table}_version_del AFTER DELETE ON ${table} BEGIN
    ${BUMP('OLD')}
  END;
  CREATE TRIGGER ${table}_version_upd AFTER UPDATE ON ${table} BEGIN
    ${BUMP('OLD')}
    INSERT INTO resource_versions (resource_id, version) SELECT NEW.resource_id, 1 WHERE NEW.resource_id <> OLD.resource_id
      ON CONFLICT (resource_id) DO UPDATE SET version = version + 1;
  END;`;

/**
 * Schema of the embedded store. Each entry runs once, in order, recorded in `schema_migrations` by its
 * position: an entry, once released, keeps its meaning (test/store/migrations-snapshot). Tables are
 * written once for both engines (src/store/shared/schema) and rendered here with SQLite's types.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  [
    ddl.claimsTable(t),
    ddl.bookingsTable(t),
    ddl.holdsTable(t),
    ddl.waitlistTable(t),
    ddl.idempotencyTable(t),
    ddl.catalogTables(t),
    `
  CREATE TABLE outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL UNIQUE,
    event TEXT NOT NULL,
    order_key TEXT NOT NULL,
    principal TEXT,
    payload TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    due_ms INTEGER NOT NULL
  );`,
    ddl.KV_TABLE,
  ].join('\n'),
  ddl.securityTables(t),
  `
  ALTER TABLE outbox ADD COLUMN profile TEXT;
  ALTER TABLE outbox ADD COLUMN status TEXT NOT NULL DEFAULT 'pending';
  CREATE INDEX outbox_due ON outbox (status, due_ms, seq);
${ddl.webhookTables(t)}  `,
  `
  CREATE INDEX outbox_scheduled ON outbox (order_key, event) WHERE status = 'pending';
  `,
  `
${ddl.registryBusinessesTable(t, '')}
  CREATE INDEX registry_businesses_due ON registry_businesses (next_index_ms);
${ddl.registryTermsTable(t, '', 'registry_business_terms', 'bid')}
  CREATE VIRTUAL TABLE registry_business_geo USING rtree (bid, min_lat, max_lat, min_lng, max_lng);
${ddl.registryServicesTable(t, '')}
  CREATE INDEX registry_services_bid ON registry_services (bid);
  CREATE INDEX registry_services_price ON registry_services (currency, price_min);
${ddl.registryTermsTable(t, '', 'registry_service_terms', 'rid')}
  CREATE INDEX registry_service_terms_rid ON registry_service_terms (rid);
  CREATE VIRTUAL TABLE registry_service_geo USING rtree (rid, min_lat, max_lat, min_lng, max_lng);
  `,
  `
  -- The operator's counts (metrics): bookings per status and active holds, each from an index.
  CREATE INDEX bookings_by_status ON bookings (status);
  CREATE INDEX holds_active ON holds (status, expires_at_ms);
  `,
  // Run-time administration: schedule changes, the audit log, business users and sessions, platform keys.
  `${ddl.adminTables(t, '')}  CREATE INDEX bookings_start ON bookings (json_extract(data, '$.priv.start_ms'));
  `,
  ddl.oauthTables(t),
  // The longest claim ever added bounds the scan for claims overlapping an interval from below
  // (claims_by_resource is ordered by start); purges by expiry read an index instead of every row.
  ddl.claimSpanTable(t) + ddl.IDEMPOTENCY_EXPIRY_INDEX + ddl.PROOF_JTI_EXPIRY_INDEX,
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
${ftsTriggers('registry_services', 'registry_service_fts', 'rid')}${ftsTriggers('registry_businesses', 'registry_business_fts', 'bid')}
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
  ddl.resourceVersionsTable(t) + versionTriggers('claims') + versionTriggers('schedule_changes'),
  // Payment provider jobs, applied provider events and provider ids (the payment provider port).
  ddl.paymentTables(t),
  // The mail outbox: messages to people, committed with the change that causes them.
  ddl.mailTables(t),
  // The business's definition as data (the business file becomes an import and export format) and its version.
  ddl.definitionTables(t),
  // Client notes, and each booking's end as a column (personal-data retention reads it by index).
  SQLITE_FRONTDESK_MIGRATION,
  // Calendar busy claims (a source column on claims), feed state and the CalDAV push queue.
  SQLITE_CALENDARS_MIGRATION,
  // The mail outbox becomes the notification outbox: a channel on each message ('email' so far).
  ddl.NOTIFICATION_CHANNEL_MIGRATION,
];
