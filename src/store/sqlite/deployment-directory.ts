/**
 * The deployment's directory (deployment-port.ts) in a small SQLite file in the deployment's data
 * folder, apart from every business's own store. Its writes are synchronous: a test or command may
 * call them without awaiting.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
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

/** The SQLite directory: the port with its writes done before they return. */
export interface SqliteDeploymentDirectory extends DeploymentDirectory {
  add(b: NewHostedBusiness): void;
  definitionOf(id: string): string | undefined;
  setStatus(id: string, status: HostedStatus, reason?: string): boolean;
  setHosts(id: string, hosts: string[]): void;
  setPaymentAccount(id: string, account: string | undefined): boolean;
  remove(id: string): boolean;
  recordRegistration(id: string, registry: string, registrationId: string, profileUrl: string): void;
  registrationsOf(id: string): HostedRegistration[];
  claimDomain(id: string, name: string, token: string, at: number): DomainClaim;
  domainClaimsOf(id: string): DomainClaim[];
  confirmDomain(id: string, name: string): boolean;
  ready(): boolean;
  close(): void;
}

const MIGRATION = `
CREATE TABLE IF NOT EXISTS hosted_businesses (
  id TEXT PRIMARY KEY,
  status TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
  reason TEXT,
  origin TEXT NOT NULL,
  added_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS hosted_names (
  name TEXT PRIMARY KEY,
  business_id TEXT NOT NULL REFERENCES hosted_businesses(id),
  position INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS hosted_names_business ON hosted_names(business_id, position);
CREATE TABLE IF NOT EXISTS hosted_registrations (
  business_id TEXT NOT NULL REFERENCES hosted_businesses(id),
  registry TEXT NOT NULL,
  registration_id TEXT NOT NULL,
  profile_url TEXT NOT NULL,
  PRIMARY KEY (business_id, registry)
);
CREATE TABLE IF NOT EXISTS hosted_domain_claims (
  name TEXT PRIMARY KEY,
  business_id TEXT NOT NULL REFERENCES hosted_businesses(id),
  token TEXT NOT NULL,
  claimed_at INTEGER NOT NULL
);
`;

type Row = {
  id: string;
  status: HostedStatus;
  reason: string | null;
  origin: string;
  added_at: number;
  payment_account: string | null;
};
const COLS = 'b.id, b.status, b.reason, b.origin, b.added_at, b.payment_account';

