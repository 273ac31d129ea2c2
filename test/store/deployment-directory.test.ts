/**
 * The deployment directory's contract (src/store/deployment-port.ts), written once and run on both
 * engines: SQLite (a file in a temp folder) and PostgreSQL (a schema of the test's own; skipped, saying
 * why, without USP_TEST_PG_URL). Two directories opened on one deployment stand for two processes:
 * what one adds, suspends or removes, the other sees (on PostgreSQL through LISTEN/NOTIFY, within a
 * bounded time, even after its LISTEN connection was cut).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  DirectoryClash,
  openDeploymentDirectory,
  openDeploymentDirectoryAt,
  type DeploymentDirectory,
} from '../../src/store/index.js';
import { PG_URL, adminClient, dropSchema, noteSkipped, schemaName } from '../pg/helpers.js';
import { waitFor } from '../support/time.js';
import { wakeContract } from './deployment-wake-contract.js';

/** Opens a directory on one deployment: each call is another process's handle on the same one. */
type Opener = () => Promise<DeploymentDirectory>;

function directoryContract(name: string, deployment: () => { open: Opener; done: () => Promise<void> }): void {
  describe(`deployment directory contract (${name})`, () => {
    let open: Opener;
    let done: () => Promise<void>;
    let a: DeploymentDirectory;
    let b: DeploymentDirectory;
    beforeEach(async () => {
      ({ open, done } = deployment());
      a = await open();
      b = await open();
    });
    afterEach(async () => {
      await a.close();
      await b.close();
      await done();
    });

    test('a business added is found by id, by any of its names in any case, and in the list', async () => {
      await a.add({ id: 'biz_rosa', hosts: ['Rosa.localhost', 'book.rosa.example'], origin: 'demo', addedAt: 2 });
      await a.add({ id: 'biz_nord', hosts: ['nord.localhost'], origin: '/files/nord.json', addedAt: 1 });
      expect(a.get('biz_rosa')).toEqual({
        id: 'biz_rosa',
        hosts: ['rosa.localhost', 'book.rosa.example'],
        status: 'active',
        origin: 'demo',
        addedAt: 2,
      });
      expect(a.byHost('BOOK.rosa.example')?.id).toBe('biz_rosa');
      expect(a.byHost('other.localhost')).toBeUndefined();
      expect(a.list().map((x) => x.id)).toEqual(['biz_nord', 'biz_rosa']);
      expect(await a.ready()).toBe(true);
    });

    test('an id or a host name already held is a clash that changes nothing', async () => {
      await a.add({ id: 'biz_rosa', hosts: ['rosa.localhost'], origin: 'demo', addedAt: 1 });
      await expect(
        Promise.resolve().then(() => a.add({ id: 'biz_rosa', hosts: ['x.localhost'], origin: 'demo', addedAt: 2 })),
      ).rejects.toBeInstanceOf(DirectoryClash);
      await expect(
        Promise.resolve().then(() =>
          a.add({ id: 'biz_nord', hosts: ['nord.localhost', 'ROSA.localhost'], origin: 'demo', addedAt: 2 }),
        ),
      ).rejects.toBeInstanceOf(DirectoryClash);
      expect(a.get('biz_nord')).toBeUndefined();
      expect(a.byHost('nord.localhost')).toBeUndefined();
      expect(a.byHost('x.localhost')).toBeUndefined();
      expect(a.get('biz_rosa')?.hosts).toEqual(['rosa.localhost']);
      await a.add({ id: 'biz_nord', hosts: ['nord.localhost'], origin: 'demo', addedAt: 3 });
      await expect(
        Promise.resolve().then(() => a.setHosts('biz_nord', ['n2.localhost', 'rosa.localhost'])),
      ).rejects.toBeInstanceOf(DirectoryClash);
      expect(a.get('biz_nord')?.hosts).toEqual(['nord.localhost']);
      expect(a.byHost('n2.localhost')).toBeUndefined();
      await a.setHosts('biz_nord', ['N2.localhost', 'nord.localhost']);
      expect(a.get('biz_nord')?.hosts).toEqual(['n2.localhost', 'nord.localhost']);
    });

    test("a business file's text is kept for every process, read on demand", async () => {
      await a.add({
        id: 'biz_rosa',
        hosts: ['rosa.localhost'],
        origin: '/elsewhere/rosa.json',
        addedAt: 1,
        definition: '{"business":{"id":"biz_rosa"}}',
      });
      await a.add({ id: 'biz_demo', hosts: ['demo.localhost'], origin: 'demo', addedAt: 2 });
      expect(await b.definitionOf('biz_rosa')).toBe('{"business":{"id":"biz_rosa"}}');
      expect(await b.definitionOf('biz_demo')).toBeUndefined();
      expect(await b.definitionOf('biz_none')).toBeUndefined();
      expect(a.get('biz_rosa')).not.toHaveProperty('definition');
    });

    test('suspension keeps its reason until resumed; an unknown id is false', async () => {
      await a.add({ id: 'biz_rosa', hosts: ['rosa.localhost'], origin: 'demo', addedAt: 1 });
      expect(await a.setStatus('biz_rosa', 'suspended', 'Closed for renovation')).toBe(true);
      expect(a.byHost('rosa.localhost')).toMatchObject({ status: 'suspended', reason: 'Closed for renovation' });
      expect(await a.setStatus('biz_rosa', 'active', 'ignored')).toBe(true);
      expect(a.get('biz_rosa')).not.toHaveProperty('reason');
      expect(a.get('biz_rosa')?.status).toBe('active');
      expect(await a.setStatus('biz_none', 'suspended')).toBe(false);
    });

    test('a removed business frees its names and forgets its registrations', async () => {
      await a.add({ id: 'biz_rosa', hosts: ['rosa.localhost'], origin: 'demo', addedAt: 1 });
      await a.recordRegistration(
        'biz_rosa',
        'http://registry.localhost/',
        'reg_1',
        'http://rosa.localhost/.well-known/usp',
      );
      await a.recordRegistration(
        'biz_rosa',
        'http://registry.localhost/',
        'reg_2',
        'http://rosa.localhost/.well-known/usp',
      );
      await a.recordRegistration('biz_none', 'http://registry.localhost/', 'reg_3', 'http://x/');
      expect(a.registrationsOf('biz_rosa')).toEqual([
        {
          registry: 'http://registry.localhost/',
          registrationId: 'reg_2',
          profileUrl: 'http://rosa.localhost/.well-known/usp',
        },
      ]);
      expect(a.registrationsOf('biz_none')).toEqual([]);
      expect(await a.remove('biz_rosa')).toBe(true);
      expect(await a.remove('biz_rosa')).toBe(false);
      expect(a.byHost('rosa.localhost')).toBeUndefined();
      expect(a.registrationsOf('biz_rosa')).toEqual([]);
      await a.add({ id: 'biz_other', hosts: ['rosa.localhost'], origin: 'demo', addedAt: 2 });
      expect(a.byHost('rosa.localhost')?.id).toBe('biz_other');
    });

    test('a custom domain is pending (reaching nothing) until confirmed, one business at a time, freed with its business', async () => {
      await a.add({ id: 'biz_rosa', hosts: ['rosa.localhost'], origin: 'demo', addedAt: 1 });
      await a.add({ id: 'biz_nord', hosts: ['nord.localhost'], origin: 'demo', addedAt: 2 });
      expect(await a.claimDomain('biz_rosa', 'Book.Rosa.example', 'tok-1', 10)).toEqual({
        name: 'book.rosa.example',
        token: 'tok-1',
        claimedAt: 10,
      });
      // Claimed again by its business: the same claim, its token kept.
      expect(await a.claimDomain('biz_rosa', 'book.rosa.example', 'tok-2', 11)).toEqual({
        name: 'book.rosa.example',
        token: 'tok-1',
        claimedAt: 10,
      });
      await expect(
        Promise.resolve().then(() => a.claimDomain('biz_nord', 'book.rosa.example', 'tok-3', 12)),
      ).rejects.toBeInstanceOf(DirectoryClash);
      await expect(
        Promise.resolve().then(() => a.claimDomain('biz_nord', 'rosa.localhost', 'tok-4', 12)),
      ).rejects.toBeInstanceOf(DirectoryClash);
      expect(await a.domainClaimsOf('biz_rosa')).toEqual([
        { name: 'book.rosa.example', token: 'tok-1', claimedAt: 10 },
      ]);
      expect(await a.domainClaimsOf('biz_nord')).toEqual([]);
      expect(a.byHost('book.rosa.example')).toBeUndefined();
      expect(await a.confirmDomain('biz_nord', 'book.rosa.example')).toBe(false);
      expect(await a.confirmDomain('biz_rosa', 'BOOK.rosa.example')).toBe(true);
      expect(a.get('biz_rosa')?.hosts).toEqual(['rosa.localhost', 'book.rosa.example']);
      expect(a.byHost('book.rosa.example')?.id).toBe('biz_rosa');
      await waitFor(
        () => b.byHost('book.rosa.example')?.id === 'biz_rosa',
        3000,
        'the confirmed domain seen by the other process',
      );
      expect(await a.domainClaimsOf('biz_rosa')).toEqual([]);
      expect(await a.confirmDomain('biz_rosa', 'book.rosa.example')).toBe(false);
      await a.claimDomain('biz_nord', 'nord.example', 'tok-5', 13);
      expect(await a.remove('biz_nord')).toBe(true);
      expect(await a.domainClaimsOf('biz_nord')).toEqual([]);
      expect(await a.claimDomain('biz_rosa', 'nord.example', 'tok-6', 14)).toMatchObject({ token: 'tok-6' });
    });

    test("another process's adds, suspensions, name changes and removals are seen here within a bounded time", async () => {
      await a.add({ id: 'biz_rosa', hosts: ['rosa.localhost'], origin: 'demo', addedAt: 1 });
      await waitFor(() => b.byHost('rosa.localhost')?.id === 'biz_rosa', 3000, 'the add seen by the other process');
      await a.setStatus('biz_rosa', 'suspended', 'Closed today');
      await waitFor(
        () => b.byHost('rosa.localhost')?.status === 'suspended',
        3000,
        'the suspension seen by the other process',
      );
      expect(b.get('biz_rosa')?.reason).toBe('Closed today');
      await b.setStatus('biz_rosa', 'active');
      await waitFor(() => a.get('biz_rosa')?.status === 'active', 3000, 'the resumption seen back');
      await b.setHosts('biz_rosa', ['rosa2.localhost']);
      await waitFor(
        () => a.byHost('rosa2.localhost')?.id === 'biz_rosa' && a.byHost('rosa.localhost') === undefined,
        3000,
        'the new names seen',
      );
      await b.recordRegistration(
        'biz_rosa',
        'http://registry.localhost/',
        'reg_9',
        'http://rosa2.localhost/.well-known/usp',
      );
      await waitFor(() => a.registrationsOf('biz_rosa').length === 1, 3000, 'the registration seen');
      await a.remove('biz_rosa');
      await waitFor(
        () => b.get('biz_rosa') === undefined && b.byHost('rosa2.localhost') === undefined,
        3000,
        'the removal seen',
      );
      expect(b.list()).toEqual([]);
    });

    test('a Stripe connected account is kept per business: well formed, never two businesses, seen by every process', async () => {
      const attempt = (f: () => unknown) => Promise.resolve().then(f);
      await a.add({
        id: 'biz_rosa',
        hosts: ['rosa.localhost'],
        origin: 'demo',
        addedAt: 1,
        paymentAccount: 'acct_1RosaA',
      });
      await a.add({ id: 'biz_nord', hosts: ['nord.localhost'], origin: 'demo', addedAt: 2 });
      expect(a.get('biz_rosa')?.paymentAccount).toBe('acct_1RosaA');
      expect(a.byPaymentAccount('acct_1RosaA')?.id).toBe('biz_rosa');
      await expect(attempt(() => a.setPaymentAccount('biz_nord', 'acct_1RosaA'))).rejects.toBeInstanceOf(
        DirectoryClash,
      );
      await expect(
        attempt(() =>
          a.add({
            id: 'biz_lina',
            hosts: ['lina.localhost'],
            origin: 'demo',
            addedAt: 3,
            paymentAccount: 'acct_1RosaA',
          }),
        ),
      ).rejects.toBeInstanceOf(DirectoryClash);
      expect(a.get('biz_lina')).toBeUndefined();
      for (const bad of ['acct_', 'acct_1-x', 'cus_123', 'acct_1 ', ''])
        await expect(
          attempt(() => a.setPaymentAccount('biz_nord', bad)),
          bad,
        ).rejects.toBeInstanceOf(RangeError);
      expect(a.get('biz_nord')?.paymentAccount).toBeUndefined();
      expect(await a.setPaymentAccount('biz_none', 'acct_1None')).toBe(false);
      expect(await a.setPaymentAccount('biz_nord', 'acct_1NordB')).toBe(true);
      await waitFor(
        () => b.byPaymentAccount('acct_1NordB')?.id === 'biz_nord',
        3000,
        'the account seen by the other process',
      );
      expect(await b.setPaymentAccount('biz_rosa', undefined)).toBe(true);
      await waitFor(
        () => a.byPaymentAccount('acct_1RosaA') === undefined && a.get('biz_rosa')?.paymentAccount === undefined,
        3000,
        'the account forgotten',
      );
      // Forgotten, the account may go to another business.
      expect(await a.setPaymentAccount('biz_nord', 'acct_1RosaA')).toBe(true);
      expect(a.byPaymentAccount('acct_1NordB')).toBeUndefined();
    });
  });
}

