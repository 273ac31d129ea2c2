/**
 * The deployment's directory (deployment-port.ts) on PostgreSQL: three tables in a schema of its own
 * (default `usp-deployment`, a name no business's schema can have: those are `usp_` and letters,
 * digits and underscores), created idempotently under an advisory lock so processes starting together
 * do not race. Every process serving the database shares it.
 *
 * Reads answer from a copy in memory (a request's Host is looked up without a round trip). Each write
 * commits with a NOTIFY naming the business; every process LISTENs on a connection of its own and
 * reads that business again, so a suspension made through one process is in force at every other as
 * soon as the notification arrives (milliseconds). A dropped LISTEN connection reconnects with backoff
 * (listen-connection.ts) and reads the whole directory again; so does a periodic pass (`refreshMs`), which bounds how stale
 * a copy can be even if a notification were lost. Re-reads run one at a time, in order, so a later
 * read is never overwritten by an earlier one.
 */
import pg from 'pg';
import {
  checkPaymentAccount,
  DirectoryClash,
  type DeploymentDirectory,
  type DomainClaim,
  type HostedBusiness,
  type HostedRegistration,
  type HostedStatus,
  type NewHostedBusiness,
  type WakeSchedule,
} from '../deployment-port.js';
import { ident, pgCode } from './faults.js';
import { ListenConnection } from './listen-connection.js';
import { pgWakeSchedule } from './deployment-wake.js';

export interface PgDirectoryOptions {
  /** postgres://... (a `schema` parameter is ignored: the directory has a schema of its own). */
  url: string;
  /** The directory's schema (default `usp-deployment`). */
  schema?: string;
  /** Read the whole directory again this often (ms, default 30 s; 0: only on reconnect). */
  refreshMs?: number;
  /** A failure of the LISTEN connection or of a re-read (logged by the caller). */
  onError?: (err: Error) => void;
}

export const DEFAULT_DIRECTORY_SCHEMA = 'usp-deployment';

import {
  asClaim,
  COLS,
  copy,
  group,
  migration,
  type ClaimRow,
  type NameRow,
  type RegRow,
  type Row,
} from './deployment-directory-schema.js';

/** Open (creating if needed) the directory and read it whole; resolves once this process is listening. */
export async function openPgDeploymentDirectory(o: PgDirectoryOptions): Promise<DeploymentDirectory> {
  const u = new URL(o.url);
  u.searchParams.delete('schema');
  const schema = o.schema ?? DEFAULT_DIRECTORY_SCHEMA;
  const dir = new PgDirectory(
    { connectionString: u.toString() },
    schema,
    o.refreshMs ?? 30_000,
    o.onError ?? (() => undefined),
  );
  try {
    await dir.open();
  } catch (err) {
    await dir.close();
    throw err;
  }
  return dir;
}

