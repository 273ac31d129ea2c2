import { type DocumentRepo, type DocumentTable, parse } from '../shared/rows.js';
import type { PgSession } from './session.js';

/** The ids a SELECT of `id` finds. */
export async function pgIds(s: PgSession, text: string, values: unknown[]): Promise<string[]> {
  return (await s.rows<{ id: string }>(text, values)).map((r) => r.id);
}

/**
 * get (locked FOR UPDATE in a write transaction), insert and update of a document table. A row this
 * transaction wrote, or read and locked, is read back from memory (the same JSON text, parsed afresh) as long as
 * nothing else may have changed the table since: the row is ours and locked already, so the
 * statement would return exactly that.
 */
export function pgDocumentRepo<T>(s: PgSession, t: DocumentTable<T>): DocumentRepo<T> {
  const insert = `INSERT INTO ${t.table} (${t.columns.join(', ')}) VALUES (${t.columns.map((_, i) => `$${i + 1}`).join(', ')})`;
  const update = `UPDATE ${t.table} SET ${t.updated.map((c, i) => `${c} = $${i + 1}`).join(', ')} WHERE id = $${t.updated.length + 1}`;
  const inserted = t.columns.indexOf('data');
  const updated = t.updated.indexOf('data');
  const written = new Map<string, { data: string; at: number }>();
  const remember = (id: unknown, data: unknown): void => {
    if (typeof id === 'string' && typeof data === 'string') written.set(id, { data, at: s.changes(t.table) });
  };
  return {
    async get(id) {
      const mine = written.get(id);
      if (mine && mine.at === s.changes(t.table)) return parse<T>(mine.data);
      const r = await s.rows<{ data: string }>(`SELECT data FROM ${t.table} WHERE id = $1${s.forUpdate}`, [id]);
      if (r.length === 0) return null;
      // Locked until commit in a write transaction: only this transaction can change it now.
      if (s.forUpdate) remember(id, r[0].data);
      return parse<T>(r[0].data);
    },
    async insert(rec) {
      const values = t.values(rec);
      await s.write(insert, values);
      remember(values[0], values[inserted]);
    },
    async update(rec) {
      const values = t.updateValues(rec);
      // Only a row known to exist still (read or written here, nothing since): an update of a
      // missing row changes nothing.
      const id = values[values.length - 1] as string;
      const known = written.get(id)?.at === s.changes(t.table);
      await s.write(update, values);
      if (known) remember(id, values[updated]);
      else written.delete(id);
    },
  };
}