// ------------------------------------------------------------------------------------------------

const folders: string[] = [];
afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

const sqliteDeployment = () => {
  const dir = mkdtempSync(join(tmpdir(), 'usp-directory-'));
  folders.push(dir);
  return { open: async () => openDeploymentDirectory(join(dir, 'deployment.db')), done: async () => undefined };
};
directoryContract('SQLite', sqliteDeployment);
wakeContract('SQLite', sqliteDeployment);

test('a SQLite directory made before it kept wake times opens with every business due at once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'usp-directory-'));
  folders.push(dir);
  const path = join(dir, 'deployment.db');
  const old = new Database(path);
  old.exec(`CREATE TABLE hosted_businesses (id TEXT PRIMARY KEY, status TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
    reason TEXT, origin TEXT NOT NULL, added_at INTEGER NOT NULL, definition TEXT, payment_account TEXT);
    INSERT INTO hosted_businesses (id, status, origin, added_at) VALUES ('biz_old', 'active', 'demo', 1);`);
  old.close();
  const d = openDeploymentDirectory(path);
  try {
    expect(await d.wake.at('biz_old')).toBe(0);
    expect(await d.wake.claimDue(1_000, 5, 60_000, [])).toEqual(['biz_old']);
    expect(d.get('biz_old')?.origin).toBe('demo');
  } finally {
    d.close();
  }
});