export function openDeploymentDirectory(path: string): SqliteDeploymentDirectory {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.exec(MIGRATION);
  // Files made before the directory kept each business file's text.
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(hosted_businesses)').all();
  if (!columns.some((c) => c.name === 'definition'))
    db.exec('ALTER TABLE hosted_businesses ADD COLUMN definition TEXT');
  // Files made before the directory kept each business's Stripe connected account (one business each).
  if (!columns.some((c) => c.name === 'payment_account'))
    db.exec('ALTER TABLE hosted_businesses ADD COLUMN payment_account TEXT');
  db.exec('CREATE UNIQUE INDEX IF NOT EXISTS hosted_businesses_payment_account ON hosted_businesses(payment_account)');
  // Files made before the directory kept when each business is due: every business is due at once (0).
  if (!columns.some((c) => c.name === 'wake_at'))
    db.exec('ALTER TABLE hosted_businesses ADD COLUMN wake_at INTEGER DEFAULT 0');
  db.exec('CREATE INDEX IF NOT EXISTS hosted_businesses_wake ON hosted_businesses(wake_at)');
  const namesOf = db.prepare<[string], { name: string }>(
    'SELECT name FROM hosted_names WHERE business_id = ? ORDER BY position',
  );
  const rowOf = db.prepare<[string], Row>(`SELECT ${COLS} FROM hosted_businesses b WHERE b.id = ?`);
  const rowByHost = db.prepare<[string], Row>(
    `SELECT ${COLS} FROM hosted_names n JOIN hosted_businesses b ON b.id = n.business_id WHERE n.name = ?`,
  );
  const rowByAccount = db.prepare<[string], Row>(`SELECT ${COLS} FROM hosted_businesses b WHERE b.payment_account = ?`);
  const updateAccount = db.prepare('UPDATE hosted_businesses SET payment_account = ? WHERE id = ?');
  const setAccount = db.transaction((id: string, account: string | undefined) => {
    checkPaymentAccount(account);
    const holder = account === undefined ? undefined : rowByAccount.get(account);
    if (holder && holder.id !== id)
      throw new DirectoryClash(`the payment account ${account} is already ${holder.id}'s`);
    return updateAccount.run(account ?? null, id).changes > 0;
  });
  const all = db.prepare<[], Row>(`SELECT ${COLS} FROM hosted_businesses b ORDER BY b.added_at, b.id`);
  const insert = db.prepare(
    'INSERT INTO hosted_businesses (id, status, origin, added_at, definition) VALUES (?, ?, ?, ?, ?)',
  );
  const definitionOf = db.prepare<[string], { definition: string | null }>(
    'SELECT definition FROM hosted_businesses WHERE id = ?',
  );
  const insertName = db.prepare('INSERT INTO hosted_names (name, business_id, position) VALUES (?, ?, ?)');
  const nameTaken = db.prepare<[string], { business_id: string }>(
    'SELECT business_id FROM hosted_names WHERE name = ?',
  );
  const updateStatus = db.prepare('UPDATE hosted_businesses SET status = ?, reason = ? WHERE id = ?');
  const upsertRegistration = db.prepare(
    'INSERT INTO hosted_registrations (business_id, registry, registration_id, profile_url) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM hosted_businesses WHERE id = ?) ON CONFLICT (business_id, registry) DO UPDATE SET registration_id = excluded.registration_id, profile_url = excluded.profile_url',
  );
  const registrations = db.prepare<[string], { registry: string; registration_id: string; profile_url: string }>(
    'SELECT registry, registration_id, profile_url FROM hosted_registrations WHERE business_id = ? ORDER BY registry',
  );
  const remove = db.transaction((id: string) => {
    db.prepare('DELETE FROM hosted_registrations WHERE business_id = ?').run(id);
    db.prepare('DELETE FROM hosted_domain_claims WHERE business_id = ?').run(id);
    db.prepare('DELETE FROM hosted_names WHERE business_id = ?').run(id);
    return db.prepare('DELETE FROM hosted_businesses WHERE id = ?').run(id).changes > 0;
  });
  const full = (r: Row | undefined): HostedBusiness | undefined =>
    r && {
      id: r.id,
      status: r.status,
      ...(r.reason ? { reason: r.reason } : {}),
      origin: r.origin,
      addedAt: r.added_at,
      hosts: namesOf.all(r.id).map((n) => n.name),
      ...(r.payment_account ? { paymentAccount: r.payment_account } : {}),
    };
  const add = db.transaction((b: NewHostedBusiness) => {
    if (rowOf.get(b.id)) throw new DirectoryClash(`the deployment already hosts ${b.id}`);
    insert.run(b.id, 'active', b.origin, b.addedAt, b.definition ?? null);
    if (b.paymentAccount !== undefined) setAccount(b.id, b.paymentAccount);
    b.hosts.forEach((name, i) => {
      const holder = nameTaken.get(name);
      if (holder) throw new DirectoryClash(`the host name ${name} already reaches ${holder.business_id}`);
      insertName.run(name, b.id, i);
    });
  });
  const dropNames = db.prepare('DELETE FROM hosted_names WHERE business_id = ?');
  const setHosts = db.transaction((id: string, hosts: string[]) => {
    dropNames.run(id);
    hosts.forEach((name, i) => {
      const holder = nameTaken.get(name);
      if (holder) throw new DirectoryClash(`the host name ${name} already reaches ${holder.business_id}`);
      insertName.run(name, id, i);
    });
  });
  type ClaimRow = { name: string; business_id: string; token: string; claimed_at: number };
  const claimOf = db.prepare<[string], ClaimRow>(
    'SELECT name, business_id, token, claimed_at FROM hosted_domain_claims WHERE name = ?',
  );
  const claimsOf = db.prepare<[string], ClaimRow>(
    'SELECT name, business_id, token, claimed_at FROM hosted_domain_claims WHERE business_id = ? ORDER BY claimed_at, name',
  );
  const asClaim = (r: ClaimRow): DomainClaim => ({ name: r.name, token: r.token, claimedAt: r.claimed_at });
  const claimDomain = db.transaction((id: string, name: string, token: string, at: number): DomainClaim => {
    const holder = nameTaken.get(name);
    if (holder) throw new DirectoryClash(`the host name ${name} already reaches ${holder.business_id}`);
    const claim = claimOf.get(name);
    if (claim && claim.business_id !== id)
      throw new DirectoryClash(`the domain ${name} is claimed by another business`);
    if (claim) return asClaim(claim);
    db.prepare('INSERT INTO hosted_domain_claims (name, business_id, token, claimed_at) VALUES (?, ?, ?, ?)').run(
      name,
      id,
      token,
      at,
    );
    return { name, token, claimedAt: at };
  });
  const confirmDomain = db.transaction((id: string, name: string): boolean => {
    const claim = claimOf.get(name);
    if (!claim || claim.business_id !== id) return false;
    const holder = nameTaken.get(name);
    if (holder) throw new DirectoryClash(`the host name ${name} already reaches ${holder.business_id}`);
    db.prepare('DELETE FROM hosted_domain_claims WHERE name = ?').run(name);
    insertName.run(name, id, namesOf.all(id).length);
    return true;
  });
  const hostCache = hostLookups(db, (host) => full(rowByHost.get(host)));
  const changed = hostCache.changed;
  return {
    claimDomain: (id, name, token, at) => claimDomain(id, name.toLowerCase(), token, at),
    domainClaimsOf: (id) => claimsOf.all(id).map(asClaim),
    confirmDomain: (id, name) => changed(confirmDomain(id, name.toLowerCase())),
    setHosts: (id, hosts) =>
      changed(
        setHosts(
          id,
          hosts.map((h) => h.toLowerCase()),
        ),
      ),
    add: (b) => changed(add({ ...b, hosts: b.hosts.map((h) => h.toLowerCase()) })),
    list: () => all.all().map((r) => full(r)!),
    get: (id) => full(rowOf.get(id)),
    definitionOf: (id) => definitionOf.get(id)?.definition ?? undefined,
    byHost: (host) => hostCache.get(host.toLowerCase()),
    setStatus: (id, status, reason) =>
      changed(updateStatus.run(status, status === 'suspended' ? (reason ?? null) : null, id).changes > 0),
    remove: (id) => changed(remove(id)),
    setPaymentAccount: (id, account) => changed(setAccount(id, account)),
    byPaymentAccount: (account) => full(rowByAccount.get(account)),
    recordRegistration: (id, registry, registrationId, profileUrl) =>
      void upsertRegistration.run(id, registry, registrationId, profileUrl, id),
    registrationsOf: (id) =>
      registrations
        .all(id)
        .map((r) => ({ registry: r.registry, registrationId: r.registration_id, profileUrl: r.profile_url })),
    ready: () => {
      try {
        return db.prepare('SELECT 1 AS ok').get() !== undefined;
      } catch {
        return false;
      }
    },
    wake: sqliteWakeSchedule(db),
    close: () => db.close(),
  };
}

