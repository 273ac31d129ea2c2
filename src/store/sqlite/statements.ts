import type Database from 'better-sqlite3';
import type { Dialect } from '../shared/sql.js';

export type Db = Database.Database;
export type Statement = Database.Statement;

/**
 * The connection and its prepared statements. Statements whose text depends on the call (an IN list
 * of n resources, optional filters) are prepared once per distinct text and kept: preparing is a
 * visible share of a short request.
 */
export class Statements {
  private readonly cache = new Map<string, Statement>();
  constructor(readonly db: Db) {}

  prepare(sql: string): Statement {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.cache.set(sql, stmt);
    }
    return stmt;
  }
}

export const SQLITE_DIALECT: Dialect = {
  param: (args, value) => {
    args.push(value);
    return '?';
  },
  nullSafeEq: 'IS',
};

const PLACEHOLDERS: string[] = [];

/** `?, ?, ?` for n values (memoised: statements are looked up by their text on every call). */
export const placeholders = (n: number): string => (PLACEHOLDERS[n] ??= Array(n).fill('?').join(','));