test('a SQLite directory answers a host it already found from memory until the file changes, by any connection', async () => {
  // Every hosted request asks by host: two statements each before. Counted at the driver.
  const dir = mkdtempSync(join(tmpdir(), 'usp-directory-'));
  folders.push(dir);
  const path = join(dir, 'deployment.db');
  const mem = new Database(':memory:');
  const proto = Object.getPrototypeOf(mem.prepare('SELECT 1')) as { get: (...a: unknown[]) => unknown };
  mem.close();
  const get = proto.get;
  let reads = 0;
  proto.get = function (this: { source: string }, ...args: unknown[]) {
    if (this.source.includes('FROM hosted_names n JOIN')) reads++;
    return get.apply(this, args);
  };
  const a = openDeploymentDirectory(path);
  const b = openDeploymentDirectory(path);
  try {
    await a.add({ id: 'biz_rosa', hosts: ['rosa.localhost'], origin: 'demo', addedAt: 1 });
    expect(a.byHost('rosa.localhost')?.status).toBe('active');
    const found = a.byHost('ROSA.localhost');
    expect(found?.id).toBe('biz_rosa');
    expect(reads).toBe(1);
    // What a caller does to an answer is not what the next caller gets.
    found!.hosts.push('x.localhost');
    expect(a.byHost('rosa.localhost')?.hosts).toEqual(['rosa.localhost']);
    // Another connection's write (another process) and this one's own are both seen at once.
    await b.setStatus('biz_rosa', 'suspended', 'Closed');
    expect(a.byHost('rosa.localhost')?.status).toBe('suspended');
    await a.setHosts('biz_rosa', ['rosa2.localhost']);
    expect(a.byHost('rosa.localhost')).toBeUndefined();
    expect(a.byHost('rosa2.localhost')?.id).toBe('biz_rosa');
    await a.setStatus('biz_rosa', 'active');
    expect(a.byHost('rosa2.localhost')?.status).toBe('active');
    // A host nobody serves is asked of the file each time (a stranger's names are not kept).
    const before = reads;
    a.byHost('nobody.localhost');
    a.byHost('nobody.localhost');
    expect(reads - before).toBe(2);
  } finally {
    proto.get = get;
    a.close();
    b.close();
  }
});

