import { parse } from '../shared/rows.js';
import type { Statement } from './statements.js';

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
