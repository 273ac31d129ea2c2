import { type DocumentRepo, type DocumentTable, parse } from '../shared/rows.js';
import { placeholders, type Statement, type Statements } from './statements.js';

/** The JSON document of the one row a keyed SELECT of `data` finds, or null. */
export function oneDocument<T>(stmt: Statement, ...args: unknown[]): T | null {
  const row = stmt.get(...args) as { data: string } | undefined;
  return row ? parse<T>(row.data) : null;
}

/** The JSON documents of the rows a SELECT of `data` finds. */
export function documents<T>(stmt: Statement, ...args: unknown[]): T[] {
  return (stmt.all(...args) as Array<{ data: string }>).map((r) => parse<T>(r.data));
}

/** The ids a SELECT of `id` finds. */
export function ids(stmt: Statement, ...args: unknown[]): string[] {
  return (stmt.all(...args) as Array<{ id: string }>).map((r) => r.id);
}

/** The get, insert and update statements of a document table. */
export function documentTexts<T>(t: DocumentTable<T>): { get: string; insert: string; update: string } {
  return {
    get: `SELECT data FROM ${t.table} WHERE id = ?`,
    insert: `INSERT INTO ${t.table} (${t.columns.join(', ')}) VALUES (${placeholders(t.columns.length)})`,
    update: `UPDATE ${t.table} SET ${t.updated.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`,
  };
}

/** get, insert and update of a document table, prepared once. */
export function sqliteDocumentRepo<T>(s: Statements, t: DocumentTable<T>): DocumentRepo<T> {
  const texts = documentTexts(t);
  const get = s.prepare(texts.get);
  const insert = s.prepare(texts.insert);
  const update = s.prepare(texts.update);
  return {
    async get(id) {
      return oneDocument<T>(get, id);
    },
    async insert(rec) {
      insert.run(...t.values(rec));
    },
    async update(rec) {
      update.run(...t.updateValues(rec));
    },
  };
}
