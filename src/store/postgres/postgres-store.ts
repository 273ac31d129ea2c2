/**
 * The shared store: PostgreSQL through `pg`, for businesses that run several stateless server
 * processes on one database. Semantics mirror the SQLite store exactly (half-open intervals, an
 * expiry equal to `now` has passed, JSON documents as text), and the shared Store contract pins them.
 *
 * Concurrency, since transactions here really do run side by side:
 * - `transaction(fn)` runs READ COMMITTED on one pooled connection, so every statement sees what
 *   committed before it, in particular after a lock was granted. `Tx.lock(keys)` takes
 *   transaction-scoped advisory locks (check-and-reserve locks `resource:<id>` keys, the pipeline
 *   locks its idempotency scope), so two processes can never both see a slot free and both take it.
 * - Reads that a write transaction acts on lock what they read until commit: `get`/`byHold` rows
 *   are read `FOR UPDATE`; `kv.get`, `catalog.all`, `holds.countActive` and `waitlist.byService`
 *   take an advisory lock on their key, so read-then-write (a counter, get-or-create of a secret, the
 *   catalog sync at start-up, the hold limit, a service's waitlist line) never loses an update, even
 *   when the rows do not exist yet.
 * - A deadlock (40P01), a serialization failure (40001), or a claim overlap caught by the exclusion
 *   constraint (23P01, see migrations.ts) rolls back and runs `fn` again, up to `maxRetries` times
 *   with jittered backoff: re-run, the operation re-checks the slot under its lock and answers
 *   slot_unavailable as data. `fn` must therefore keep its effects inside the transaction.
 * - `read(fn)` is a REPEATABLE READ, READ ONLY transaction: one consistent snapshot.
 * - `channel` announces dispatched outbox sequences to every process over LISTEN/NOTIFY.
 *
 * When the database goes away (a restart, a failover, a network cut), nothing here takes the process
 * down: every client we create has an 'error' listener, a connection that broke is dropped from the
 * pool rather than reused, and a call that meets the fault fails with `StoreUnavailable` at once
 * (connecting and every statement are bounded by timeouts; right after a failed connect, calls fail
 * without trying again for a moment, so an unreachable host does not make each call wait). The
 * LISTEN connection reconnects with backoff and then announces what was dispatched meanwhile.
 */
import pg from 'pg';
import type { BookingRecord, HoldRecord, SubscriptionRecord, WaitlistRecord, WaitlistStatus } from '../../domain/index.js';
import type {
  ClaimRow,
  DeliveryAttempt,
  EventChannel,
  IdempotencyRecord,
  OutboxEvent,
  Store,
  StoredService,
  Tx,
  WaitlistQuery,
  WebhookDelivery,
} from '../port.js';
import { StoreUnavailable, eventBody } from '../port.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';
import { postgresRegistryRepo } from './registry-repo.js';
import { postgresAdminRepo } from './admin-repo.js';

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database; a `schema` query parameter selects a schema. */
  url: string;
  /** Connections in the pool (default 10). The LISTEN connection comes on top. */
  poolSize?: number;
  /** Schema to keep the tables in (created if missing); default: the URL's `schema`, else the server's search_path. */
  schema?: string;
  /** Times a transaction is run again after a deadlock, serialization failure or claim overlap (default 5). */
  maxRetries?: number;
  /** Connection-level errors on idle connections (default: written to stderr). */
  onError?: (err: Error) => void;
  /** Give up opening a connection after this long (default 5000 ms). */
  connectTimeoutMs?: number;
  /** statement_timeout of every connection, and (plus a margin) how long we wait for any reply (default 5000 ms). */
  statementTimeoutMs?: number;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5000;

/** Two firm claims of different slots overlapped on a resource: the database refused the second. */
export class ClaimConflict extends Error {
  override readonly name = 'ClaimConflict';
  readonly code = '23P01';
  constructor(readonly detail: string | undefined, options?: { cause?: unknown }) {
    super(`claim overlaps another booking on the same resource${detail ? ` (${detail})` : ''}`, options);
  }
}

/** The LISTEN/NOTIFY channel; `ready()` resolves once this process is listening (tests). */
export interface PostgresEventChannel extends EventChannel {
  ready(): Promise<void>;
}

const MIGRATION_LOCK = 'usp-server:migrations';
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/** int8 (BIGINT, COUNT) as a JS number: every value stored here is an epoch-ms or a small counter. */
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

