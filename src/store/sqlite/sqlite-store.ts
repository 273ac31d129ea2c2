/**
 * The embedded store: SQLite through better-sqlite3 in WAL mode. The driver is synchronous, so
 * transactions are serialized through a promise queue: an async transaction body can await
 * between statements without another request's statements landing inside it.
 *
 * Faults of the file rather than of the statement (another process holding the write lock past
 * the busy timeout, a read-only or removed file, a full disk, an I/O error) fail the call with
 * `StoreUnavailable`; the transaction is rolled back, so nothing half-written stays behind.
 */
import Database from 'better-sqlite3';
import { mkdirSync, statSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { BookingRecord, HoldRecord, SubscriptionRecord, WaitlistRecord, WaitlistStatus } from '../../domain/index.js';
import type { ClaimRow, DeliveryAttempt, IdempotencyRecord, OutboxEvent, Store, StoredService, Tx, WaitlistQuery, WebhookDelivery } from '../port.js';
import { StoreUnavailable, eventBody } from '../port.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import { sqliteRegistryRepo } from './registry-repo.js';
import { sqliteAdminRepo } from './admin-repo.js';
import { sqliteOAuthRepos } from './oauth-repo.js';

type Db = Database.Database;

export interface SqliteStoreOptions {
  /** File path, or ':memory:'. */
  path: string;
  /**
   * How long a write waits for another process's lock before the call answers service_unavailable
   * (SQLite busy_timeout, default 5000 ms). The driver is synchronous: the wait blocks this process.
   */
  busyTimeoutMs?: number;
}

/** SQLite result codes that mean the file, not the statement, is at fault (extended codes start with these). */
const FILE_FAULTS = ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_READONLY', 'SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_PROTOCOL'];

const FAULT_REASON: Record<string, string> = {
  SQLITE_BUSY: 'the database file is locked by another process',
  SQLITE_LOCKED: 'the database file is locked',
  SQLITE_READONLY_DBMOVED: 'the database file was moved or deleted',
  SQLITE_READONLY: 'the database file is read-only',
  SQLITE_FULL: 'the disk is full',
  SQLITE_IOERR: 'an I/O error on the database file',
  SQLITE_CANTOPEN: 'the database file cannot be opened (missing directory, no permission, or a read-only file system)',
  SQLITE_PROTOCOL: 'the database file lock protocol failed',
};

/** The file-level fault behind an error, as StoreUnavailable; undefined when the statement itself failed. */
export function sqliteFault(err: unknown): StoreUnavailable | undefined {
  if (err instanceof StoreUnavailable) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !FILE_FAULTS.some((f) => code === f || code.startsWith(`${f}_`))) return undefined;
  const reason = FAULT_REASON[code] ?? FAULT_REASON[FILE_FAULTS.find((f) => code.startsWith(f))!];
  return new StoreUnavailable(`${reason} (${code})`, { cause: err });
}

export function openSqliteStore(opts: SqliteStoreOptions): Store {
  if (opts.path !== ':memory:') mkdirSync(dirname(opts.path), { recursive: true });
  let db: Db | undefined;
  try {
    db = new Database(opts.path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
    db.pragma('foreign_keys = ON');
    migrate(db);
  } catch (err) {
    db?.close();
    // A read-only, locked or full file at start: say so plainly (the process will not start).
    throw sqliteFault(err) ?? err;
  }
  let file: WatchedFile | undefined;
  if (opts.path !== ':memory:' && opts.path !== '') {
    const st = statSync(opts.path);
    file = { path: opts.path, dev: st.dev, ino: st.ino };
  }
  return new SqliteStore(db, file);
}

/** The file the connection opened: SQLite keeps writing to it even after it is deleted or replaced. */
interface WatchedFile {
  path: string;
  dev: number;
  ino: number;
}

function migrate(db: Db): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL)');
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  const done = row.v ?? 0;
  for (let i = done; i < SQLITE_MIGRATIONS.length; i++) {
    db.transaction(() => {
      db.exec(SQLITE_MIGRATIONS[i]);
      db.prepare('INSERT INTO schema_migrations (version, applied_ms) VALUES (?, ?)').run(i + 1, Date.now());
    })();
  }
}

class SqliteStore implements Store {
  readonly engine = 'sqlite' as const;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly tx: Tx;
  private closed = false;

