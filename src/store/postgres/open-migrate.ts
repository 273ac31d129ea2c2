/**
 * Opening a PostgreSQL store's schema: the migrations applied once under a session advisory lock,
 * and for a store keyed by business the keyed schema derived from its migrated template.
 */
import pg from 'pg';
import { ensureKeyedSchema } from './keyed-schema.js';
import { ident } from './faults.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';

const MIGRATION_LOCK = 'usp-server:migrations';

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

/**
 * Apply pending migrations under a session advisory lock: concurrent starts apply each exactly once.
 * The connection may have opened before the schema existed, so it checks where names resolve once
 * the schema is there, and it is closed afterwards rather than going back to the pool.
 */
export async function migrate(pool: pg.Pool, schema: string | undefined): Promise<void> {
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

/** Migrate `<schema>_template`, then derive the keyed schema from it once (business-keyed.ts), on a connection of their own. */
export async function migrateKeyed(
  base: pg.ClientConfig,
  schema: string,
  onError: (err: Error) => void,
): Promise<void> {
  const template = `${schema}_template`;
  const own = new pg.Pool({ ...base, options: `-c search_path=${template}`, max: 1 });
  own.on('error', onError);
  try {
    await migrate(own, template);
    const c = await own.connect();
    try {
      await ensureKeyedSchema(c, template, schema, POSTGRES_MIGRATIONS.length);
    } finally {
      c.release(true);
    }
  } finally {
    await own.end();
  }
}
