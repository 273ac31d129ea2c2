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
import { pgFrontDesk } from './frontdesk-repo.js';
import { BUSINESS_SEED, type SessionKeying, keyedChannelName, keying } from './business-keyed.js';
import { inlined } from './literals.js';
import { countingClient } from './counting-client.js';
import { SharedListener } from './listen.js';
import { WrongSchema, migrate, migrateKeyed } from './open-migrate.js';
import pg from 'pg';
import type { Store, Tx } from '../port.js';
import { StoreUnavailable } from '../port.js';
import { DueCache, NEXT_DUE_SQL, dueTimes, type DueTimes } from '../shared/due.js';
import { pgBookings } from './bookings.js';
import { pgCatalog } from './catalog.js';
import { PgChannel } from './channel.js';
import { pgClaims } from './claims.js';
import { connectionFault, retryable, sleep } from './faults.js';
import { pgHolds } from './holds.js';
import { pgIdempotency } from './idempotency.js';
import { pgKeyValue } from './kv.js';
import { pgDefinition } from './definition.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';
import { postgresOAuthRepos } from './oauth-repo.js';
import { pgPayments } from './payments.js';
import { pgMail } from './mail.js';
import { pgCalendars } from './calendars.js';
import { pgOutbox } from './outbox.js';
import { postgresRegistryRepo } from './registry-repo.js';
import { postgresAdminRepo } from './admin-repo.js';
import { pgSecurity } from './security.js';
import { type Mode, type PgSession, pgSession } from './session.js';
import { pgSubscriptions } from './subscriptions.js';
import { pgWaitlist } from './waitlist.js';
import { pgWebhooks } from './webhooks.js';

export { ClaimConflict, connectionFault } from './faults.js';
export { WrongSchema } from './open-migrate.js';
export type { PostgresEventChannel } from './channel.js';