  // Prepared once: parsing BEGIN/COMMIT on every call was a visible share of short requests.
  private readonly begin: Database.Statement;
  private readonly beginRead: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly rollback: Database.Statement;

  constructor(
    private readonly db: Db,
    private readonly file?: WatchedFile,
  ) {
    this.tx = buildRepos(db);
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.beginRead = db.prepare('BEGIN');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
  }

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.serialize(async () => {
      try {
        this.checkFile();
        this.begin.run();
        try {
          const out = await fn(this.tx);
          this.commit.run();
          return out;
        } catch (err) {
          this.abort();
          throw err;
        }
      } catch (err) {
        throw sqliteFault(err) ?? err;
      }
    });
  }

  read<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.serialize(async () => {
      try {
        this.checkFile();
        this.beginRead.run();
        try {
          return await fn(this.tx);
        } finally {
          this.abort();
        }
      } catch (err) {
        throw sqliteFault(err) ?? err;
      }
    });
  }

  /** Readiness: the file is still where we opened it, its schema is this build's, and a write lock can be taken (then released). */
  ping(): Promise<void> {
    if (this.file) {
      // A write of a few bytes may still fit in a page the file already has: look at the disk too.
      const fs = statfsSync(dirname(this.file.path));
      if (fs.bavail * fs.bsize < MIN_FREE_BYTES) return Promise.reject(new StoreUnavailable('the disk is full (SQLITE_FULL)'));
    }
    return this.transaction(async () => {
      // A write proves the file takes writes (not read-only, not moved); it is rolled back below.
      this.db.prepare("INSERT INTO main.kv (key, value) VALUES ('usp:ping', '') ON CONFLICT (key) DO NOTHING").run();
      const applied = (this.db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0;
      if (applied < SQLITE_MIGRATIONS.length) throw new StoreUnavailable(`migrations not applied (schema at ${applied} of ${SQLITE_MIGRATIONS.length})`);
      throw PING_DONE;
    }).catch((err) => {
      if (err !== PING_DONE) throw err;
    });
  }

  /**
   * The path still names the file we opened. A deleted or replaced file is not noticed by SQLite:
   * writes would go on into a file nobody will ever open again (lost at the next start), and reads
   * would not see a restored copy. A stat per transaction costs a few microseconds.
   */
  private checkFile(): void {
    if (!this.file) return;
    let st;
    try {
      st = statSync(this.file.path);
    } catch {
      throw new StoreUnavailable(`the database file ${this.file.path} was moved or deleted`);
    }
    if (st.ino !== this.file.ino || st.dev !== this.file.dev) throw new StoreUnavailable(`the database file ${this.file.path} was replaced by another file`);
  }

  /** Roll back whatever is open; a failing rollback (the disk went away) must not hide the first error. */
  private abort(): void {
    try {
      if (this.db.inTransaction) this.rollback.run();
    } catch {
      /* SQLite rolled back itself, or cannot: the transaction did not commit either way */
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.catch(() => undefined);
    this.db.close();
  }

  private serialize<T>(job: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const run = this.queue.then(job, job);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

const PING_DONE = Symbol('ping done');
/** Readiness fails below this much free space next to the database file. */
const MIN_FREE_BYTES = 256 * 1024;

const json = (v: unknown) => JSON.stringify(v);
const parse = <T>(s: string): T => JSON.parse(s) as T;

function buildRepos(db: Db): Tx {
  const q = {
    claimsActive: (n: number) =>
      db.prepare(
        `SELECT * FROM claims WHERE resource_id IN (${Array(n).fill('?').join(',')})
         AND start_ms < ? AND end_ms > ? AND (expires_at_ms IS NULL OR expires_at_ms > ?)`,
      ),
    claimInsert: db.prepare(
      `INSERT INTO claims (resource_id, start_ms, end_ms, slot_key, owner_id, spots, is_hold, service_id, expires_at_ms)
       VALUES (@resource_id, @start_ms, @end_ms, @slot_key, @owner_id, @spots, @is_hold, @service_id, @expires_at_ms)`,
    ),
    claimDelete: db.prepare('DELETE FROM claims WHERE owner_id = ?'),
    claimTransfer: db.prepare('UPDATE claims SET owner_id = ?, is_hold = 0, expires_at_ms = ? WHERE owner_id = ?'),
    claimExpiry: db.prepare('UPDATE claims SET expires_at_ms = ? WHERE owner_id = ?'),
    claimPurge: db.prepare('DELETE FROM claims WHERE end_ms <= ? OR (expires_at_ms IS NOT NULL AND expires_at_ms <= ?)'),
    bookingGet: db.prepare('SELECT data FROM bookings WHERE id = ?'),
    bookingByHold: db.prepare('SELECT data FROM bookings WHERE hold_id = ?'),
    bookingInsert: db.prepare(
      'INSERT INTO bookings (id, service_id, status, hold_id, principal, expires_at_ms, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    bookingUpdate: db.prepare('UPDATE bookings SET status = ?, expires_at_ms = ?, data = ? WHERE id = ?'),
    bookingExpired: db.prepare(
      `SELECT id FROM bookings WHERE status IN ('pending', 'requires_action') AND expires_at_ms IS NOT NULL AND expires_at_ms <= ? LIMIT ?`,
    ),
    holdGet: db.prepare('SELECT data FROM holds WHERE id = ?'),
    holdInsert: db.prepare(
      'INSERT INTO holds (id, service_id, status, principal, buyer_key, expires_at_ms, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    holdUpdate: db.prepare('UPDATE holds SET status = ?, expires_at_ms = ?, data = ? WHERE id = ?'),
    holdCount: db.prepare(
      `SELECT COUNT(*) AS n FROM holds WHERE principal IS ? AND buyer_key IS ? AND service_id = ? AND status = 'active' AND expires_at_ms > ?`,
    ),
    wlGet: db.prepare('SELECT data FROM waitlist_entries WHERE id = ?'),
    wlInsert: db.prepare(
      'INSERT INTO waitlist_entries (id, service_id, status, principal, created_ms, offer_expires_ms, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    wlUpdate: db.prepare('UPDATE waitlist_entries SET status = ?, offer_expires_ms = ?, data = ? WHERE id = ?'),
    wlExpiredOffers: db.prepare(
      `SELECT id FROM waitlist_entries WHERE status = 'offered' AND offer_expires_ms IS NOT NULL AND offer_expires_ms <= ? LIMIT ?`,
    ),
    idemGet: db.prepare('SELECT * FROM idempotency WHERE scope = ? AND expires_ms > ?'),
    idemPut: db.prepare(
      `INSERT INTO idempotency (scope, request_hash, status, body, created_ms, expires_ms) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (scope) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status, body = excluded.body,
       created_ms = excluded.created_ms, expires_ms = excluded.expires_ms`,
    ),
    idemPurge: db.prepare('DELETE FROM idempotency WHERE expires_ms <= ?'),
    catAll: db.prepare('SELECT * FROM catalog ORDER BY id'),
    catUpsert: db.prepare(
      `INSERT INTO catalog (id, data, fingerprint, modified_ms, deleted) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET data = excluded.data, fingerprint = excluded.fingerprint,
       modified_ms = excluded.modified_ms, deleted = excluded.deleted`,
    ),
    catFeed: db.prepare(
      'SELECT * FROM catalog WHERE (modified_ms > ? OR (modified_ms = ? AND id > ?)) ORDER BY modified_ms, id LIMIT ?',
    ),
    subGet: db.prepare('SELECT data FROM feed_subscriptions WHERE id = ?'),
    subInsert: db.prepare('INSERT INTO feed_subscriptions (id, status, principal, data) VALUES (?, ?, ?, ?)'),
    subUpdate: db.prepare('UPDATE feed_subscriptions SET status = ?, data = ? WHERE id = ?'),
    subActive: db.prepare(`SELECT data FROM feed_subscriptions WHERE status = 'active' ORDER BY id`),
    outboxAdd: db.prepare(
      'INSERT INTO outbox (event_id, event, order_key, principal, profile, payload, created_ms, due_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    outboxRecent: db.prepare('SELECT * FROM outbox ORDER BY seq DESC LIMIT ?'),
    outboxRecentFor: db.prepare(`SELECT * FROM outbox WHERE principal = ? AND status = 'dispatched' ORDER BY seq DESC LIMIT ?`),
    outboxDue: db.prepare(`SELECT * FROM outbox WHERE status = 'pending' AND due_ms <= ? ORDER BY seq LIMIT ?`),
    outboxMark: db.prepare(`UPDATE outbox SET status = 'dispatched' WHERE seq = ? AND status = 'pending'`),
    outboxBySeq: db.prepare('SELECT * FROM outbox WHERE seq = ?'),
    outboxCancel: db.prepare(`UPDATE outbox SET status = 'canceled' WHERE order_key = ? AND event = ? AND status = 'pending'`),
    whAdd: db.prepare(
      `INSERT INTO webhook_deliveries (event_id, event, seq, order_key, target_url, subscription_id, body, status, attempts, next_attempt_ms, created_ms)
       VALUES (@event_id, @event, @seq, @order_key, @target_url, @subscription_id, @body, 'pending', 0, @next_attempt_ms, @created_ms)
       ON CONFLICT (event_id, target_url) DO NOTHING`,
    ),
    whDue: db.prepare(
      `SELECT * FROM webhook_deliveries d
       WHERE d.status = 'pending' AND d.next_attempt_ms <= ? AND (d.lease_until_ms IS NULL OR d.lease_until_ms <= ?)
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.order_key = d.order_key AND e.target_url = d.target_url
                       AND e.status = 'pending' AND e.seq < d.seq)
       ORDER BY d.next_attempt_ms, d.seq LIMIT ?`,
    ),
    whLease: db.prepare('UPDATE webhook_deliveries SET lease_until_ms = ? WHERE id = ?'),
    whAttempt: db.prepare(
      'INSERT OR REPLACE INTO webhook_attempts (delivery_id, attempt, at_ms, status_code, latency_ms, error) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    whUpdate: db.prepare(
      `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_ms = ?, lease_until_ms = NULL, last_status = ?, last_error = ?,
       last_latency_ms = ?, delivered_ms = CASE WHEN ? = 'delivered' THEN ? ELSE delivered_ms END WHERE id = ?`,
    ),
    whList: db.prepare('SELECT * FROM webhook_deliveries ORDER BY id DESC LIMIT ?'),
    whListStatus: db.prepare('SELECT * FROM webhook_deliveries WHERE status = ? ORDER BY id DESC LIMIT ?'),
    whAttempts: db.prepare('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt'),
    whRetryOne: db.prepare(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_ms = ?, lease_until_ms = NULL WHERE id = ? AND status = 'failed'`),
    whRetryAll: db.prepare(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_ms = ?, lease_until_ms = NULL WHERE status = 'failed'`),
    credPut: db.prepare(
      'INSERT INTO credentials (value_hash, resource_kind, resource_id, jkt, principal, expires_ms, revoked) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    credGet: db.prepare('SELECT * FROM credentials WHERE value_hash = ?'),
    credRevoke: db.prepare('UPDATE credentials SET revoked = 1 WHERE resource_id = ?'),
    jtiGet: db.prepare('SELECT keep_until_ms FROM proof_jti WHERE jti = ?'),
    jtiPut: db.prepare(
      'INSERT INTO proof_jti (jti, keep_until_ms) VALUES (?, ?) ON CONFLICT (jti) DO UPDATE SET keep_until_ms = excluded.keep_until_ms',
    ),
    jtiPurge: db.prepare('DELETE FROM proof_jti WHERE keep_until_ms <= ?'),
    bindGet: db.prepare('SELECT profile FROM principal_bindings WHERE principal = ?'),
    bindPut: db.prepare('INSERT INTO principal_bindings (principal, profile, bound_ms) VALUES (?, ?, ?) ON CONFLICT (principal) DO NOTHING'),
    kvGet: db.prepare('SELECT value FROM kv WHERE key = ?'),
    kvSet: db.prepare('INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
  };
  const activeCache = new Map<number, Database.Statement>();
  const one = <T>(stmt: Database.Statement, ...args: unknown[]): T | null => {
    const row = stmt.get(...args) as { data: string } | undefined;
    return row ? parse<T>(row.data) : null;
  };
  const rowToService = (r: any): StoredService => ({
    id: r.id,
    data: parse(r.data),
    fingerprint: r.fingerprint,
    modified_ms: r.modified_ms,
    deleted: r.deleted === 1,
  });

  const toOutbox = (r: any): OutboxEvent & { seq: number } => ({
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
  const toDelivery = (r: any): WebhookDelivery => {
    const { lease_until_ms: _lease, ...rest } = r;
    return rest as WebhookDelivery;
  };
  return {
    registry: sqliteRegistryRepo(db),
    admin: sqliteAdminRepo(db),
    async lock() {
      // Transactions are already serial in this process (one connection, BEGIN IMMEDIATE).
    },
    webhooks: {
      async add(d) {
        q.whAdd.run(d);
      },
      async releaseLeases(ids) {
        const release = db.prepare(`UPDATE webhook_deliveries SET lease_until_ms = NULL WHERE id = ? AND status = 'pending'`);
        for (const id of ids) release.run(id);
      },
      async claimDue(nowMs, limit, leaseUntilMs, busy) {
        const out: WebhookDelivery[] = [];
        const taken = new Set(busy);
        for (const r of q.whDue.all(nowMs, nowMs, limit * 4 + busy.length) as any[]) {
          if (taken.has(r.target_url)) continue;
          taken.add(r.target_url);
          q.whLease.run(leaseUntilMs, r.id);
          out.push(toDelivery(r));
          if (out.length === limit) break;
        }
        return out;
      },
      async recordAttempt(a, next) {
        q.whAttempt.run(a.delivery_id, a.attempt, a.at_ms, a.status_code, a.latency_ms, a.error);
        q.whUpdate.run(next.status, a.attempt, next.next_attempt_ms, a.status_code, a.error, a.latency_ms, next.status, a.at_ms, a.delivery_id);
      },
      async list(w) {
        const rows = (w.status ? q.whListStatus.all(w.status, w.limit) : q.whList.all(w.limit)) as any[];
        return rows.map(toDelivery);
      },
      async attempts(deliveryId) {
        return q.whAttempts.all(deliveryId) as DeliveryAttempt[];
      },
      async retry(id, nowMs) {
        return (id === null ? q.whRetryAll.run(nowMs) : q.whRetryOne.run(nowMs, id)).changes;
      },
    },
    security: {
      async putCredential(c) {
        q.credPut.run(c.value_hash, c.resource_kind, c.resource_id, c.jkt, c.principal, c.expires_ms, c.revoked ? 1 : 0);
      },
      async credential(valueHash) {
        const r = q.credGet.get(valueHash) as any;
        return r ? { ...r, revoked: r.revoked === 1 } : null;
      },
      async revokeCredentials(resourceId) {
        q.credRevoke.run(resourceId);
      },
      async claimJti(jti, nowMs, keepUntilMs) {
        const r = q.jtiGet.get(jti) as { keep_until_ms: number } | undefined;
        if (r && r.keep_until_ms > nowMs) return false;
        q.jtiPut.run(jti, keepUntilMs);
        return true;
      },
      async boundProfile(principal) {
        const r = q.bindGet.get(principal) as { profile: string } | undefined;
        return r ? r.profile : null;
      },
      async bindProfile(principal, profile, nowMs) {
        q.bindPut.run(principal, profile, nowMs);
      },
      async purge(nowMs) {
        q.jtiPurge.run(nowMs);
      },
    },
    claims: {
      async active(resourceIds, fromMs, toMs, nowMs) {
        if (resourceIds.length === 0) return [];
        let stmt = activeCache.get(resourceIds.length);
        if (!stmt) activeCache.set(resourceIds.length, (stmt = q.claimsActive(resourceIds.length)));
        const rows = stmt.all(...resourceIds, toMs, fromMs, nowMs) as any[];
        return rows.map((r): ClaimRow => ({ ...r, is_hold: r.is_hold === 1 }));
      },
      async add(rows) {
        for (const r of rows) q.claimInsert.run({ ...r, is_hold: r.is_hold ? 1 : 0 });
      },
      async removeOwner(ownerId) {
        q.claimDelete.run(ownerId);
      },
      async transfer(fromOwner, toOwner, expiresAtMs) {
        q.claimTransfer.run(toOwner, expiresAtMs, fromOwner);
      },
      async setExpiry(ownerId, expiresAtMs) {
        q.claimExpiry.run(expiresAtMs, ownerId);
      },
      async purgeEnded(endedBeforeMs, nowMs) {
        return q.claimPurge.run(endedBeforeMs, nowMs).changes;
      },
    },
    bookings: {
      async get(id) {
        return one<BookingRecord>(q.bookingGet, id);
      },
      async byHold(holdId) {
        return one<BookingRecord>(q.bookingByHold, holdId);
      },
      async insert(rec) {
        q.bookingInsert.run(
          rec.booking.id,
          rec.booking.service_id,
          rec.booking.status,
          rec.priv.hold_id ?? null,
          rec.priv.principal,
          rec.priv.expires_at_ms ?? null,
          json(rec),
        );
      },
      async update(rec) {
        q.bookingUpdate.run(rec.booking.status, rec.priv.expires_at_ms ?? null, json(rec), rec.booking.id);
      },
      async recent(limit, status) {
        const rows = (status
          ? db.prepare('SELECT data FROM bookings WHERE status = ? ORDER BY rowid DESC LIMIT ?').all(status, limit)
          : db.prepare('SELECT data FROM bookings ORDER BY rowid DESC LIMIT ?').all(limit)) as Array<{ data: string }>;
        return rows.map((r) => parse<BookingRecord>(r.data));
      },
      async expiredPending(nowMs, limit) {
        return (q.bookingExpired.all(nowMs, limit) as Array<{ id: string }>).map((r) => r.id);
      },
      async gauges(nowMs) {
        const byStatus = db.prepare('SELECT status, COUNT(*) AS n FROM bookings GROUP BY status').all() as Array<{ status: string; n: number }>;
        const count = (sql: string, ...args: unknown[]) => (db.prepare(sql).get(...args) as { n: number }).n;
        return {
          bookings_by_status: Object.fromEntries(byStatus.map((r) => [r.status, r.n])),
          active_holds: count(`SELECT COUNT(*) AS n FROM holds WHERE status = 'active' AND expires_at_ms > ?`, nowMs),
          outbox_due: count(`SELECT COUNT(*) AS n FROM outbox WHERE status = 'pending' AND due_ms <= ?`, nowMs),
          deliveries_pending: count(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'`),
          deliveries_leased: count(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND lease_until_ms > ?`, nowMs),
        };
      },
    },
    holds: {
      async get(id) {
        return one<HoldRecord>(q.holdGet, id);
      },
      async insert(rec) {
        q.holdInsert.run(
          rec.hold.id,
          rec.hold.service_id,
          rec.hold.status,
          rec.priv.principal,
          rec.priv.buyer_key ?? null,
          rec.priv.expires_at_ms,
          json(rec),
        );
      },
      async update(rec) {
        q.holdUpdate.run(rec.hold.status, rec.priv.expires_at_ms, json(rec), rec.hold.id);
      },
      async countActive(principal, buyerKey, serviceId, nowMs) {
        return (q.holdCount.get(principal, buyerKey, serviceId, nowMs) as { n: number }).n;
      },
    },
    waitlist: {
      async get(id) {
        return one<WaitlistRecord>(q.wlGet, id);
      },
      async insert(rec) {
        q.wlInsert.run(
          rec.entry.id,
          rec.entry.service_id,
          rec.entry.status,
          rec.priv.principal,
          rec.priv.created_ms,
          rec.priv.offer_expires_ms ?? null,
          json(rec),
        );
      },
      async update(rec) {
        q.wlUpdate.run(rec.entry.status, rec.priv.offer_expires_ms ?? null, json(rec), rec.entry.id);
      },
      async list(w: WaitlistQuery) {
        const where = ['principal IS ?'];
        const args: unknown[] = [w.principal];
        if (w.serviceId) (where.push('service_id = ?'), args.push(w.serviceId));
        if (w.status) (where.push('status = ?'), args.push(w.status));
        if (w.afterCreatedMs !== undefined) {
          where.push('(created_ms > ? OR (created_ms = ? AND id > ?))');
          args.push(w.afterCreatedMs, w.afterCreatedMs, w.afterId ?? '');
        }
        const rows = db
          .prepare(`SELECT data FROM waitlist_entries WHERE ${where.join(' AND ')} ORDER BY created_ms, id LIMIT ?`)
          .all(...args, w.limit) as Array<{ data: string }>;
        return rows.map((r) => parse<WaitlistRecord>(r.data));
      },
      async byService(serviceId, statuses: readonly WaitlistStatus[]) {
        if (statuses.length === 0) return [];
        const rows = db
          .prepare(
            `SELECT data FROM waitlist_entries WHERE service_id = ? AND status IN (${statuses.map(() => '?').join(',')}) ORDER BY created_ms, id`,
          )
          .all(serviceId, ...statuses) as Array<{ data: string }>;
        return rows.map((r) => parse<WaitlistRecord>(r.data));
      },
      async expiredOffers(nowMs, limit) {
        return (q.wlExpiredOffers.all(nowMs, limit) as Array<{ id: string }>).map((r) => r.id);
      },
    },
    idempotency: {
      async get(scope, nowMs) {
        const r = q.idemGet.get(scope, nowMs) as any;
        return r ? ({ ...r, body: parse(r.body) } as IdempotencyRecord) : null;
      },
      async put(rec) {
        q.idemPut.run(rec.scope, rec.request_hash, rec.status, json(rec.body), rec.created_ms, rec.expires_ms);
      },
      async purge(nowMs) {
        return q.idemPurge.run(nowMs).changes;
      },
    },
    catalog: {
      async all() {
        return (q.catAll.all() as any[]).map(rowToService);
      },
      async upsert(s) {
        q.catUpsert.run(s.id, json(s.data), s.fingerprint, s.modified_ms, s.deleted ? 1 : 0);
      },
      async feed(afterMs, afterId, limit, locationId) {
        const out: StoredService[] = [];
        let cursorMs = afterMs;
        let cursorId = afterId;
        // Location filtering happens after the keyset scan, so keep scanning until the page is full.
        for (;;) {
          const rows = (q.catFeed.all(cursorMs, cursorMs, cursorId, limit) as any[]).map(rowToService);
          for (const s of rows) {
            if (!locationId || serviceAtLocation(s, locationId)) out.push(s);
            if (out.length === limit) return out;
          }
          if (rows.length < limit) return out;
          cursorMs = rows[rows.length - 1].modified_ms;
          cursorId = rows[rows.length - 1].id;
        }
      },
    },
    subscriptions: {
      async get(id) {
        return one<SubscriptionRecord>(q.subGet, id);
      },
      async insert(rec) {
        q.subInsert.run(rec.subscription.id, rec.subscription.status, rec.priv.principal, json(rec));
      },
      async update(rec) {
        q.subUpdate.run(rec.subscription.status, json(rec), rec.subscription.id);
      },
      async active() {
        return (q.subActive.all() as Array<{ data: string }>).map((r) => parse<SubscriptionRecord>(r.data));
      },
    },
    outbox: {
      async add(e: OutboxEvent) {
        q.outboxAdd.run(e.event_id, e.event, e.order_key, e.principal, e.profile, json(e.payload), e.created_ms, e.due_ms);
      },
      async recent(limit) {
        // The internal `seq` ordering column is not part of OutboxEvent.
        return (q.outboxRecent.all(limit) as any[]).map((r) => {
          const { seq: _seq, ...e } = toOutbox(r);
          return e;
        });
      },
      async recentBodies(principal, limit) {
        return (q.outboxRecentFor.all(principal, limit) as any[]).map((r) => eventBody(toOutbox(r)));
      },
      async due(nowMs, limit) {
        return (q.outboxDue.all(nowMs, limit) as any[]).map(toOutbox);
      },
      async markDispatched(seqs) {
        const moved: number[] = [];
        for (const s of seqs) if (q.outboxMark.run(s).changes > 0) moved.push(s);
        return moved;
      },
      async bySeq(seqs) {
        return seqs.map((s) => q.outboxBySeq.get(s) as any).filter(Boolean).map(toOutbox);
      },
      async cancelScheduled(orderKey, event) {
        return q.outboxCancel.run(orderKey, event).changes;
      },
    },
    kv: {
      async get(key) {
        const r = q.kvGet.get(key) as { value: string } | undefined;
        return r ? r.value : null;
      },
      async set(key, value) {
        q.kvSet.run(key, value);
      },
    },
    ...sqliteOAuthRepos(db),
  };
}

function serviceAtLocation(s: StoredService, locationId: string): boolean {
  const locs = (s.data.locations as Array<{ id?: string }> | undefined) ?? [];
  return locs.length === 0 || locs.some((l) => l.id === locationId);
}
