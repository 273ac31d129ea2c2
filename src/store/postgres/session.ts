import type pg from 'pg';
import { type DocumentRepo, type DocumentTable, parse } from '../shared/rows.js';
import type { Dialect } from '../shared/sql.js';
import { ClaimConflict, pgCode } from './faults.js';

export type Mode = 'write' | 'read';

/**
 * One transaction's connection as the repositories use it. The connection is taken at the first
 * statement (a read answered from memory then needs none).
 */
export interface PgSession {
  query<R extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  rows<R extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<R[]>;
  /** The JSON document of the one row a keyed SELECT of `data` finds, or null. */
  document<T>(text: string, values: unknown[]): Promise<T | null>;
  /** The JSON documents of the rows a SELECT of `data` finds. */
  documents<T>(text: string, values?: unknown[]): Promise<T[]>;
  /** Keyed reads in a write transaction lock the row until commit (read-then-write stays serial): ` FOR UPDATE` or ''. */
  readonly forUpdate: string;
  /** A transaction-scoped advisory lock on a key (write transactions only). */
  lockKey(key: string): Promise<void>;
}

export const PG_DIALECT: Dialect = {
  param: (args, value) => `$${args.push(value)}`,
  nullSafeEq: 'IS NOT DISTINCT FROM',
};

export function pgSession(connection: () => Promise<pg.PoolClient>, mode: Mode): PgSession {
  const query = async <R extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> => {
    const client = await connection();
    try {
      return await client.query<R>(text, values);
    } catch (err) {
      if (pgCode(err) === '23P01') throw new ClaimConflict((err as { detail?: string }).detail, { cause: err });
      throw err;
    }
  };
  const rows = async <R extends pg.QueryResultRow = any>(text: string, values?: unknown[]) => (await query<R>(text, values)).rows;
  return {
    query,
    rows,
    async document<T>(text: string, values: unknown[]) {
      const r = await rows<{ data: string }>(text, values);
      return r.length > 0 ? parse<T>(r[0].data) : null;
    },
    async documents<T>(text: string, values?: unknown[]) {
      return (await rows<{ data: string }>(text, values)).map((r) => parse<T>(r.data));
    },
    forUpdate: mode === 'write' ? ' FOR UPDATE' : '',
    async lockKey(key) {
      if (mode === 'write') await query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
    },
  };
}

/** The ids a SELECT of `id` finds. */
export async function pgIds(s: PgSession, text: string, values: unknown[]): Promise<string[]> {
  return (await s.rows<{ id: string }>(text, values)).map((r) => r.id);
}

/** get (locked FOR UPDATE in a write transaction), insert and update of a document table. */
export function pgDocumentRepo<T>(s: PgSession, t: DocumentTable<T>): DocumentRepo<T> {
  const insert = `INSERT INTO ${t.table} (${t.columns.join(', ')}) VALUES (${t.columns.map((_, i) => `$${i + 1}`).join(', ')})`;
  const update = `UPDATE ${t.table} SET ${t.updated.map((c, i) => `${c} = $${i + 1}`).join(', ')} WHERE id = $${t.updated.length + 1}`;
  return {
    get(id) {
      return s.document<T>(`SELECT data FROM ${t.table} WHERE id = $1${s.forUpdate}`, [id]);
    },
    async insert(rec) {
      await s.query(insert, t.values(rec));
    },
    async update(rec) {
      await s.query(update, t.updateValues(rec));
    },
  };
}
