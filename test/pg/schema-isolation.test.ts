/**
 * A store opened on a schema reads and writes that schema and nothing else. In a full test run one
 * of three `serve --db ...?schema=X` processes once kept a connection that resolved names in
 * `public` (search_path was `X,public`): it migrated public, sold the same slot there, and so did
 * the other two in X. Whatever makes a name miss in X (the schema or a table missing when the
 * connection resolves it), the store must fail, never fall through to another schema.
 *
 * These tests need a `public` that holds the server's tables, which the shared test database must
 * not have, so they work in a database of their own, created here and dropped after.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import pg from 'pg';
import { WrongSchema, openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { Store } from '../../src/store/index.js';
import { PG_URL, noteSkipped } from './helpers.js';

if (!PG_URL) {
  describe.skip(noteSkipped('schema isolation of the PostgreSQL store'), () => {
    test('a store on a schema never touches public', () => {});
  });
} else {
  describe('a store opened on a schema never reads or writes another schema, even when public holds the tables', () => {
    const dbName = `usp_schema_iso_${process.pid}_${randomBytes(3).toString('hex')}`;
    const dbUrl = (() => {
      const u = new URL(PG_URL as string);
      u.pathname = `/${dbName}`;
      return u.toString();
    })();
    const withSchema = (schema: string) => `${dbUrl}${dbUrl.includes('?') ? '&' : '?'}schema=${schema}`;
    let admin: pg.Client;
    const publicKv = async () =>
      (await admin.query<{ key: string; value: string }>('SELECT key, value FROM public.kv ORDER BY key')).rows.map(
        (r) => `${r.key}=${r.value}`,
      );

    beforeAll(async () => {
      const root = new pg.Client({ connectionString: PG_URL });
      await root.connect();
      try {
        await root.query(`CREATE DATABASE ${dbName}`);
      } finally {
        await root.end();
      }
      admin = new pg.Client({ connectionString: dbUrl });
      await admin.connect();
      // What an earlier leak leaves behind: the server's tables in public, with data in them.
      const inPublic = await openPostgresStore({ url: dbUrl, onError: () => {} });
      await inPublic.transaction((tx) => tx.kv.set('marker', 'public'));
      await inPublic.close();
      expect(await publicKv()).toEqual(['marker=public']);
    }, 30_000);

    afterAll(async () => {
      await admin?.end();
      const root = new pg.Client({ connectionString: PG_URL });
      await root.connect();
      try {
        await root.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      } finally {
        await root.end();
      }
    }, 30_000);

    test('a fresh schema is migrated in that schema, not in public, while public already has the tables', async () => {
      const store = await openPostgresStore({ url: withSchema('iso_fresh'), onError: () => {} });
      try {
        await store.transaction((tx) => tx.kv.set('k', 'fresh'));
        const v = await admin.query('SELECT version FROM iso_fresh.schema_migrations ORDER BY version');
        expect(v.rows.length).toBeGreaterThan(0);
        expect((await admin.query(`SELECT value FROM iso_fresh.kv WHERE key = 'k'`)).rows).toEqual([
          { value: 'fresh' },
        ]);
        expect(await publicKv()).toEqual(['marker=public']);
      } finally {
        await store.close();
      }
    });

    test('a table missing from the schema is an error, not public’s table of that name', async () => {
      const store = await openPostgresStore({ url: withSchema('iso_table'), onError: () => {} });
      try {
        await admin.query('DROP TABLE iso_table.kv');
        await expect(store.transaction((tx) => tx.kv.get('marker'))).rejects.toThrow(/kv/);
        await expect(store.transaction((tx) => tx.kv.set('leaked', 'yes'))).rejects.toThrow(/kv/);
        expect(await publicKv()).toEqual(['marker=public']);
      } finally {
        await store.close();
      }
    });

    test('a connection that resolves names outside the schema is refused with WrongSchema and reported', async () => {
      const errors: Error[] = [];
      const store: Store = await openPostgresStore({ url: withSchema('iso_gone'), onError: (e) => errors.push(e) });
      try {
        await admin.query('DROP SCHEMA iso_gone CASCADE');
        // Four transactions at once: more than the idle connections, so new ones are opened.
        const results = await Promise.allSettled(
          [0, 1, 2, 3].map((i) => store.transaction((tx) => tx.kv.set(`leaked${i}`, 'yes'))),
        );
        expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
        const reasons = results.map((r) => (r as PromiseRejectedResult).reason);
        expect(reasons.some((e) => e instanceof WrongSchema)).toBe(true);
        expect(errors.some((e) => e instanceof WrongSchema && e.expected === 'iso_gone' && e.actual === null)).toBe(
          true,
        );
        expect(await publicKv()).toEqual(['marker=public']);
      } finally {
        await store.close();
      }
    });
  });
}