if (!PG_URL)
  describe.skip(noteSkipped('deployment directory contract (PostgreSQL)'), () => {
    test('two processes share one directory', () => {});
  });
else {
  const pgDeployment = (refreshMs = 0) => {
    const schema = schemaName('dir');
    return {
      schema,
      // refreshMs 0: no periodic pass, so what is seen is seen through LISTEN/NOTIFY (or a reconnect).
      open: () => openDeploymentDirectoryAt({ db: PG_URL, path: '/nonexistent' }, { schema, refreshMs }),
      done: () => dropSchema(schema),
    };
  };
  directoryContract('PostgreSQL', () => pgDeployment());
  wakeContract('PostgreSQL', () => pgDeployment());

  describe('deployment directory on PostgreSQL, several processes', () => {
    test('a directory made before it kept wake times opens with every business due at once', async () => {
      const d = pgDeployment();
      const admin = await adminClient();
      try {
        await admin.query(`CREATE SCHEMA "${d.schema}";
          CREATE TABLE "${d.schema}".hosted_businesses (id TEXT PRIMARY KEY, status TEXT NOT NULL, reason TEXT,
            origin TEXT NOT NULL, added_at BIGINT NOT NULL, definition TEXT, payment_account TEXT);
          INSERT INTO "${d.schema}".hosted_businesses (id, status, origin, added_at) VALUES ('biz_old', 'active', 'demo', 1);`);
        const dir = await d.open();
        try {
          expect(await dir.wake.at('biz_old')).toBe(0);
          expect(await dir.wake.claimDue(1_000, 5, 60_000, [])).toEqual(['biz_old']);
          expect(dir.get('biz_old')?.origin).toBe('demo');
        } finally {
          await dir.close();
        }
      } finally {
        await admin.end();
        await d.done();
      }
    });

    test('processes opening a new directory at once all succeed, and share it', async () => {
      const d = pgDeployment();
      const opened = await Promise.all([d.open(), d.open(), d.open()]);
      try {
        await opened[0]!.add({ id: 'biz_rosa', hosts: ['rosa.localhost'], origin: 'demo', addedAt: 1 });
        for (const x of opened)
          await waitFor(() => x.get('biz_rosa') !== undefined, 3000, 'every process sees the business');
      } finally {
        for (const x of opened) await x.close();
        await d.done();
      }
    });

    test('a process whose LISTEN connection was cut catches up once it is back, and is ready again', async () => {
      const d = pgDeployment();
      const a = await d.open();
      const b = await d.open();
      const admin = await adminClient();
      try {
        await a.add({ id: 'biz_rosa', hosts: ['rosa.localhost'], origin: 'demo', addedAt: 1 });
        await waitFor(() => b.get('biz_rosa') !== undefined, 3000, 'b sees the business');
        // Cut every LISTEN connection on the directory's channel (both processes'), then suspend through a.
        const cut = await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query ILIKE 'LISTEN "${d.schema}"'`,
        );
        expect(cut.rowCount).toBe(2);
        await a.setStatus('biz_rosa', 'suspended', 'Closed');
        await waitFor(() => b.get('biz_rosa')?.status === 'suspended', 15_000, 'b catches up after reconnecting');
        await waitFor(async () => (await b.ready()) === true, 15_000, 'b ready again');
      } finally {
        await admin.end();
        await a.close();
        await b.close();
        await d.done();
      }
    }, 30_000);
  });
}
