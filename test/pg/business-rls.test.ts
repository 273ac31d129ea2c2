/**
 * Many businesses in one schema, isolated at the SQL level (src/store/postgres/business-keyed.ts):
 * tables keyed by business under row-level security forced on their owner, the business set per
 * transaction. The application's role owns the tables and is neither superuser nor BYPASSRLS; the
 * pool has one connection, so every transaction runs on the connection the previous one used.
 * Skipped, with the reason in the title, when no PostgreSQL URL is configured.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BUSINESS_SETTING, keyedSchemaSql, setBusiness } from '../../src/store/postgres/business-keyed.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { PG_URL, adminClient, noteSkipped, schemaName } from './helpers.js';

const ROLE = 'usp_business_rls_app';
const tpl = schemaName('rls_tpl');
const app = schemaName('rls_app');

const suite = PG_URL ? describe : describe.skip;

suite(
  PG_URL
    ? 'one schema for many businesses: row-level security forced, business per transaction'
    : noteSkipped('business RLS'),
  () => {
    let admin: pg.Client;
    let pool: pg.Pool;

    /** One transaction on the pool's only connection, as `businessId` (or as nobody when undefined). */
    async function tx<T>(
      businessId: string | undefined,
      fn: (c: pg.PoolClient) => Promise<T>,
    ): Promise<{ pid: number; result: T }> {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        if (businessId !== undefined) await setBusiness(c, businessId);
        const result = await fn(c);
        const pid = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        await c.query('COMMIT');
        return { pid, result };
      } catch (err) {
        await c.query('ROLLBACK');
        throw err;
      } finally {
        c.release();
      }
    }

    const hold = (c: pg.PoolClient, id: string) =>
      c.query(
        `INSERT INTO holds (id, service_id, status, principal, expires_at_ms, data) VALUES ($1, 'svc', 'active', 'p', 1, '{}')`,
        [id],
      );

    beforeAll(async () => {
      admin = await adminClient();
      await admin.query(`DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${ROLE}') THEN CREATE ROLE ${ROLE} NOLOGIN NOSUPERUSER NOBYPASSRLS; END IF;
    END $$`);
      await admin.query('CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public');
      await admin.query('CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public');
      await admin.query(`CREATE SCHEMA ${tpl} AUTHORIZATION ${ROLE}; CREATE SCHEMA ${app} AUTHORIZATION ${ROLE}`);
      // The tables are created by the application's role, so it owns them: FORCE is what binds it.
      pool = new pg.Pool({ connectionString: PG_URL, max: 1, options: `-c search_path=${app}` });
      pool.on('connect', (c) => {
        c.query(`SET ROLE ${ROLE}`).catch(() => undefined);
      });
      const c = await pool.connect();
      try {
        await c.query(`SET search_path = ${tpl}`);
        for (const m of POSTGRES_MIGRATIONS) await c.query(m);
        await c.query(`SET search_path = ${app}`);
        const sql = await keyedSchemaSql(c, tpl, app);
        await c.query(`BEGIN; ${sql} COMMIT;`);
      } finally {
        c.release();
      }
      await tx('biz-a', (c) => hold(c, 'hold-a'));
      await tx('biz-b', (c) => hold(c, 'hold-b'));
    });

    afterAll(async () => {
      await pool?.end();
      if (admin) {
        await admin.query(`DROP SCHEMA IF EXISTS ${app} CASCADE; DROP SCHEMA IF EXISTS ${tpl} CASCADE`);
        await admin.end();
      }
    });

    test('the application role owns every keyed table, and each has row-level security enabled and forced', async () => {
      const rows = (
        await admin.query<{ relname: string; owner: string; rls: boolean; forced: boolean }>(
          `SELECT c.relname, pg_get_userbyid(c.relowner) AS owner, c.relrowsecurity AS rls, c.relforcerowsecurity AS forced
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
          [app],
        )
      ).rows;
      expect(rows.length).toBeGreaterThan(30);
      for (const r of rows) expect(r, r.relname).toMatchObject({ owner: ROLE, rls: true, forced: true });
    });

    test("business A, on the connection business B used last, reads none of B's rows and cannot change them", async () => {
      const b = await tx('biz-b', async (c) => (await c.query('SELECT id FROM holds')).rows.map((r) => r.id));
      expect(b.result).toEqual(['hold-b']);
      const a = await tx('biz-a', async (c) => ({
        all: (await c.query('SELECT id FROM holds')).rows.map((r) => r.id),
        byId: (await c.query(`SELECT id FROM holds WHERE id = 'hold-b'`)).rowCount,
        updated: (await c.query(`UPDATE holds SET status = 'released' WHERE id = 'hold-b'`)).rowCount,
        deleted: (await c.query(`DELETE FROM holds WHERE id = 'hold-b'`)).rowCount,
      }));
      expect(a.pid).toBe(b.pid);
      expect(a.result).toEqual({ all: ['hold-a'], byId: 0, updated: 0, deleted: 0 });
      const stored = await admin.query(`SELECT business_id, status FROM ${app}.holds WHERE id = 'hold-b'`);
      expect(stored.rows).toEqual([{ business_id: 'biz-b', status: 'active' }]);
    });

    test('business A cannot write a row for business B, nor move one of its own rows to B', async () => {
      const insert = tx('biz-a', (c) =>
        c.query(
          `INSERT INTO holds (business_id, id, service_id, status, principal, expires_at_ms, data) VALUES ('biz-b', 'planted', 's', 'active', 'p', 1, '{}')`,
        ),
      );
      await expect(insert).rejects.toMatchObject({ code: '42501' });
      const move = tx('biz-a', (c) => c.query(`UPDATE holds SET business_id = 'biz-b' WHERE id = 'hold-a'`));
      await expect(move).rejects.toMatchObject({ code: '42501' });
      const stored = await admin.query(`SELECT business_id, id FROM ${app}.holds ORDER BY id`);
      expect(stored.rows).toEqual([
        { business_id: 'biz-a', id: 'hold-a' },
        { business_id: 'biz-b', id: 'hold-b' },
      ]);
    });

    test('the business does not outlive its transaction: the next one on the connection, set for nobody, reads and writes nothing', async () => {
      const b = await tx('biz-b', async (c) => (await c.query('SELECT count(*)::int AS n FROM holds')).rows[0].n);
      expect(b.result).toBe(1);
      const none = await tx(undefined, async (c) => ({
        setting: (await c.query(`SELECT current_setting('${BUSINESS_SETTING}', true) AS s`)).rows[0].s,
        holds: (await c.query('SELECT count(*)::int AS n FROM holds')).rows[0].n,
        updated: (await c.query(`UPDATE holds SET status = 'released'`)).rowCount,
      }));
      expect(none.pid).toBe(b.pid);
      expect(none.result).toEqual({ setting: '', holds: 0, updated: 0 });
      // Unset, the key defaults to nothing: the write is refused (by the policy, before the NOT NULL
      // is checked), not filed under an empty business.
      await expect(tx(undefined, (c) => hold(c, 'orphan'))).rejects.toMatchObject({
        code: expect.stringMatching(/^(42501|23502)$/),
      });
      await expect(
        tx(undefined, (c) =>
          c.query(
            `INSERT INTO holds (business_id, id, service_id, status, principal, expires_at_ms, data) VALUES ('', 'empty', 's', 'active', 'p', 1, '{}')`,
          ),
        ),
      ).rejects.toMatchObject({ code: expect.stringMatching(/^(42501|23514)$/) });
      const stored = await admin.query(`SELECT count(*)::int AS n FROM ${app}.holds WHERE id IN ('orphan', 'empty')`);
      expect(stored.rows[0].n).toBe(0);
    });

    test('the same id may exist in two businesses: keys lead with the business', async () => {
      await tx('biz-a', (c) => hold(c, 'same-id'));
      await tx('biz-b', (c) => hold(c, 'same-id'));
      await expect(tx('biz-a', (c) => hold(c, 'same-id'))).rejects.toMatchObject({ code: '23505' });
      const a = await tx(
        'biz-a',
        async (c) => (await c.query(`SELECT business_id FROM holds WHERE id = 'same-id'`)).rows,
      );
      expect(a.result).toEqual([{ business_id: 'biz-a' }]);
    });
  },
);