export async function openPostgresStore(opts: PostgresStoreOptions): Promise<Store> {
  const { connectionString, schema } = splitSchema(opts.url, opts.schema);
  const statementTimeout = opts.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const base: pg.ClientConfig = {
    connectionString,
    types,
    // Only the store's schema: with `public` behind it, a name that does not resolve in the schema
    // (the schema or a table missing, for any reason) would silently read and write public's tables,
    // another world. btree_gist needs no path (its operator class is found as the default for gist).
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
    connectionTimeoutMillis: opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    // The server cancels a statement past statement_timeout; the client stops waiting a little later
    // in case the server itself is gone without closing the socket.
    ...(statementTimeout > 0 ? { statement_timeout: statementTimeout, query_timeout: statementTimeout + 2000 } : {}),
    keepAlive: true,
  };
  const onError = opts.onError ?? ((err: Error) => console.error(`[usp-server] postgres: ${err.message}`));
  // Every pooled connection proves it resolves names in the store's schema before it is used; one
  // that does not is refused (and reported) instead of ever touching another schema's tables. The
  // check starts after the migration, which runs on a connection of its own that is then closed.
  let migrated = false;
  const onConnect = async (client: pg.ClientBase): Promise<void> => {
    if (!schema || !migrated) return;
    const s = (await client.query<{ s: string | null }>('SELECT current_schema() AS s')).rows[0]?.s ?? null;
    if (s !== schema) {
      const err = new WrongSchema(schema, s);
      onError(err);
      throw err;
    }
  };
  const pool = new pg.Pool({ ...base, max: opts.poolSize ?? 10, onConnect });
  // An idle pooled connection that breaks is reported here and dropped by the pool.
  pool.on('error', (err) => onError(err));
  // A connection that breaks while checked out emits 'error' too, and pg-pool listens only while it
  // is idle: without this an administrator's shutdown (57P01) would be an unhandled 'error' event
  // that ends the process. The statement in flight fails on its own and run() drops the connection.
  pool.on('connect', (client) => client.on('error', (err) => onError(err)));
  try {
    await migrate(pool, schema);
    migrated = true;
    const current = (await pool.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s ?? 'public';
    const channelName = current === 'public' ? 'usp_events' : `usp_events_${current}`;
    return new PostgresStore(pool, new PgChannel(base, pool, channelName, onError), opts.maxRetries ?? 5);
  } catch (err) {
    await pool.end().catch(() => undefined);
    const fault = connectionFault(err);
    throw fault ? new StoreUnavailable(fault, { cause: err }) : err;
  }
}

/** A connection of a store opened on one schema resolved names elsewhere: it is never used. */
export class WrongSchema extends Error {
  override readonly name = 'WrongSchema';
  constructor(
    readonly expected: string,
    readonly actual: string | null,
  ) {
    super(
      `a PostgreSQL connection resolves names in ${actual === null ? 'no schema' : `schema ${JSON.stringify(actual)}`}, not in the store's schema ${JSON.stringify(expected)}; it was not used (was the schema dropped?)`,
    );
  }
}

function splitSchema(url: string, explicit: string | undefined): { connectionString: string; schema?: string } {
  let connectionString = url;
  let schema = explicit;
  try {
    const u = new URL(url);
    const fromUrl = u.searchParams.get('schema');
    if (fromUrl !== null) {
      u.searchParams.delete('schema');
      connectionString = u.toString();
      schema ??= fromUrl;
    }
  } catch {
    /* not a URL (a libpq key=value string): pass it through unchanged */
  }
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new Error(`invalid PostgreSQL schema name ${JSON.stringify(schema)}`);
  return { connectionString, schema };
}

/**
 * Apply pending migrations under a session advisory lock: concurrent starts apply each exactly once.
 * The connection may have opened before the schema existed, so it checks where names resolve once
 * the schema is there, and it is closed afterwards rather than going back to the pool.
 */
async function migrate(pool: pg.Pool, schema: string | undefined): Promise<void> {
  const c = await pool.connect();
  try {
    await c.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [MIGRATION_LOCK]);
    try {
      const table = schema ? `${ident(schema)}.schema_migrations` : 'schema_migrations';
      if (schema) {
        await c.query(`CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`);
        const s = (await c.query<{ s: string | null }>('SELECT current_schema() AS s')).rows[0]?.s ?? null;
        if (s !== schema) throw new WrongSchema(schema, s);
      }
      await c.query(`CREATE TABLE IF NOT EXISTS ${table} (version INTEGER PRIMARY KEY, applied_ms BIGINT NOT NULL)`);
      const done = (await c.query<{ v: number | null }>(`SELECT MAX(version) AS v FROM ${table}`)).rows[0]?.v ?? 0;
      if (done >= POSTGRES_MIGRATIONS.length) return;
      // The exclusion constraint on claims needs btree_gist (text equality in a GiST index). Put it
      // in public when there is one, so a dropped per-tenant schema never takes it along.
      const hasPublic = (await c.query(`SELECT to_regnamespace('public') IS NOT NULL AS p`)).rows[0]?.p === true;
      await c.query(`CREATE EXTENSION IF NOT EXISTS btree_gist${hasPublic ? ' WITH SCHEMA public' : ''}`);
      // The registry's free-text search: trigram GIN indexes (a trusted extension since PostgreSQL 13: a
      // user with CREATE on the database may create it, no superuser needed).
      await c.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm${hasPublic ? ' WITH SCHEMA public' : ''}`);
      for (let i = done; i < POSTGRES_MIGRATIONS.length; i++) {
        await c.query('BEGIN');
        try {
          await c.query(POSTGRES_MIGRATIONS[i]);
          await c.query(`INSERT INTO ${table} (version, applied_ms) VALUES ($1, $2)`, [i + 1, Date.now()]);
          await c.query('COMMIT');
        } catch (err) {
          await c.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }
    } finally {
      await c.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [MIGRATION_LOCK]).catch(() => undefined);
    }
  } finally {
    c.release(true);
  }
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Mode = 'write' | 'read';

function pgCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The database (or the way to it) failed, not the statement: the reason, or undefined for an error
 * the statement itself caused. SQLSTATE classes 08 (connection exception), 57P0x (the server is
 * shutting down or starting), 53300 (too many connections), 57014 (statement timeout), 25006 (a
 * read-only standby after a failover); socket errors; and pg's own messages for a cut connection.
 */
export function connectionFault(err: unknown): string | undefined {
  const code = pgCode(err);
  const message = err instanceof Error ? err.message : String(err);
  if (code) {
    if (code.startsWith('08') || code.startsWith('57P') || code === '53300' || code === '57014' || code === '25006') return `${code} ${message}`;
    if (/^E[A-Z]+$/.test(code) && /^(ECONN|EPIPE|ETIMEDOUT|EHOST|ENET|ENOTFOUND|EAI_AGAIN)/.test(code)) return `${code} ${message}`;
  }
  if (err instanceof AggregateError) return err.errors.map(connectionFault).find((f) => f !== undefined);
  if (
    /Connection terminated|timeout exceeded when trying to connect|not queryable|Query read timeout|connect ECONNREFUSED|Connection refused/i.test(message)
  ) {
    return message;
  }
  return undefined;
}

/** After a failed connect, calls fail at once for this long instead of each trying (and maybe waiting) again. */
const FAIL_FAST_MS = 250;

/** Worth running the whole transaction again: the next attempt sees the winner's committed state. */
function retryable(err: unknown): boolean {
  if (err instanceof ClaimConflict) return true;
  const code = pgCode(err);
  if (code === '40001' || code === '40P01') return true;
  // Two conversions of one hold racing past each other; the retry reads the hold as converted.
  return code === '23505' && (err as { constraint?: string }).constraint === 'bookings_hold_id_key';
}

class PostgresStore implements Store {
  readonly engine = 'postgres' as const;
  private closed = false;
  private failFastUntil = 0;
  private lastFault = 'the database could not be reached';

  constructor(
    private readonly pool: pg.Pool,
    readonly channel: PgChannel,
    private readonly maxRetries: number,
  ) {}

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.run('write', fn);
  }

  read<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.run('read', fn);
  }

  async ping(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const c = await this.acquire();
      let broken = false;
      try {
        const r = await c.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
        // After a failover the old address may lead to a standby: it answers, but takes no writes.
        if (r.rows[0]?.standby) throw new StoreUnavailable('the database is a read-only standby (in recovery)');
        const applied = Number((await c.query<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_migrations')).rows[0]?.v ?? 0);
        if (applied < POSTGRES_MIGRATIONS.length) throw new StoreUnavailable(`migrations not applied (schema at ${applied} of ${POSTGRES_MIGRATIONS.length})`);
        return;
      } catch (err) {
        if (err instanceof StoreUnavailable) throw err;
        const fault = connectionFault(err);
        if (!fault) throw err;
        broken = true;
        // The first pooled connection may be one a restart cut while it sat idle: try a fresh one.
        if (attempt === 0) continue;
        throw new StoreUnavailable(fault, { cause: err });
      } finally {
        c.release(broken || undefined);
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.channel.close();
    await this.pool.end();
  }

  /** A pooled connection, or StoreUnavailable at once when the database cannot be reached. */
  private async acquire(): Promise<pg.PoolClient> {
    if (Date.now() < this.failFastUntil) throw new StoreUnavailable(this.lastFault);
    try {
      return await this.pool.connect();
    } catch (err) {
      const fault = connectionFault(err);
      if (!fault) throw err;
      this.lastFault = fault;
      this.failFastUntil = Date.now() + FAIL_FAST_MS;
      throw new StoreUnavailable(fault, { cause: err });
    }
  }

  private async run<T>(mode: Mode, fn: (tx: Tx) => Promise<T>): Promise<T> {
    let staleRetried = false;
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw new Error('store is closed');
      // A read transaction takes its connection at its first statement: a call answered from
      // memory (the catalog) then works while the database is away.
      let client: pg.PoolClient | undefined;
      let opening: Promise<pg.PoolClient> | undefined;
      let begun = false;
      const session = (): Promise<pg.PoolClient> =>
        (opening ??= (async () => {
          const c = await this.acquire();
          client = c;
          await c.query(mode === 'write' ? 'BEGIN ISOLATION LEVEL READ COMMITTED' : 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
          begun = true;
          return c;
        })());
      let broken = false;
      try {
        if (mode === 'write') await session();
        const out = await fn(buildRepos(session, mode));
        if (client) {
          const end = await client.query(mode === 'write' ? 'COMMIT' : 'ROLLBACK');
          // COMMIT of a transaction a swallowed error had aborted answers ROLLBACK: nothing was written.
          if (mode === 'write' && end.command === 'ROLLBACK') throw new Error('transaction was aborted by an earlier error and rolled back');
        }
        return out;
      } catch (err) {
        if (client) {
          try {
            await client.query('ROLLBACK');
          } catch {
            broken = true;
          }
        }
        const fault = err instanceof StoreUnavailable ? err.reason : connectionFault(err);
        if (fault) {
          broken = true;
          // A pooled connection that a restart had cut before we used it: nothing was done on it,
          // so one fresh connection may serve the call.
          if (client && !begun && !staleRetried && !this.closed) {
            staleRetried = true;
            continue;
          }
          throw err instanceof StoreUnavailable ? err : new StoreUnavailable(fault, { cause: err });
        }
        if (mode === 'write' && attempt < this.maxRetries && retryable(err) && !this.closed) {
          await sleep(1 + Math.random() * 5 * 2 ** attempt);
          continue;
        }
        throw err;
      } finally {
        client?.release(broken || undefined);
      }
    }
  }
}

// ------------------------------------------------------------------------------------------------
// LISTEN/NOTIFY
// ------------------------------------------------------------------------------------------------

/** NOTIFY payloads must stay under 8000 bytes. */
const MAX_PAYLOAD = 7900;

class PgChannel implements PostgresEventChannel {
  private readonly listeners = new Set<(seqs: number[]) => void>();
  private client?: pg.Client;
  private connecting?: Promise<void>;
  private retryTimer?: NodeJS.Timeout;
  private closed = false;
  /** Highest sequence announced to our listeners; -1 until the first connection reads where the outbox stands. */
  private lastSeq = -1;
  /** Recently announced sequences (a catch-up and a late notification may name the same one). */
  private readonly seen = new Set<number>();
  /** When the LISTEN connection was lost (for the catch-up); undefined while connected. */
  private lostAtMs?: number;
  private failures = 0;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly pool: pg.Pool,
    readonly name: string,
    private readonly onError: (err: Error) => void,
  ) {}

  async publish(seqs: readonly number[]): Promise<void> {
    let chunk = '';
    for (const s of seqs) {
      const part = String(s);
      if (chunk && chunk.length + part.length + 1 > MAX_PAYLOAD) {
        await this.pool.query('SELECT pg_notify($1, $2)', [this.name, chunk]);
        chunk = '';
      }
      chunk = chunk ? `${chunk},${part}` : part;
    }
    if (chunk) await this.pool.query('SELECT pg_notify($1, $2)', [this.name, chunk]);
  }

  subscribe(listener: (seqs: number[]) => void): () => void {
    this.listeners.add(listener);
    void this.ensure();
    return () => {
      this.listeners.delete(listener);
    };
  }

  async ready(): Promise<void> {
    for (;;) {
      if (this.closed) throw new Error('channel is closed');
      if (this.client) return;
      await (this.ensure() ?? sleep(50));
      if (!this.client) await sleep(50);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.connecting?.catch(() => undefined);
    const c = this.client;
    this.client = undefined;
    if (c) await c.end().catch(() => undefined);
  }

  private ensure(): Promise<void> | undefined {
    if (this.closed || this.client) return undefined;
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /** Hand sequences not announced before to the listeners. */
  private announce(seqs: readonly number[]): void {
    const fresh = seqs.filter((n) => !this.seen.has(n));
    if (fresh.length === 0) return;
    for (const n of fresh) {
      this.seen.add(n);
      if (n > this.lastSeq) this.lastSeq = n;
    }
    // Forget the oldest (a Set iterates in insertion order).
    for (const n of this.seen) {
      if (this.seen.size <= SEEN_KEPT) break;
      this.seen.delete(n);
    }
    for (const l of [...this.listeners]) {
      try {
        l(fresh);
      } catch (err) {
        this.onError(err as Error);
      }
    }
  }

  private async connect(): Promise<void> {
    // A dedicated connection: LISTEN belongs to a session, and a pooled one goes back to the pool.
    const c = new pg.Client(this.config);
    c.on('notification', (m) => {
      if (m.channel !== this.name || !m.payload) return;
      const seqs = m.payload
        .split(',')
        .map(Number)
        .filter((n) => Number.isSafeInteger(n));
      if (seqs.length > 0) this.announce(seqs);
    });
    c.on('error', (err) => {
      this.onError(err);
      this.lost(c);
    });
    c.on('end', () => this.lost(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${ident(this.name)}`);
      if (this.closed) {
        await c.end().catch(() => undefined);
        return;
      }
      // Listening from here on; what was dispatched before is read from the outbox itself (through
      // the pool: this connection only ever LISTENs).
      if (this.lastSeq < 0) {
        const r = await this.pool.query<{ m: number }>(`SELECT COALESCE(MAX(seq), 0) AS m FROM outbox WHERE status = 'dispatched'`);
        this.lastSeq = Math.max(this.lastSeq, r.rows[0]?.m ?? 0);
        this.client = c;
      } else {
        // Catch up on what other processes (or this one) dispatched while we were not listening:
        // everything after the last sequence we announced, and anything that fell due since we
        // lost the connection (a reminder dispatched late carries an older sequence).
        const since = (this.lostAtMs ?? Date.now()) - CATCH_UP_DUE_MARGIN_MS;
        const r = await this.pool.query<{ seq: number }>(
          `SELECT seq FROM outbox WHERE status = 'dispatched' AND (seq > $1 OR due_ms >= $2) ORDER BY seq LIMIT ${CATCH_UP_LIMIT}`,
          [this.lastSeq, since],
        );
        this.client = c;
        this.lostAtMs = undefined;
        this.announce(r.rows.map((x) => x.seq));
      }
      this.failures = 0;
    } catch (err) {
      this.onError(err as Error);
      if (this.client === c) this.client = undefined;
      c.end().catch(() => undefined);
      this.retryLater();
    }
  }

  /** The LISTEN connection dropped: reconnect, then catch up on what was announced meanwhile. */
  private lost(c: pg.Client): void {
    if (this.client !== c) return;
    this.client = undefined;
    this.lostAtMs ??= Date.now();
    c.end().catch(() => undefined);
    this.retryLater();
  }

  /** Reconnect after a growing, jittered delay (250 ms doubling up to 10 s) so a restart is not hammered. */
  private retryLater(): void {
    if (this.closed || this.retryTimer) return;
    this.lostAtMs ??= Date.now();
    const delay = Math.min(10_000, 250 * 2 ** this.failures++) * (0.5 + Math.random() / 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.ensure();
    }, delay);
    this.retryTimer.unref();
  }
}

