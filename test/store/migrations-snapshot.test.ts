/**
 * The schema is written once for both engines and rendered per engine. Migrations are recorded by
 * their position only, so a database migrated by an older build trusts that migration N still means
 * what it meant: every rendered migration must be, statement for statement, the SQL that build ran.
 * The fixture is the migration lists as main produced them before the schema was shared.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { adminClient, dropSchema, noteSkipped, PG_URL, schemaName, urlWithSchema } from '../pg/helpers.js';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/migrations-main.json', import.meta.url), 'utf8')) as {
  postgres: string[];
  sqlite: string[];
};

/** SQL as the engine reads it: comments dropped, whitespace collapsed (none of it is inside a literal). */
function normalize(sql: string): string {
  return sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/\s*([(),;])\s*/g, '$1')
    .trim();
}

describe('migrations rendered from the shared schema', () => {
  for (const [engine, now, before] of [
    ['postgres', POSTGRES_MIGRATIONS, fixture.postgres],
    ['sqlite', SQLITE_MIGRATIONS, fixture.sqlite],
  ] as const) {
    it(`${engine}: the list has the same migrations in the same positions`, () => {
      expect(now.length).toBe(before.length);
    });
    before.forEach((sql, i) => {
      it(`${engine}: migration ${i + 1} runs the statements an existing database already ran`, () => {
        expect(normalize(now[i]!)).toBe(normalize(sql));
      });
    });
  }

  it('sqlite: a database migrated by the old statements opens, and a half-migrated one finishes migrating', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usp-migrations-'));
    for (const applied of [fixture.sqlite.length, fixture.sqlite.length - 4]) {
      const path = join(dir, `old-${applied}.db`);
      const db = new Database(path);
      db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL)');
      fixture.sqlite.slice(0, applied).forEach((sql, i) => {
        db.exec(sql);
        db.prepare('INSERT INTO schema_migrations (version, applied_ms) VALUES (?, 0)').run(i + 1);
      });
      db.close();
      const store = openSqliteStore({ path });
      await store.ping();
      await store.close();
      const reopened = new Database(path, { readonly: true });
      const versions = reopened.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as {
        version: number;
      }[];
      reopened.close();
      expect(versions.map((v) => v.version)).toEqual(SQLITE_MIGRATIONS.map((_, i) => i + 1));
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(!PG_URL)(
    PG_URL
      ? 'postgres: a schema half-migrated by the old statements finishes migrating and opens'
      : noteSkipped('postgres migrations'),
    async () => {
      const schema = schemaName('mig_snapshot');
      const applied = fixture.postgres.length - 4;
      const c = await adminClient(schema);
      try {
        await c.query(`CREATE SCHEMA "${schema}"`);
        await c.query('CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public');
        await c.query('CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public');
        await c.query('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_ms BIGINT NOT NULL)');
        for (const [i, sql] of fixture.postgres.slice(0, applied).entries()) {
          await c.query(sql);
          await c.query('INSERT INTO schema_migrations (version, applied_ms) VALUES ($1, 0)', [i + 1]);
        }
        const store = await openPostgresStore({ url: urlWithSchema(schema) });
        await store.ping();
        await store.close();
        const versions = await c.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
        expect(versions.rows.map((v) => v.version)).toEqual(POSTGRES_MIGRATIONS.map((_, i) => i + 1));
      } finally {
        await c.end();
        await dropSchema(schema);
      }
    },
  );
});
