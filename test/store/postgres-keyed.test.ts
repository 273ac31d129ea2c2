/**
 * The PostgreSQL store keyed by business (openPostgresStore's `keyed`): many businesses in one
 * schema, every table keyed by business under forced row-level security, the business set in each
 * transaction. The store runs as a plain role (neither superuser nor BYPASSRLS), so the policies
 * really apply. The whole Store contract runs for business A while business B holds data under the
 * same ids in the same schema; then the isolation contract: B's store cannot read, change, delete or
 * collide with A's rows, and their hot keys and notifications are their own.
 * Skipped, with the reason in the title, when no PostgreSQL URL is configured.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { BUSINESS_SETTING, KeyedSchemaBehind, deleteBusinessRows } from '../../src/store/postgres/business-keyed.js';
import { ensureKeyedSchema } from '../../src/store/postgres/keyed-schema.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { openPostgresStore, type PostgresEventChannel } from '../../src/store/postgres/postgres-store.js';
import { PG_URL, adminClient, noteSkipped, plainRoleUrl, schemaName } from '../pg/helpers.js';
import {
  booking,
  claim,
  hold,
  idempotencyRecord as idem,
  outboxEvent,
  storedService,
  waitlistEntry,
} from '../support/records.js';
import { TEST_NOW as NOW } from '../support/time.js';
import { storeContract } from './contract.js';
import { frontDeskContract } from './frontdesk-contract.js';
import { dueContract } from './due-contract.js';

const ROLE = 'usp_keyed_store_app';
const MIN = 60_000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const suite = PG_URL ? describe : describe.skip;

suite(PG_URL ? 'PostgreSQL store keyed by business' : noteSkipped('keyed PostgreSQL store'), () => {
  const schema = schemaName('keyed');
  const template = `${schema}_template`;
  /** The test database as the application's plain role (set in beforeAll). */
  let appUrl = '';
  const open = (business: string) =>
    openPostgresStore({ url: appUrl, keyed: { business, schema }, poolSize: 4, onError: () => {} });
  let admin: pg.Client;
  let tables: string[] = [];

  beforeAll(async () => {
    admin = await adminClient();
    appUrl = await plainRoleUrl(ROLE);
    // Three businesses open at once on a database without the schema: it is derived once.
    const stores = await Promise.all(['biz_a', 'biz_b', 'biz_c'].map(open));
    await Promise.all(stores.map((s) => s.close()));
    tables = (
      await admin.query<{ t: string }>(
        `SELECT relname AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relkind = 'r' AND relname <> 'schema_migrations'`,
        [schema],
      )
    ).rows.map((r) => r.t);
    // Business B holds data under the ids, keys and slots the contract uses for A.
    const b = await open('biz_b');
    try {
      await b.transaction(async (tx) => {
        await tx.claims.add([claim('bkg_1', 'res_alice', NOW, NOW + 60 * MIN), claim('bkg_2', 'res_bob', 100, 200)]);
        await tx.bookings.insert(booking('bkg_1'));
        await tx.holds.insert(hold('hld_1'));
        await tx.idempotency.put(idem('scope_1', NOW + 60 * MIN, { from: 'b' }));
        await tx.outbox.add(outboxEvent('evt_1'));
        await tx.kv.set('k', 'from b');
        await tx.catalog.upsert(storedService('svc_cut', NOW));
        await tx.waitlist.insert(waitlistEntry('wl_1'));
        await tx.admin.putUser({ email: 'owner@example.com', password_hash: 'hash-b', created_ms: NOW });
        await tx.oauth.upsert({
          model: 'Client',
          id: 'client_1',
          payload: { from: 'b' },
          grantId: null,
          uid: null,
          userCode: null,
          accountId: null,
          expiresMs: null,
        });
      });
    } finally {
      await b.close();
    }
  });

  afterAll(async () => {
    if (!admin) return;
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${template}" CASCADE`);
    await admin.end();
  });

  /** Business A's store on A's rows emptied (as the administrator); B's rows stay. */
  const freshA = async (): Promise<Store> => {
    await admin.query(tables.map((t) => `DELETE FROM "${schema}".${t} WHERE business_id = 'biz_a'`).join('; '));
    return open('biz_a');
  };

  storeContract('postgres keyed by business', freshA, { registry: false });
  frontDeskContract('postgres keyed by business', freshA);
  // When the business is next due, read outside a transaction: keyed, with its business set (RLS shows no row else).
  dueContract('postgres keyed by business', freshA);

  describe('the keyed schema', () => {
    test('is owned by the plain application role, every table keyed, row-level security enabled and forced', async () => {
      const role = (await admin.query(`SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = $1`, [ROLE]))
        .rows[0];
      expect(role).toEqual({ rolsuper: false, rolbypassrls: false });
      const rows = (
        await admin.query(
          `SELECT c.relname, pg_get_userbyid(c.relowner) AS owner, c.relrowsecurity AS rls, c.relforcerowsecurity AS forced,
             EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'business_id') AS keyed
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname <> 'schema_migrations'`,
          [schema],
        )
      ).rows;
      expect(rows.length).toBeGreaterThan(30);
      for (const r of rows) expect(r, r.relname).toMatchObject({ owner: ROLE, rls: true, forced: true, keyed: true });
    });

    test('three openers at once derived it once, at the migrations’ version', async () => {
      const v = await admin.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
      expect(v.rows.map((r) => r.version)).toEqual(
        POSTGRES_MIGRATIONS.length ? POSTGRES_MIGRATIONS.map((_, i) => i + 1) : [],
      );
    });

    test('a connection that forgets to set the business reads nothing and writes nothing', async () => {
      const c = new pg.Client({ connectionString: appUrl, options: `-c search_path=${schema}` });
      await c.connect();
      try {
        const stored = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".bookings`);
        expect(stored.rows[0].n).toBeGreaterThan(0);
        expect((await c.query(`SELECT current_setting('${BUSINESS_SETTING}', true) AS s`)).rows[0].s).toBeNull();
        expect((await c.query('SELECT count(*)::int AS n FROM bookings')).rows[0].n).toBe(0);
        expect((await c.query(`UPDATE kv SET value = 'x'`)).rowCount).toBe(0);
        await expect(c.query(`INSERT INTO kv (key, value) VALUES ('orphan', 'x')`)).rejects.toMatchObject({
          code: expect.stringMatching(/^(42501|23502)$/),
        });
      } finally {
        await c.end();
      }
    });

    test('a keyed schema behind a migration it cannot take by itself is refused with a clear error, not used', async () => {
      const last = POSTGRES_MIGRATIONS.length;
      // As if the last migration had dropped kv.note: a column the keyed table has and the template has not.
      await admin.query(
        `DELETE FROM "${schema}".schema_migrations WHERE version = ${last}; ALTER TABLE "${schema}".kv ADD COLUMN note TEXT`,
      );
      try {
        const err = await open('biz_a').catch((e) => e);
        expect(err).toBeInstanceOf(KeyedSchemaBehind);
        expect(err.message).toContain(`at migration ${last - 1}`);
        expect(err.message).toContain('drop the column kv.note');
      } finally {
        await admin.query(
          `ALTER TABLE "${schema}".kv DROP COLUMN note; INSERT INTO "${schema}".schema_migrations VALUES (${last}, 0)`,
        );
      }
    });

    test('a later migration that adds (a table, a column, an index) reaches the keyed schema keyed; one that drops a column is refused', async () => {
      const up = schemaName('keyed_up');
      const tpl = `${up}_template`;
      await (
        await openPostgresStore({ url: appUrl, keyed: { business: 'up_a', schema: up }, onError: () => {} })
      ).close();
      const c = new pg.Client({ connectionString: appUrl });
      await c.connect();
      try {
        const next = POSTGRES_MIGRATIONS.length + 1;
        await c.query(`SET search_path = ${tpl};
          ALTER TABLE bookings ADD COLUMN note TEXT NOT NULL DEFAULT '';
          CREATE INDEX bookings_by_note ON bookings (note);
          CREATE TABLE gift_cards (id TEXT PRIMARY KEY, amount INTEGER NOT NULL, booking_id TEXT);
          INSERT INTO schema_migrations VALUES (${next}, 0)`);
        await ensureKeyedSchema(c, tpl, up, next);
        const keyed = await admin.query(
          `SELECT (SELECT count(*)::int FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'bookings' AND column_name = 'note') AS note,
             (SELECT pg_get_indexdef(to_regclass($1 || '.bookings_by_note'))) AS idx,
             (SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = to_regclass($1 || '.gift_cards') AND contype = 'p') AS pk,
             (SELECT relforcerowsecurity FROM pg_class WHERE oid = to_regclass($1 || '.gift_cards')) AS forced,
             (SELECT max(version) FROM "${up}".schema_migrations) AS version`,
          [up],
        );
        expect(keyed.rows[0]).toMatchObject({
          note: 1,
          pk: 'PRIMARY KEY (business_id, id)',
          forced: true,
          version: next,
        });
        expect(keyed.rows[0].idx).toContain('(business_id, note)');
        await c.query(
          `SET search_path = ${tpl}; ALTER TABLE kv DROP COLUMN value; INSERT INTO schema_migrations VALUES (${next + 1}, 0)`,
        );
        const err = await ensureKeyedSchema(c, tpl, up, next + 1).catch((e) => e);
        expect(err).toBeInstanceOf(KeyedSchemaBehind);
        expect(err.message).toContain('drop the column kv.value');
        expect((await admin.query(`SELECT max(version) AS v FROM "${up}".schema_migrations`)).rows[0].v).toBe(next);
      } finally {
        await c.end();
        await admin.query(`DROP SCHEMA IF EXISTS "${up}" CASCADE; DROP SCHEMA IF EXISTS "${tpl}" CASCADE`);
      }
    });

    test('the registry is not kept per business: its calls fail with a clear error', async () => {
      const a = await open('biz_a');
      try {
        await expect(a.read((tx) => tx.registry.get('reg_1'))).rejects.toThrow(/keeps no registry/);
      } finally {
        await a.close();
      }
    });
  });

  test("the businesses of a process share one pool: three stores' transactions use at most its connections, and it ends with the last store", async () => {
    const backends = async () =>
      (
        await admin.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND datname = current_database()`,
          [ROLE],
        )
      ).rows[0].n;
    await expect.poll(backends, { timeout: 5000 }).toBe(0);
    const stores = await Promise.all(
      ['pool_x', 'pool_y', 'pool_z'].map((business) =>
        openPostgresStore({ url: appUrl, keyed: { business, schema }, poolSize: 2, onError: () => {} }),
      ),
    );
    let most = 0;
    const work = stores.flatMap((s, i) =>
      [0, 1].map((j) =>
        s.transaction(async (tx) => {
          await tx.kv.set(`k${j}`, `v${i}`);
          await sleep(150);
          most = Math.max(most, await backends());
        }),
      ),
    );
    await Promise.all(work);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2);
    await stores[0].close();
    expect(await stores[1].read((tx) => tx.kv.get('k0'))).toBe('v1');
    await Promise.all(stores.slice(1).map((s) => s.close()));
    await expect.poll(backends, { timeout: 5000 }).toBe(0);
  });

  test('the businesses of a process LISTEN on one connection: each hears only its own channel, again after it is killed', async () => {
    const listening = async () =>
      (
        await admin.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE usename = $1 AND datname = current_database() AND query ~ '^(UN)?LISTEN'`,
          [ROLE],
        )
      ).rows.map((r) => r.pid);
    const stores = await Promise.all(['listen_x', 'listen_y', 'listen_z'].map(open));
    try {
      const got: string[] = [];
      for (const [i, s] of stores.entries()) {
        s.channel!.subscribe((seqs) => got.push(`${i}:${seqs.join(',')}`));
        await (s.channel as PostgresEventChannel).ready();
      }
      expect(await listening()).toHaveLength(1);
      await stores[1].channel!.publish([11]);
      await expect.poll(() => got, { timeout: 3000 }).toEqual(['1:11']);
      // The shared connection killed: every channel listens again (on one new connection) and hears its own.
      const [pid] = await listening();
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await expect
        .poll(
          async () => {
            await stores[2].channel!.publish([22]);
            return got.includes('2:22');
          },
          { timeout: 8000, interval: 200 },
        )
        .toBe(true);
      await expect
        .poll(
          async () => {
            await stores[0].channel!.publish([33]);
            return got.includes('0:33');
          },
          { timeout: 8000, interval: 200 },
        )
        .toBe(true);
      expect(got.filter((g) => !/^(1:11|2:22|0:33)$/.test(g))).toEqual([]);
      await expect.poll(listening, { timeout: 3000 }).toHaveLength(1);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  describe('isolation contract: two businesses in one keyed schema', () => {
    let a: Store;
    let b: Store;
    beforeAll(async () => {
      await admin.query(
        tables.map((t) => `DELETE FROM "${schema}".${t} WHERE business_id IN ('iso_a', 'iso_b')`).join('; '),
      );
      [a, b] = await Promise.all([open('iso_a'), open('iso_b')]);
    });
    afterAll(async () => {
      await Promise.all([a?.close(), b?.close()]);
    });

    test("B cannot read A's rows under the same ids", async () => {
      await a.transaction(async (tx) => {
        await tx.bookings.insert(booking('bkg_same'));
        await tx.holds.insert(hold('hld_same'));
        await tx.kv.set('same', 'a');
        await tx.outbox.add(outboxEvent('evt_same'));
      });
      const seen = await b.read(async (tx) => ({
        booking: await tx.bookings.get('bkg_same'),
        hold: await tx.holds.get('hld_same'),
        kv: await tx.kv.get('same'),
        recent: await tx.bookings.recent(10),
        outbox: await tx.outbox.due(NOW + 24 * 60 * MIN, 10),
        gauges: await tx.bookings.gauges(NOW),
      }));
      expect(seen).toMatchObject({ booking: null, hold: null, kv: null, recent: [], outbox: [] });
      expect(seen.gauges).toMatchObject({ bookings_by_status: {}, active_holds: 0, outbox_due: 0 });
      expect((await a.read((tx) => tx.bookings.get('bkg_same')))?.booking.id).toBe('bkg_same');
    });

    test("B's updates and deletes of A's ids change nothing of A's", async () => {
      await a.transaction((tx) => tx.claims.add([claim('bkg_upd', 'res_upd', 100, 200)]));
      await b.transaction(async (tx) => {
        const rec = booking('bkg_same');
        await tx.bookings.update({ ...rec, booking: { ...rec.booking, status: 'canceled' } });
        await tx.kv.set('same', 'b');
        await tx.claims.removeOwner('bkg_upd');
        await tx.outbox.markDispatched([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      });
      const after = await a.read(async (tx) => ({
        status: (await tx.bookings.get('bkg_same'))?.booking.status,
        kv: await tx.kv.get('same'),
        claims: (await tx.claims.active(['res_upd'], 0, 1000, NOW)).map((c) => c.owner_id),
        outbox: (await tx.outbox.due(NOW + 24 * 60 * MIN, 10)).map((e) => e.event_id),
      }));
      expect(after).toEqual({
        status: booking('bkg_same').booking.status,
        kv: 'a',
        claims: ['bkg_upd'],
        outbox: ['evt_same'],
      });
      expect(await b.read((tx) => tx.kv.get('same'))).toBe('b');
    });

    test('the same idempotency key and the same slot in both businesses do not conflict', async () => {
      await a.transaction((tx) => tx.idempotency.put(idem('scope_same', NOW + MIN, { who: 'a' })));
      await b.transaction((tx) => tx.idempotency.put(idem('scope_same', NOW + MIN, { who: 'b' })));
      expect((await a.read((tx) => tx.idempotency.get('scope_same', NOW)))?.body).toEqual({ who: 'a' });
      expect((await b.read((tx) => tx.idempotency.get('scope_same', NOW)))?.body).toEqual({ who: 'b' });
      // A firm claim of the same resource and time in each: the exclusion constraint is per business.
      await a.transaction((tx) => tx.claims.add([claim('bkg_slot_a', 'res_slot', 100, 200)]));
      await b.transaction((tx) => tx.claims.add([claim('bkg_slot_b', 'res_slot', 150, 250)]));
      expect((await a.read((tx) => tx.claims.active(['res_slot'], 0, 1000, NOW))).map((c) => c.owner_id)).toEqual([
        'bkg_slot_a',
      ]);
      // Same version counters, bumped per business: B's claim did not move A's.
      const va = await a.read((tx) => tx.claims.version(['res_slot']));
      await b.transaction((tx) => tx.claims.removeOwner('bkg_slot_b'));
      expect(await a.read((tx) => tx.claims.version(['res_slot']))).toEqual(va);
    });

    test('bookings of A and B on the same resource id at once do not wait for each other', async () => {
      const reserve = (store: Store, who: string) =>
        store.transaction(async (tx) => {
          await tx.lock(['resource:res_hot']);
          const t = Date.now();
          await sleep(300);
          await tx.claims.add([claim(`bkg_hot_${who}`, 'res_hot', 100, 200)]);
          return t;
        });
      const t0 = Date.now();
      const [ta, tb] = await Promise.all([reserve(a, 'a'), reserve(b, 'b')]);
      // Both held the lock at once: neither began after the other's 300 ms.
      expect(Math.abs(ta - tb)).toBeLessThan(250);
      expect(Date.now() - t0).toBeLessThan(550);
    });

    test("removing a business deletes its rows from every table and nothing of the other's", async () => {
      const rows = async (business: string) =>
        (
          await admin.query<{ n: number }>(
            tables
              .map((t) => `SELECT count(*)::int AS n FROM "${schema}".${t} WHERE business_id = $1`)
              .join(' UNION ALL '),
            [business],
          )
        ).rows.reduce((n, r) => n + r.n, 0);
      const before = await rows('iso_a');
      expect(await rows('iso_b')).toBeGreaterThan(0);
      const c = new pg.Client({ connectionString: appUrl });
      await c.connect();
      try {
        expect(await deleteBusinessRows(c, schema, 'iso_b')).toBeGreaterThan(0);
      } finally {
        await c.end();
      }
      expect(await rows('iso_b')).toBe(0);
      expect(await rows('iso_a')).toBe(before);
    });

    test("one business's notifications do not reach the other", async () => {
      const got: number[][] = [];
      a.channel!.subscribe((seqs) => got.push(seqs));
      await (a.channel as PostgresEventChannel).ready();
      await b.channel!.publish([1]);
      await a.channel!.publish([2]);
      await expect.poll(() => got, { timeout: 3000 }).toEqual([[2]]);
    });
  });
});