class PgDirectory implements DeploymentDirectory {
  private readonly pool: pg.Pool;
  private readonly s: string;
  private readonly byId = new Map<string, HostedBusiness>();
  private readonly names = new Map<string, string>();
  private readonly accounts = new Map<string, string>();
  private readonly regs = new Map<string, HostedRegistration[]>();
  readonly wake: WakeSchedule;
  /** Re-reads, one after another. */
  private queue: Promise<void> = Promise.resolve();
  private readonly listen: ListenConnection;
  private refreshTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    config: pg.ClientConfig,
    private readonly schema: string,
    private readonly refreshMs: number,
    private readonly onError: (err: Error) => void,
  ) {
    this.pool = new pg.Pool({ ...config, max: 2 });
    this.pool.on('error', (err) => this.onError(err));
    this.s = ident(schema);
    this.listen = new ListenConnection({
      config,
      channel: schema,
      onNotify: (id) => {
        if (id) void this.reread(id).catch(() => undefined);
      },
      // Listening from here on: what changed before (or while the connection was lost) is read whole.
      onListening: () => this.reread(),
      onError,
    });
    this.wake = pgWakeSchedule(this.pool, this.s);
  }

  async open(): Promise<void> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      // One process creates the tables; another starting at the same moment waits, then finds them.
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`usp-directory:${this.schema}`]);
      await c.query(migration(this.s));
      await c.query('COMMIT');
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
    await this.listen.start();
    if (!this.listen.listening) throw new Error('cannot LISTEN for changes to the deployment directory');
    if (this.refreshMs > 0) {
      this.refreshTimer = setInterval(
        () => void this.reread().catch((err) => this.onError(err as Error)),
        this.refreshMs,
      );
      this.refreshTimer.unref();
    }
  }

  list(): HostedBusiness[] {
    return [...this.byId.values()]
      .sort((a, b) => a.addedAt - b.addedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map(copy);
  }

  get(id: string): HostedBusiness | undefined {
    const b = this.byId.get(id);
    return b && copy(b);
  }

  byHost(host: string): HostedBusiness | undefined {
    const id = this.names.get(host.toLowerCase());
    return id === undefined ? undefined : this.get(id);
  }

  byPaymentAccount(account: string): HostedBusiness | undefined {
    const id = this.accounts.get(account);
    return id === undefined ? undefined : this.get(id);
  }

  async setPaymentAccount(id: string, account: string | undefined): Promise<boolean> {
    checkPaymentAccount(account);
    let changed = false;
    await this.write(id, async (c) => {
      changed = await this.updateAccount(c, id, account);
    });
    return changed;
  }

  registrationsOf(id: string): HostedRegistration[] {
    return (this.regs.get(id) ?? []).map((r) => ({ ...r }));
  }

  async definitionOf(id: string): Promise<string | undefined> {
    const r = await this.pool.query<{ definition: string | null }>(
      `SELECT definition FROM ${this.s}.hosted_businesses WHERE id = $1`,
      [id],
    );
    return r.rows[0]?.definition ?? undefined;
  }

  async add(b: NewHostedBusiness): Promise<void> {
    checkPaymentAccount(b.paymentAccount);
    const hosts = b.hosts.map((h) => h.toLowerCase());
    await this.write(b.id, async (c) => {
      const made = await c.query(
        `INSERT INTO ${this.s}.hosted_businesses (id, status, origin, added_at, definition) VALUES ($1, 'active', $2, $3, $4) ON CONFLICT (id) DO NOTHING`,
        [b.id, b.origin, b.addedAt, b.definition ?? null],
      );
      if (made.rowCount === 0) throw new DirectoryClash(`the deployment already hosts ${b.id}`);
      await this.insertNames(c, b.id, hosts);
      if (b.paymentAccount !== undefined) await this.updateAccount(c, b.id, b.paymentAccount);
    });
  }

  async setStatus(id: string, status: HostedStatus, reason?: string): Promise<boolean> {
    let changed = false;
    await this.write(id, async (c) => {
      const r = await c.query(`UPDATE ${this.s}.hosted_businesses SET status = $1, reason = $2 WHERE id = $3`, [
        status,
        status === 'suspended' ? (reason ?? null) : null,
        id,
      ]);
      changed = (r.rowCount ?? 0) > 0;
    });
    return changed;
  }

  async setHosts(id: string, hosts: string[]): Promise<void> {
    await this.write(id, async (c) => {
      await c.query(`DELETE FROM ${this.s}.hosted_names WHERE business_id = $1`, [id]);
      await this.insertNames(
        c,
        id,
        hosts.map((h) => h.toLowerCase()),
      );
    });
  }

  async remove(id: string): Promise<boolean> {
    let removed = false;
    await this.write(id, async (c) => {
      await c.query(`DELETE FROM ${this.s}.hosted_registrations WHERE business_id = $1`, [id]);
      await c.query(`DELETE FROM ${this.s}.hosted_domain_claims WHERE business_id = $1`, [id]);
      await c.query(`DELETE FROM ${this.s}.hosted_names WHERE business_id = $1`, [id]);
      removed = ((await c.query(`DELETE FROM ${this.s}.hosted_businesses WHERE id = $1`, [id])).rowCount ?? 0) > 0;
    });
    return removed;
  }

  async recordRegistration(id: string, registry: string, registrationId: string, profileUrl: string): Promise<void> {
    await this.write(id, (c) =>
      c.query(
        `INSERT INTO ${this.s}.hosted_registrations (business_id, registry, registration_id, profile_url) SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM ${this.s}.hosted_businesses WHERE id = $1) ON CONFLICT (business_id, registry) DO UPDATE SET registration_id = excluded.registration_id, profile_url = excluded.profile_url`,
        [id, registry, registrationId, profileUrl],
      ),
    );
  }

  async claimDomain(id: string, domain: string, token: string, at: number): Promise<DomainClaim> {
    const name = domain.toLowerCase();
    let out: DomainClaim = { name, token, claimedAt: at };
    await this.write(id, async (c) => {
      const held = await c.query<NameRow>(`SELECT name, business_id FROM ${this.s}.hosted_names WHERE name = $1`, [
        name,
      ]);
      if (held.rows[0]) throw new DirectoryClash(`the host name ${name} already reaches ${held.rows[0].business_id}`);
      await c.query(
        `INSERT INTO ${this.s}.hosted_domain_claims (name, business_id, token, claimed_at) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING`,
        [name, id, token, at],
      );
      const claim = (
        await c.query<ClaimRow>(
          `SELECT name, business_id, token, claimed_at FROM ${this.s}.hosted_domain_claims WHERE name = $1`,
          [name],
        )
      ).rows[0]!;
      if (claim.business_id !== id) throw new DirectoryClash(`the domain ${name} is claimed by another business`);
      out = asClaim(claim);
    });
    return out;
  }

  async domainClaimsOf(id: string): Promise<DomainClaim[]> {
    const r = await this.pool.query<ClaimRow>(
      `SELECT name, business_id, token, claimed_at FROM ${this.s}.hosted_domain_claims WHERE business_id = $1 ORDER BY claimed_at, name`,
      [id],
    );
    return r.rows.map(asClaim);
  }

  async confirmDomain(id: string, domain: string): Promise<boolean> {
    const name = domain.toLowerCase();
    let confirmed = false;
    await this.write(id, async (c) => {
      const gone = await c.query(`DELETE FROM ${this.s}.hosted_domain_claims WHERE name = $1 AND business_id = $2`, [
        name,
        id,
      ]);
      if ((gone.rowCount ?? 0) === 0) return;
      const held = await c.query<NameRow>(`SELECT name, business_id FROM ${this.s}.hosted_names WHERE name = $1`, [
        name,
      ]);
      if (held.rows[0]) throw new DirectoryClash(`the host name ${name} already reaches ${held.rows[0].business_id}`);
      await c.query(
        `INSERT INTO ${this.s}.hosted_names (name, business_id, position) SELECT $1, $2, COALESCE(MAX(position) + 1, 0) FROM ${this.s}.hosted_names WHERE business_id = $2`,
        [name, id],
      );
      confirmed = true;
    });
    return confirmed;
  }

  /** Ready while the copy follows the database: listening, and the database answers. */
  async ready(): Promise<boolean> {
    if (this.closed || !this.listen.listening) return false;
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    await this.listen.close();
    await this.queue.catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }

  private async updateAccount(c: pg.PoolClient, id: string, account: string | undefined): Promise<boolean> {
    if (account !== undefined) {
      const held = await c.query<{ id: string }>(
        `SELECT id FROM ${this.s}.hosted_businesses WHERE payment_account = $1 AND id <> $2`,
        [account, id],
      );
      if (held.rows[0]) throw new DirectoryClash(`the payment account ${account} is already ${held.rows[0].id}'s`);
    }
    const r = await c.query(`UPDATE ${this.s}.hosted_businesses SET payment_account = $1 WHERE id = $2`, [
      account ?? null,
      id,
    ]);
    return (r.rowCount ?? 0) > 0;
  }

  private async insertNames(c: pg.PoolClient, id: string, hosts: string[]): Promise<void> {
    const held = await c.query<NameRow>(
      `SELECT name, business_id FROM ${this.s}.hosted_names WHERE name = ANY($1::text[]) AND business_id <> $2 LIMIT 1`,
      [hosts, id],
    );
    const holder = held.rows[0];
    if (holder) throw new DirectoryClash(`the host name ${holder.name} already reaches ${holder.business_id}`);
    for (const [i, name] of hosts.entries())
      await c.query(`INSERT INTO ${this.s}.hosted_names (name, business_id, position) VALUES ($1, $2, $3)`, [
        name,
        id,
        i,
      ]);
  }

  /** One transaction that changes a business, announced to every process at commit; then read here again. */
  private async write(id: string, body: (c: pg.PoolClient) => Promise<unknown>): Promise<void> {
    if (this.closed) throw new Error('the deployment directory is closed');
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      await body(c);
      await c.query('SELECT pg_notify($1, $2)', [this.schema, id]);
      await c.query('COMMIT');
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      // Two processes taking one name or id at once: the database's keys decide.
      if (pgCode(err) === '23505')
        throw new DirectoryClash(`a host name or the id ${id} is already held in the deployment`);
      throw err;
    } finally {
      c.release();
    }
    // Committed: this process's copy is read again now (a failure here is not the write's: the
    // notification, a reconnect or the periodic pass reads it again).
    await this.reread(id).catch(() => undefined);
  }

  /** Read one business (or, without an id, the whole directory) again, after every re-read asked before. */
  private reread(id?: string): Promise<void> {
    const next = this.queue.then(() => (id === undefined ? this.readAll() : this.readOne(id)));
    this.queue = next.catch((err) => this.onError(err as Error));
    return next;
  }

  private async readOne(id: string): Promise<void> {
    const [b, n, r] = await Promise.all([
      this.pool.query<Row>(`SELECT ${COLS} FROM ${this.s}.hosted_businesses WHERE id = $1`, [id]),
      this.pool.query<NameRow>(
        `SELECT name, business_id FROM ${this.s}.hosted_names WHERE business_id = $1 ORDER BY position`,
        [id],
      ),
      this.pool.query<RegRow>(
        `SELECT business_id, registry, registration_id, profile_url FROM ${this.s}.hosted_registrations WHERE business_id = $1 ORDER BY registry`,
        [id],
      ),
    ]);
    this.forget(id);
    const row = b.rows[0];
    if (row) this.keep(row, n.rows, r.rows);
  }

  private async readAll(): Promise<void> {
    const c = await this.pool.connect();
    let rows: { b: Row[]; n: NameRow[]; r: RegRow[] };
    try {
      // One snapshot for the three tables.
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const b = await c.query<Row>(`SELECT ${COLS} FROM ${this.s}.hosted_businesses`);
      const n = await c.query<NameRow>(
        `SELECT name, business_id FROM ${this.s}.hosted_names ORDER BY business_id, position`,
      );
      const r = await c.query<RegRow>(
        `SELECT business_id, registry, registration_id, profile_url FROM ${this.s}.hosted_registrations ORDER BY business_id, registry`,
      );
      await c.query('COMMIT');
      rows = { b: b.rows, n: n.rows, r: r.rows };
    } finally {
      c.release();
    }
    const namesOf = group(rows.n);
    const regsOf = group(rows.r);
    this.byId.clear();
    this.names.clear();
    this.accounts.clear();
    this.regs.clear();
    for (const row of rows.b) this.keep(row, namesOf.get(row.id) ?? [], regsOf.get(row.id) ?? []);
  }

  private forget(id: string): void {
    const was = this.byId.get(id);
    for (const name of was?.hosts ?? []) if (this.names.get(name) === id) this.names.delete(name);
    if (was?.paymentAccount && this.accounts.get(was.paymentAccount) === id) this.accounts.delete(was.paymentAccount);
    this.byId.delete(id);
    this.regs.delete(id);
  }

  private keep(row: Row, names: NameRow[], regs: RegRow[]): void {
    const hosts = names.map((n) => n.name);
    this.byId.set(row.id, {
      id: row.id,
      status: row.status,
      ...(row.reason ? { reason: row.reason } : {}),
      origin: row.origin,
      addedAt: Number(row.added_at),
      hosts,
      ...(row.payment_account ? { paymentAccount: row.payment_account } : {}),
    });
    for (const name of hosts) this.names.set(name, row.id);
    if (row.payment_account) this.accounts.set(row.payment_account, row.id);
    if (regs.length > 0)
      this.regs.set(
        row.id,
        regs.map((r) => ({ registry: r.registry, registrationId: r.registration_id, profileUrl: r.profile_url })),
      );
  }
}