/** Businesses kept by host name at most; past it the cache starts again (misses are never kept). */
const HOST_CACHE_MAX = 10_000;

/**
 * The lookup every request makes, answered from memory while the file is unchanged: SQLite's
 * `data_version` moves when another connection (another process, a CLI) commits, and `changed`
 * marks this connection's own writes. Two statements per request before (about 50-70 µs).
 */
function hostLookups(db: Database.Database, read: (host: string) => HostedBusiness | undefined) {
  const version = db.prepare<[], number>('PRAGMA data_version').pluck();
  const cache = new Map<string, HostedBusiness>();
  let seen = -1;
  const copy = (b: HostedBusiness): HostedBusiness => ({ ...b, hosts: [...b.hosts] });
  return {
    get(host: string): HostedBusiness | undefined {
      const v = version.get() as number;
      if (v !== seen || cache.size >= HOST_CACHE_MAX) {
        cache.clear();
        seen = v;
      }
      const hit = cache.get(host);
      if (hit) return copy(hit);
      const b = read(host);
      if (b) cache.set(host, copy(b));
      return b;
    },
    /** After a write of this connection: whatever it returned, nothing cached is trusted. */
    changed<T>(result: T): T {
      cache.clear();
      return result;
    },
  };
}

/** The waker's column: claims are transactions of this file (one process serves a SQLite deployment). */
function sqliteWakeSchedule(db: Database.Database): WakeSchedule {
  const setWake = db.prepare('UPDATE hosted_businesses SET wake_at = ? WHERE id = ?');
  const dueIds = db.prepare<[number, number], { id: string }>(
    'SELECT id FROM hosted_businesses WHERE wake_at <= ? ORDER BY wake_at, id LIMIT ?',
  );
  const wakeOf = db.prepare<[string], { wake_at: number | null }>('SELECT wake_at FROM hosted_businesses WHERE id = ?');
  const set = db.transaction((ids: readonly string[], at: number | null) => {
    for (const id of ids) setWake.run(at, id);
  });
  const claim = db.transaction((now: number, limit: number, until: number, except: readonly string[]) => {
    const skip = new Set(except);
    const ids = dueIds
      .all(now, limit + skip.size)
      .map((r) => r.id)
      .filter((id) => !skip.has(id))
      .slice(0, limit);
    for (const id of ids) setWake.run(until, id);
    return ids;
  });
  return {
    set: (ids, at) => set(ids, at),
    claimDue: async (now, limit, until, except) => claim(now, limit, until, except),
    at: async (id) => wakeOf.get(id)?.wake_at,
  };
}
