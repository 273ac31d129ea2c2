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
  private cache: Map<string, Statement> | undefined;
  /**
   * Repositories being built (repos.ts): the statements they prepare then are theirs, kept by them
   * and never looked up again, so not kept here too (about 70 entries, 2.4 KB, per hosted business).
   */
  building = 0;
  constructor(readonly db: Db) {}

  /** The texts kept for lookup (tests). */
  get kept(): number {
    return this.cache?.size ?? 0;
  }

  prepare(sql: string): Statement {
    if (this.building > 0) return lazyStatement(this.db, sql);
    this.cache ??= new Map();
    let stmt = this.cache.get(sql);
    if (!stmt) {
      const text = sharedText(sql);
      stmt = lazyStatement(this.db, text);
      this.cache.set(text, stmt);
    }
    return stmt;
  }

  /**
   * A statement a business runs when it opens or its definition changes (its definition read back,
   * cleared and versioned, its feeds and push targets set, its owner's set-up checked), not per
   * request: prepared for this call and not kept, so an idle business does not hold prepared
   * statements it will not run again (their wrappers on the heap, their programs in SQLite's memory).
   * Not for a statement a request runs (the catalog's `all` serves the services feed).
   */
  once(sql: string): Statement {
    return this.db.prepare(sql);
  }
}

/**
 * Every SQL text once per process. A repository builds some of its texts (a table's name, its
 * columns), so each store held its own copies of equal strings, about 1.5 KB per store: a deployment
 * hosting many businesses holds every loaded business's store. Texts are few (the repositories', and
 * the call-dependent ones the stores keep anyway); past `MAX_SHARED_TEXTS` a text is kept as given.
 */
const SHARED_TEXTS = new Map<string, string>();
const MAX_SHARED_TEXTS = 5_000;

function sharedText(sql: string): string {
  const known = SHARED_TEXTS.get(sql);
  if (known !== undefined) return known;
  if (SHARED_TEXTS.size < MAX_SHARED_TEXTS) SHARED_TEXTS.set(sql, sql);
  return sql;
}

/**
 * A statement prepared on its first run, not when its repository is built: a store's repositories
 * name about 170 statements on each of its two connections, and a request uses a few of them. Prepared
 * up front they cost a new store 10 to 20 ms and about 100 KB of heap, which a deployment hosting many
 * businesses paid on each business's first request (docs/SCALING.md). Once prepared, the statement is
 * kept and reused as before. A repository runs its statements with run, get, all and iterate only.
 */
function lazyStatement(db: Db, sql: string): Statement {
  return new LazyStatement(db, sharedText(sql)) as unknown as Statement;
}

/** Three fields and the class's methods: smaller than a prepared statement's wrapper, and no native statement. */
class LazyStatement {
  private stmt: Statement | undefined;
  constructor(
    private readonly db: Db,
    private readonly sql: string,
  ) {}
  private real(): Statement {
    this.stmt ??= this.db.prepare(this.sql);
    return this.stmt;
  }
  run(...args: unknown[]) {
    return this.real().run(...args);
  }
  get(...args: unknown[]) {
    return this.real().get(...args);
  }
  all(...args: unknown[]) {
    return this.real().all(...args);
  }
  iterate(...args: unknown[]) {
    return this.real().iterate(...args);
  }
}

/**
 * The connection as a repository sees it: the same connection, its `prepare` lazy (above). Other
 * members (functions, pragmas) are the connection's own.
 */
export function lazilyPreparing(db: Db): Db {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'prepare') return (sql: string) => lazyStatement(target, sql);
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
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