export interface PostgresStoreOptions {
  /**
   * postgres://user:password@host:port/database; a `schema` query parameter selects a schema, and a
   * `business` parameter beside it keys the store by that business in that schema (`keyed`).
   */
  url: string;
  /** Connections in the pool (default 10). The LISTEN connection comes on top. */
  poolSize?: number;
  /** Schema to keep the tables in (created if missing); default: the URL's `schema`, else the server's search_path. */
  schema?: string;
  /** Times a transaction is run again after a deadlock, serialization failure or claim overlap (default 5). */
  maxRetries?: number;
  /** Connection-level errors on idle connections (default: none reported; the server passes its logger). */
  onError?: (err: Error) => void;
  /** Give up opening a connection after this long (default 5000 ms). */
  connectTimeoutMs?: number;
  /** statement_timeout of every connection, and (plus a margin) how long we wait for any reply (default 5000 ms). */
  statementTimeoutMs?: number;
  /**
   * Told the text of every query a pooled connection sends (each is one round trip), for tests and
   * benchmarks that count them; without it the pool uses pg's own client class, unwrapped.
   */
  onStatement?: (sql: string) => void;
  /**
   * Keep this business's data in `schema`, shared with other businesses: every table keyed by
   * business under forced row-level security, the business set in each transaction (business-keyed.ts).
   * The migrations are applied to `<schema>_template`, from which the keyed schema is derived once.
   * The role connected as must be neither superuser nor BYPASSRLS. Overrides `schema`.
   */
  keyed?: { business: string; schema: string };
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
const DEFAULT_STATEMENT_TIMEOUT_MS = 5000;

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/** int8 (BIGINT, COUNT) as a JS number: every value stored here is an epoch-ms or a small counter. */
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

export async function openPostgresStore(opts: PostgresStoreOptions): Promise<Store> {
  const { connectionString, schema, business } = splitSchema(opts.url, opts.keyed?.schema ?? opts.schema);
  const keyedBy = opts.keyed?.business ?? business;
  const keyed = keyedBy !== undefined ? keying(keyedBy) : undefined;
  if (keyed && (!schema || schema.length > 50))
    throw new Error('a store keyed by business needs a schema name of at most 50 characters');
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
  // The server passes its logger; without one (a short CLI command) a dropped idle connection is
  // only replaced, and a query that fails says so itself.
  const onError = opts.onError ?? (() => undefined);
  if (keyed && schema && keyedBy !== undefined) return openKeyed(opts, base, schema, keyedBy, keyed, onError);
  const { pool, ready } = newPool(opts, base, schema, onError);
  try {
    await migrate(pool, schema);
    ready();
    const current = (await pool.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s ?? 'public';
    const channelName = current === 'public' ? 'usp_events' : `usp_events_${current}`;
    return new PostgresStore(pool, new PgChannel(base, pool, channelName, onError), opts.maxRetries ?? 5);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw unavailable(err);
  }
}

/** A connection fault as StoreUnavailable; any other error as it is. */
function unavailable(err: unknown): unknown {
  const fault = connectionFault(err);
  return fault ? new StoreUnavailable(fault, { cause: err }) : err;
}

/** The store's pool; `ready()` once migrated turns on the check that each new connection is in the schema. */
function newPool(
  opts: PostgresStoreOptions,
  base: pg.ClientConfig,
  schema: string | undefined,
  onError: (err: Error) => void,
): { pool: pg.Pool; ready: () => void } {
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
  const pool = new pg.Pool({
    ...base,
    max: opts.poolSize ?? 10,
    onConnect,
    ...(opts.onStatement ? { Client: countingClient(opts.onStatement) } : {}),
  });
  // An idle pooled connection that breaks is reported here and dropped by the pool.
  pool.on('error', (err) => onError(err));
  // A connection that breaks while checked out emits 'error' too, and pg-pool listens only while it
  // is idle: without this an administrator's shutdown (57P01) would be an unhandled 'error' event
  // that ends the process. The statement in flight fails on its own and run() drops the connection.
  pool.on('connect', (client) => client.on('error', (err) => onError(err)));
  return { pool, ready: () => (migrated = true) };
}

/**
 * The pools of stores keyed by business: one per database, keyed schema and size, shared by every
 * business of the process (a transaction sets its business, so any connection serves any business),
 * ended when its last store closes, with one LISTEN connection for all their channels. Its connection
 * errors go to the first opener's `onError`.
 */
const keyedPools = new Map<string, { pool: Promise<pg.Pool>; users: number; listener: SharedListener }>();

async function openKeyed(
  opts: PostgresStoreOptions,
  base: pg.ClientConfig,
  schema: string,
  business: string,
  keyed: SessionKeying,
  onError: (err: Error) => void,
): Promise<Store> {
  // A pool whose statements a test counts is that store's own.
  const shared = opts.onStatement === undefined;
  const key = [base.connectionString, schema, opts.poolSize ?? 10].join('\u0000');
  let entry = shared ? keyedPools.get(key) : undefined;
  if (!entry) {
    const made = {
      users: 0,
      // The businesses' LISTENs too: one connection for the process, not one per business.
      listener: new SharedListener(base, onError),
      pool: (async () => {
        const { pool, ready } = newPool(opts, base, schema, onError);
        try {
          await migrateKeyed(base, schema, onError);
          ready();
          return pool;
        } catch (err) {
          await pool.end().catch(() => undefined);
          throw err;
        }
      })(),
    };
    entry = made;
    if (shared) keyedPools.set(key, made);
  }
  const e = entry;
  e.users++;
  const release = async (): Promise<void> => {
    if (--e.users > 0) return;
    if (keyedPools.get(key) === e) keyedPools.delete(key);
    await e.listener.end();
    await (await e.pool).end();
  };
  try {
    const pool = await e.pool;
    await pool.query(`${keyed.begin}; ${BUSINESS_SEED}`);
    const read = async (text: string, values: unknown[]) => {
      const rs = (await pool.query(`${keyed.begin}; ${inlined(text, values)}`)) as unknown as pg.QueryResult[];
      return rs[rs.length - 1];
    };
    const channel = new PgChannel(base, pool, keyedChannelName(schema, business), onError, read, e.listener.listen);
    return new PostgresStore(pool, channel, opts.maxRetries ?? 5, keyed, release);
  } catch (err) {
    await release().catch(() => undefined);
    throw unavailable(err);
  }
}

function splitSchema(
  url: string,
  explicit: string | undefined,
): { connectionString: string; schema?: string; business?: string } {
  let connectionString = url;
  let schema = explicit;
  let business: string | undefined;
  try {
    const u = new URL(url);
    const fromUrl = u.searchParams.get('schema');
    business = u.searchParams.get('business') ?? undefined;
    if (fromUrl !== null || business !== undefined) {
      u.searchParams.delete('schema');
      u.searchParams.delete('business');
      connectionString = u.toString();
      schema ??= fromUrl ?? undefined;
    }
  } catch {
    /* not a URL (a libpq key=value string): pass it through unchanged */
  }
  if (schema !== undefined && !SCHEMA_NAME.test(schema))
    throw new Error(`invalid PostgreSQL schema name ${JSON.stringify(schema)}`);
  return { connectionString, schema, business };
}

/** How long a `nextDue` answer is kept while the store wrote nothing (ms). */
export const DUE_MAX_AGE_MS = 30_000;

/** After a failed connect, calls fail at once for this long instead of each trying (and maybe waiting) again. */
const FAIL_FAST_MS = 250;

class PostgresStore implements Store {
  readonly engine = 'postgres' as const;
  private closed = false;
  private failFastUntil = 0;
  private lastFault = 'the database could not be reached';
  private readonly due = new DueCache(DUE_MAX_AGE_MS);

  constructor(
    private readonly pool: pg.Pool,
    readonly channel: PgChannel,
    private readonly maxRetries: number,
    private readonly keyed?: SessionKeying,
    private readonly endPool: () => Promise<void> = () => pool.end(),
  ) {}

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.due.writing(() => this.run('write', fn));
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
        const applied = Number(
          (await c.query<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_migrations')).rows[0]?.v ?? 0,
        );
        if (applied < POSTGRES_MIGRATIONS.length)
          throw new StoreUnavailable(`migrations not applied (schema at ${applied} of ${POSTGRES_MIGRATIONS.length})`);
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

  async definitionVersion(): Promise<number> {
    const r = await this.simple<{ version: string }>('SELECT version FROM definition_version WHERE one = 1');
    return r.rows.length > 0 ? Number(r.rows[0].version) : 0;
  }

  /**
   * Asked of every loaded business every few seconds by the process's work hub (200 round trips a
   * second at 1,000 businesses): given again while this store wrote nothing, for at most
   * DUE_MAX_AGE_MS. Another process's writes are seen then; that process's own hub runs them meanwhile.
   */
  nextDue(): Promise<DueTimes> {
    return this.due.get(async () =>
      dueTimes((await this.simple<NonNullable<Parameters<typeof dueTimes>[0]>>(NEXT_DUE_SQL)).rows[0]),
    );
  }

  /**
   * One statement without parameters on a pooled connection, no transaction: a single round trip. Keyed,
   * the business is set for the simple query's one implicit transaction (without it RLS shows no row).
   */
  private async simple<R extends pg.QueryResultRow>(text: string): Promise<pg.QueryResult<R>> {
    if (Date.now() < this.failFastUntil) throw new StoreUnavailable(this.lastFault);
    try {
      const rs = this.keyed ? await this.pool.query(`${this.keyed.begin}; ${text}`) : await this.pool.query(text);
      return (Array.isArray(rs) ? rs[rs.length - 1] : rs) as pg.QueryResult<R>;
    } catch (err) {
      const fault = connectionFault(err);
      if (!fault) throw err;
      throw new StoreUnavailable(fault, { cause: err });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.channel.close();
    await this.endPool();
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
      // memory (the catalog) then works while the database is away. A write transaction takes it at
      // once, and sends its BEGIN with its first statement (one round trip for both).
      let client: pg.PoolClient | undefined;
      let opening: Promise<pg.PoolClient> | undefined;
      let readBegun = false;
      const session = (): Promise<pg.PoolClient> =>
        (opening ??= (async () => {
          const c = await this.acquire();
          client = c;
          if (mode === 'read') {
            const begin = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';
            await c.query(this.keyed ? `${begin}; ${this.keyed.begin}` : begin);
            readBegun = true;
          }
          return c;
        })());
      const begin = mode === 'write' ? 'BEGIN ISOLATION LEVEL READ COMMITTED' : undefined;
      const s = pgSession(session, mode, begin, this.keyed);
      const begun = () => (mode === 'write' ? s.opened : readBegun);
      let broken = false;
      try {
        if (mode === 'write') await session();
        const out = await fn(buildRepos(s, this.keyed !== undefined, this.channel.name));
        if (mode === 'write') {
          // The held writes and COMMIT, in one round trip where they allow it.
          const end = await s.commit();
          // COMMIT of a transaction a swallowed error had aborted answers ROLLBACK: nothing was written.
          if (end?.command === 'ROLLBACK')
            throw s.failure ?? new Error('transaction was aborted by an earlier error and rolled back');
        } else if (client && begun()) await client.query('ROLLBACK');
        return out;
      } catch (err) {
        if (client && begun()) {
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
          if (client && !begun() && !staleRetried && !this.closed) {
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

/** The repositories of one transaction, bound to its connection; `channel` is where its events are announced. */
function buildRepos(s: PgSession, keyed: boolean, channel: string): Tx {
  return {
    registry: keyed ? NO_REGISTRY : postgresRegistryRepo(s.query, s.lockKey),
    admin: postgresAdminRepo(s.query),
    async lock(keys, o) {
      // One statement per key, in the order given (callers sort), so lock order is deterministic.
      // Before a read: sent with it, in its round trip (each statement of a simple query takes its
      // own snapshot under READ COMMITTED, so the read sees what committed before the grant).
      for (const k of keys) await (o?.beforeRead ? s.lockKey(k) : s.lock(k));
    },
    together: (...fns) => s.together(fns),
    webhooks: pgWebhooks(s, channel),
    security: pgSecurity(s),
    claims: pgClaims(s),
    bookings: pgBookings(s),
    holds: pgHolds(s),
    waitlist: pgWaitlist(s),
    idempotency: pgIdempotency(s),
    catalog: pgCatalog(s),
    subscriptions: pgSubscriptions(s),
    outbox: pgOutbox(s),
    kv: pgKeyValue(s),
    definition: pgDefinition(s),
    payments: pgPayments(s),
    mail: pgMail(s),
    frontdesk: pgFrontDesk(s),
    calendars: pgCalendars(s),
    ...postgresOAuthRepos(s.query),
  };
}

/**
 * A store keyed by business keeps no registry: the registry is a deployment of its own, not one
 * business's data (its services table has a business_id column of its own, too).
 */
const NO_REGISTRY = new Proxy({} as Tx['registry'], {
  get: (_, name) =>
    name === 'then'
      ? undefined
      : () => Promise.reject(new Error('a PostgreSQL store keyed by business keeps no registry')),
});