/** Sequences remembered to drop a duplicate announcement. */
const SEEN_KEPT = 10_000;
/** Most events one catch-up announces. */
const CATCH_UP_LIMIT = 5000;
/** A catch-up also takes events due up to this long before the connection was lost. */
const CATCH_UP_DUE_MARGIN_MS = 60_000;

// ------------------------------------------------------------------------------------------------
// Repositories bound to one transaction's connection
// ------------------------------------------------------------------------------------------------

const json = (v: unknown) => JSON.stringify(v);
const parse = <T>(s: string): T => JSON.parse(s) as T;

const CLAIM_COLUMNS = 'resource_id, start_ms, end_ms, slot_key, owner_id, spots, is_hold, service_id, expires_at_ms';
const OUTBOX_COLUMNS = 'seq, event_id, event, order_key, principal, profile, payload, created_ms, due_ms';
const DELIVERY_COLUMNS =
  'id, event_id, event, seq, order_key, target_url, subscription_id, body, status, attempts, next_attempt_ms, created_ms, delivered_ms, last_status, last_error, last_latency_ms';

function buildRepos(session: () => Promise<pg.PoolClient>, mode: Mode): Tx {
  const q = async <R extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> => {
    const client = await session();
    try {
      return await client.query<R>(text, values);
    } catch (err) {
      if (pgCode(err) === '23P01') throw new ClaimConflict((err as { detail?: string }).detail, { cause: err });
      throw err;
    }
  };
  const rows = async <R extends pg.QueryResultRow = any>(text: string, values?: unknown[]) => (await q<R>(text, values)).rows;
  /** Keyed reads in a write transaction lock the row until commit (read-then-write stays serial). */
  const forUpdate = mode === 'write' ? ' FOR UPDATE' : '';
  const lockKey = async (key: string) => {
    if (mode === 'write') await q('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
  };
  const one = async <T>(text: string, values: unknown[]): Promise<T | null> => {
    const r = await rows<{ data: string }>(text, values);
    return r.length > 0 ? parse<T>(r[0].data) : null;
  };
  const rowToService = (r: any): StoredService => ({
    id: r.id,
    data: parse(r.data),
    fingerprint: r.fingerprint,
    modified_ms: r.modified_ms,
    deleted: r.deleted,
  });
  const rowToEvent = (r: any): OutboxEvent & { seq: number } => ({
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

  return {
    registry: postgresRegistryRepo(q, lockKey),
    admin: postgresAdminRepo(q),
    async lock(keys) {
      // One statement per key, in the order given (callers sort), so lock order is deterministic.
      for (const k of keys) await q('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [k]);
    },
    webhooks: {
      async add(d) {
        await q(
          `INSERT INTO webhook_deliveries (event_id, event, seq, order_key, target_url, subscription_id, body, status, attempts, next_attempt_ms, created_ms)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', 0, $8, $9)
           ON CONFLICT (event_id, target_url) DO NOTHING`,
          [d.event_id, d.event, d.seq, d.order_key, d.target_url, d.subscription_id, d.body, d.next_attempt_ms, d.created_ms],
        );
      },
      async releaseLeases(ids) {
        if (ids.length === 0) return;
        await q(`UPDATE webhook_deliveries SET lease_until_ms = NULL WHERE id = ANY($1::bigint[]) AND status = 'pending'`, [[...ids]]);
      },
      async claimDue(nowMs, limit, leaseUntilMs, busy) {
        // Rows another worker is leasing right now are skipped, not waited for; the lease written
        // below keeps them ours after commit.
        const candidates = await rows(
          `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d
           WHERE d.status = 'pending' AND d.next_attempt_ms <= $1 AND (d.lease_until_ms IS NULL OR d.lease_until_ms <= $1)
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.order_key = d.order_key AND e.target_url = d.target_url
                           AND e.status = 'pending' AND e.seq < d.seq)
           ORDER BY d.next_attempt_ms, d.seq LIMIT $2
           FOR UPDATE SKIP LOCKED`,
          [nowMs, limit * 4 + busy.length],
        );
        const out: WebhookDelivery[] = [];
        const taken = new Set(busy);
        for (const r of candidates) {
          if (taken.has(r.target_url)) continue;
          taken.add(r.target_url);
          out.push(r as WebhookDelivery);
          if (out.length === limit) break;
        }
        if (out.length > 0) {
          await q('UPDATE webhook_deliveries SET lease_until_ms = $1 WHERE id = ANY($2::bigint[])', [leaseUntilMs, out.map((d) => d.id)]);
        }
        return out;
      },
      async recordAttempt(a, next) {
        await q(
          `INSERT INTO webhook_attempts (delivery_id, attempt, at_ms, status_code, latency_ms, error) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (delivery_id, attempt) DO UPDATE SET at_ms = EXCLUDED.at_ms, status_code = EXCLUDED.status_code,
           latency_ms = EXCLUDED.latency_ms, error = EXCLUDED.error`,
          [a.delivery_id, a.attempt, a.at_ms, a.status_code, a.latency_ms, a.error],
        );
        await q(
          `UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_ms = $3, lease_until_ms = NULL, last_status = $4,
           last_error = $5, last_latency_ms = $6, delivered_ms = CASE WHEN $1 = 'delivered' THEN $7 ELSE delivered_ms END WHERE id = $8`,
          [next.status, a.attempt, next.next_attempt_ms, a.status_code, a.error, a.latency_ms, a.at_ms, a.delivery_id],
        );
      },
      async list(w) {
        return (w.status
          ? await rows(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE status = $1 ORDER BY id DESC LIMIT $2`, [w.status, w.limit])
          : await rows(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries ORDER BY id DESC LIMIT $1`, [w.limit])) as WebhookDelivery[];
      },
      async attempts(deliveryId) {
        return (await rows(
          'SELECT delivery_id, attempt, at_ms, status_code, latency_ms, error FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt',
          [deliveryId],
        )) as DeliveryAttempt[];
      },
      async retry(id, nowMs) {
        const r =
          id === null
            ? await q(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_ms = $1, lease_until_ms = NULL WHERE status = 'failed'`, [nowMs])
            : await q(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_ms = $1, lease_until_ms = NULL WHERE id = $2 AND status = 'failed'`, [
                nowMs,
                id,
              ]);
        return r.rowCount ?? 0;
      },
    },
    security: {
      async putCredential(c) {
        await q(
          'INSERT INTO credentials (value_hash, resource_kind, resource_id, jkt, principal, expires_ms, revoked) VALUES ($1, $2, $3, $4, $5, $6, $7)',
          [c.value_hash, c.resource_kind, c.resource_id, c.jkt, c.principal, c.expires_ms, c.revoked],
        );
      },
      async credential(valueHash) {
        const r = await rows(
          'SELECT value_hash, resource_kind, resource_id, jkt, principal, expires_ms, revoked FROM credentials WHERE value_hash = $1',
          [valueHash],
        );
        return r.length > 0 ? r[0] : null;
      },
      async revokeCredentials(resourceId) {
        await q('UPDATE credentials SET revoked = TRUE WHERE resource_id = $1', [resourceId]);
      },
      async claimJti(jti, nowMs, keepUntilMs) {
        // Inserted, or replaced a record that had expired: the proof is fresh. One statement, so two
        // processes receiving the same proof at once cannot both accept it.
        const r = await q(
          `INSERT INTO proof_jti (jti, keep_until_ms) VALUES ($1, $2)
           ON CONFLICT (jti) DO UPDATE SET keep_until_ms = EXCLUDED.keep_until_ms WHERE proof_jti.keep_until_ms <= $3
           RETURNING jti`,
          [jti, keepUntilMs, nowMs],
        );
        return (r.rowCount ?? 0) > 0;
      },
      async boundProfile(principal) {
        const r = await rows<{ profile: string }>('SELECT profile FROM principal_bindings WHERE principal = $1', [principal]);
        return r.length > 0 ? r[0].profile : null;
      },
      async bindProfile(principal, profile, nowMs) {
        await q('INSERT INTO principal_bindings (principal, profile, bound_ms) VALUES ($1, $2, $3) ON CONFLICT (principal) DO NOTHING', [
          principal,
          profile,
          nowMs,
        ]);
      },
      async purge(nowMs) {
        await q('DELETE FROM proof_jti WHERE keep_until_ms <= $1', [nowMs]);
      },
    },
    claims: {
      async active(resourceIds, fromMs, toMs, nowMs) {
        if (resourceIds.length === 0) return [];
        return (await rows(
          `SELECT ${CLAIM_COLUMNS} FROM claims WHERE resource_id = ANY($1::text[])
           AND start_ms < $2 AND end_ms > $3 AND (expires_at_ms IS NULL OR expires_at_ms > $4)`,
          [resourceIds, toMs, fromMs, nowMs],
        )) as ClaimRow[];
      },
      async add(list) {
        if (list.length === 0) return;
        await q(
          `INSERT INTO claims (${CLAIM_COLUMNS})
           SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::int[], $7::boolean[], $8::text[], $9::bigint[])`,
          [
            list.map((r) => r.resource_id),
            list.map((r) => r.start_ms),
            list.map((r) => r.end_ms),
            list.map((r) => r.slot_key),
            list.map((r) => r.owner_id),
            list.map((r) => r.spots),
            list.map((r) => r.is_hold),
            list.map((r) => r.service_id),
            list.map((r) => r.expires_at_ms),
          ],
        );
      },
      async removeOwner(ownerId) {
        await q('DELETE FROM claims WHERE owner_id = $1', [ownerId]);
      },
      async purgeEnded(endedBeforeMs, nowMs) {
        return (await q('DELETE FROM claims WHERE end_ms <= $1 OR (expires_at_ms IS NOT NULL AND expires_at_ms <= $2)', [endedBeforeMs, nowMs])).rowCount ?? 0;
      },
      async transfer(fromOwner, toOwner, expiresAtMs) {
        await q('UPDATE claims SET owner_id = $1, is_hold = FALSE, expires_at_ms = $2 WHERE owner_id = $3', [toOwner, expiresAtMs, fromOwner]);
      },
      async setExpiry(ownerId, expiresAtMs) {
        await q('UPDATE claims SET expires_at_ms = $1 WHERE owner_id = $2', [expiresAtMs, ownerId]);
      },
    },
    bookings: {
      async get(id) {
        return one<BookingRecord>(`SELECT data FROM bookings WHERE id = $1${forUpdate}`, [id]);
      },
      async byHold(holdId) {
        return one<BookingRecord>(`SELECT data FROM bookings WHERE hold_id = $1${forUpdate}`, [holdId]);
      },
      async insert(rec) {
        await q('INSERT INTO bookings (id, service_id, status, hold_id, principal, expires_at_ms, data) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
          rec.booking.id,
          rec.booking.service_id,
          rec.booking.status,
          rec.priv.hold_id ?? null,
          rec.priv.principal,
          rec.priv.expires_at_ms ?? null,
          json(rec),
        ]);
      },
      async update(rec) {
        await q('UPDATE bookings SET status = $1, expires_at_ms = $2, data = $3 WHERE id = $4', [
          rec.booking.status,
          rec.priv.expires_at_ms ?? null,
          json(rec),
          rec.booking.id,
        ]);
      },
      async recent(limit, status) {
        const r = status
          ? await rows<{ data: string }>('SELECT data FROM bookings WHERE status = $1 ORDER BY seq DESC LIMIT $2', [status, limit])
          : await rows<{ data: string }>('SELECT data FROM bookings ORDER BY seq DESC LIMIT $1', [limit]);
        return r.map((x) => parse<BookingRecord>(x.data));
      },
      async expiredPending(nowMs, limit) {
        const r = await rows<{ id: string }>(
          `SELECT id FROM bookings WHERE status IN ('pending', 'requires_action') AND expires_at_ms IS NOT NULL AND expires_at_ms <= $1 LIMIT $2`,
          [nowMs, limit],
        );
        return r.map((x) => x.id);
      },
      async gauges(nowMs) {
        const byStatus = await rows<{ status: string; n: string }>('SELECT status, COUNT(*) AS n FROM bookings GROUP BY status');
        const r = await rows<Record<'active_holds' | 'outbox_due' | 'deliveries_pending' | 'deliveries_leased', string>>(
          `SELECT (SELECT COUNT(*) FROM holds WHERE status = 'active' AND expires_at_ms > $1) AS active_holds,
                  (SELECT COUNT(*) FROM outbox WHERE status = 'pending' AND due_ms <= $1) AS outbox_due,
                  (SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending') AS deliveries_pending,
                  (SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending' AND lease_until_ms > $1) AS deliveries_leased`,
          [nowMs],
        );
        const g = r[0];
        return {
          bookings_by_status: Object.fromEntries(byStatus.map((x) => [x.status, Number(x.n)])),
          active_holds: Number(g.active_holds),
          outbox_due: Number(g.outbox_due),
          deliveries_pending: Number(g.deliveries_pending),
          deliveries_leased: Number(g.deliveries_leased),
        };
      },
    },
    holds: {
      async get(id) {
        return one<HoldRecord>(`SELECT data FROM holds WHERE id = $1${forUpdate}`, [id]);
      },
      async insert(rec) {
        await q('INSERT INTO holds (id, service_id, status, principal, buyer_key, expires_at_ms, data) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
          rec.hold.id,
          rec.hold.service_id,
          rec.hold.status,
          rec.priv.principal,
          rec.priv.buyer_key ?? null,
          rec.priv.expires_at_ms,
          json(rec),
        ]);
      },
      async update(rec) {
        await q('UPDATE holds SET status = $1, expires_at_ms = $2, data = $3 WHERE id = $4', [
          rec.hold.status,
          rec.priv.expires_at_ms,
          json(rec),
          rec.hold.id,
        ]);
      },
      async countActive(principal, buyerKey, serviceId, nowMs) {
        // Count-then-insert (the hold-abuse limit) stays serial per principal, buyer and service.
        await lockKey(`holds:${principal ?? ''}|${buyerKey ?? ''}|${serviceId}`);
        const r = await rows<{ n: number }>(
          `SELECT COUNT(*) AS n FROM holds WHERE principal IS NOT DISTINCT FROM $1 AND buyer_key IS NOT DISTINCT FROM $2
           AND service_id = $3 AND status = 'active' AND expires_at_ms > $4`,
          [principal, buyerKey, serviceId, nowMs],
        );
        return r[0].n;
      },
    },
    waitlist: {
      async get(id) {
        return one<WaitlistRecord>(`SELECT data FROM waitlist_entries WHERE id = $1${forUpdate}`, [id]);
      },
      async insert(rec) {
        await q(
          'INSERT INTO waitlist_entries (id, service_id, status, principal, created_ms, offer_expires_ms, data) VALUES ($1, $2, $3, $4, $5, $6, $7)',
          [rec.entry.id, rec.entry.service_id, rec.entry.status, rec.priv.principal, rec.priv.created_ms, rec.priv.offer_expires_ms ?? null, json(rec)],
        );
      },
      async update(rec) {
        await q('UPDATE waitlist_entries SET status = $1, offer_expires_ms = $2, data = $3 WHERE id = $4', [
          rec.entry.status,
          rec.priv.offer_expires_ms ?? null,
          json(rec),
          rec.entry.id,
        ]);
      },
      async list(w: WaitlistQuery) {
        const args: unknown[] = [w.principal];
        const where = ['principal IS NOT DISTINCT FROM $1'];
        const arg = (v: unknown) => `$${args.push(v)}`;
        if (w.serviceId) where.push(`service_id = ${arg(w.serviceId)}`);
        if (w.status) where.push(`status = ${arg(w.status)}`);
        if (w.afterCreatedMs !== undefined) {
          const c = arg(w.afterCreatedMs);
          where.push(`(created_ms > ${c} OR (created_ms = ${c} AND id > ${arg(w.afterId ?? '')}))`);
        }
        const r = await rows<{ data: string }>(
          `SELECT data FROM waitlist_entries WHERE ${where.join(' AND ')} ORDER BY created_ms, id LIMIT ${arg(w.limit)}`,
          args,
        );
        return r.map((x) => parse<WaitlistRecord>(x.data));
      },
      async byService(serviceId, statuses: readonly WaitlistStatus[]) {
        if (statuses.length === 0) return [];
        // The line of one service is read-then-written (join, offer a freed place, move up): one at a time.
        await lockKey(`waitlist:${serviceId}`);
        const r = await rows<{ data: string }>(
          'SELECT data FROM waitlist_entries WHERE service_id = $1 AND status = ANY($2::text[]) ORDER BY created_ms, id',
          [serviceId, statuses],
        );
        return r.map((x) => parse<WaitlistRecord>(x.data));
      },
      async expiredOffers(nowMs, limit) {
        const r = await rows<{ id: string }>(
          `SELECT id FROM waitlist_entries WHERE status = 'offered' AND offer_expires_ms IS NOT NULL AND offer_expires_ms <= $1 LIMIT $2`,
          [nowMs, limit],
        );
        return r.map((x) => x.id);
      },
    },
    idempotency: {
      async get(scope, nowMs) {
        const r = await rows(
          `SELECT scope, request_hash, status, body, created_ms, expires_ms FROM idempotency WHERE scope = $1 AND expires_ms > $2${forUpdate}`,
          [scope, nowMs],
        );
        return r.length > 0 ? ({ ...r[0], body: parse(r[0].body) } as IdempotencyRecord) : null;
      },
      async put(rec) {
        await q(
          `INSERT INTO idempotency (scope, request_hash, status, body, created_ms, expires_ms) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (scope) DO UPDATE SET request_hash = EXCLUDED.request_hash, status = EXCLUDED.status, body = EXCLUDED.body,
           created_ms = EXCLUDED.created_ms, expires_ms = EXCLUDED.expires_ms`,
          [rec.scope, rec.request_hash, rec.status, json(rec.body), rec.created_ms, rec.expires_ms],
        );
      },
      async purge(nowMs) {
        return (await q('DELETE FROM idempotency WHERE expires_ms <= $1', [nowMs])).rowCount ?? 0;
      },
    },
    catalog: {
      async all() {
        // Read-then-publish (catalog sync) from several processes starting together: one at a time.
        await lockKey('catalog');
        return (await rows('SELECT id, data, fingerprint, modified_ms, deleted FROM catalog ORDER BY id')).map(rowToService);
      },
      async upsert(s) {
        await q(
          `INSERT INTO catalog (id, data, fingerprint, modified_ms, deleted) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data, fingerprint = EXCLUDED.fingerprint,
           modified_ms = EXCLUDED.modified_ms, deleted = EXCLUDED.deleted`,
          [s.id, json(s.data), s.fingerprint, s.modified_ms, s.deleted],
        );
      },
      async feed(afterMs, afterId, limit, locationId) {
        const out: StoredService[] = [];
        let cursorMs = afterMs;
        let cursorId = afterId;
        // Location filtering happens after the keyset scan, so keep scanning until the page is full.
        for (;;) {
          const page = (
            await rows(
              `SELECT id, data, fingerprint, modified_ms, deleted FROM catalog
               WHERE (modified_ms > $1 OR (modified_ms = $1 AND id > $2)) ORDER BY modified_ms, id LIMIT $3`,
              [cursorMs, cursorId, limit],
            )
          ).map(rowToService);
          for (const s of page) {
            if (!locationId || serviceAtLocation(s, locationId)) out.push(s);
            if (out.length === limit) return out;
          }
          if (page.length < limit) return out;
          cursorMs = page[page.length - 1].modified_ms;
          cursorId = page[page.length - 1].id;
        }
      },
    },
    subscriptions: {
      async get(id) {
        return one<SubscriptionRecord>(`SELECT data FROM feed_subscriptions WHERE id = $1${forUpdate}`, [id]);
      },
      async insert(rec) {
        await q('INSERT INTO feed_subscriptions (id, status, principal, data) VALUES ($1, $2, $3, $4)', [
          rec.subscription.id,
          rec.subscription.status,
          rec.priv.principal,
          json(rec),
        ]);
      },
      async update(rec) {
        await q('UPDATE feed_subscriptions SET status = $1, data = $2 WHERE id = $3', [rec.subscription.status, json(rec), rec.subscription.id]);
      },
      async active() {
        const r = await rows<{ data: string }>(`SELECT data FROM feed_subscriptions WHERE status = 'active' ORDER BY id`);
        return r.map((x) => parse<SubscriptionRecord>(x.data));
      },
    },
    outbox: {
      async add(e: OutboxEvent) {
        await q(
          'INSERT INTO outbox (event_id, event, order_key, principal, profile, payload, created_ms, due_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
          [e.event_id, e.event, e.order_key, e.principal, e.profile, json(e.payload), e.created_ms, e.due_ms],
        );
      },
      async recent(limit) {
        // The internal `seq` ordering column is not part of OutboxEvent.
        return (await rows(`SELECT ${OUTBOX_COLUMNS} FROM outbox ORDER BY seq DESC LIMIT $1`, [limit])).map((r): OutboxEvent => {
          const { seq: _seq, ...e } = rowToEvent(r);
          return e;
        });
      },
      async recentBodies(principal, limit) {
        return (await rows(`SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE principal = $1 AND status = 'dispatched' ORDER BY seq DESC LIMIT $2`, [principal, limit])).map((r) =>
          eventBody(rowToEvent(r)),
        );
      },
      async due(nowMs, limit) {
        return (await rows(`SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE status = 'pending' AND due_ms <= $1 ORDER BY seq LIMIT $2`, [nowMs, limit])).map(
          rowToEvent,
        );
      },
      async markDispatched(seqs) {
        if (seqs.length === 0) return [];
        // Conditional: a row another worker already moved is not ours to announce.
        const r = await rows<{ seq: number }>(
          `UPDATE outbox SET status = 'dispatched' WHERE seq = ANY($1::bigint[]) AND status = 'pending' RETURNING seq`,
          [seqs],
        );
        const moved = new Set(r.map((x) => x.seq));
        return seqs.filter((s, i) => moved.has(s) && seqs.indexOf(s) === i);
      },
      async bySeq(seqs) {
        if (seqs.length === 0) return [];
        const found = new Map(
          (await rows(`SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE seq = ANY($1::bigint[])`, [seqs])).map((r) => [r.seq as number, rowToEvent(r)] as const),
        );
        const out: Array<OutboxEvent & { seq: number }> = [];
        for (const s of seqs) {
          const e = found.get(s);
          if (e) out.push(e);
        }
        return out;
      },
      async cancelScheduled(orderKey, event) {
        return (await q(`UPDATE outbox SET status = 'canceled' WHERE order_key = $1 AND event = $2 AND status = 'pending'`, [orderKey, event])).rowCount ?? 0;
      },
    },
    kv: {
      async get(key) {
        // Get-or-create (a secret generated at first start) must not race when the row is absent.
        await lockKey(`kv:${key}`);
        const r = await rows<{ value: string }>('SELECT value FROM kv WHERE key = $1', [key]);
        return r.length > 0 ? r[0].value : null;
      },
      async set(key, value) {
        await q('INSERT INTO kv (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [key, value]);
      },
    },
  };
}

function serviceAtLocation(s: StoredService, locationId: string): boolean {
  const locs = (s.data.locations as Array<{ id?: string }> | undefined) ?? [];
  return locs.length === 0 || locs.some((l) => l.id === locationId);
}
