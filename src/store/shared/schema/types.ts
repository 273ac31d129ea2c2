/**
 * The schema is written once for both engines: each table's DDL is a function of the engine's
 * spelling of the few column types that differ. SQLite's spellings are the ones its migrations have
 * always used (an `INTEGER PRIMARY KEY` is the rowid, AUTOINCREMENT never reuses a key), so a table
 * rendered for SQLite is the table existing databases already hold; the same holds for PostgreSQL.
 */
export interface SqlTypes {
  readonly engine: 'postgres' | 'sqlite';
  /** 64-bit integers: epoch milliseconds, versions, references to generated keys. */
  readonly int: 'BIGINT' | 'INTEGER';
  /** A flag, and its false default. */
  readonly flag: 'BOOLEAN' | 'INTEGER';
  readonly no: 'FALSE' | '0';
  /** Coordinates. */
  readonly real: 'DOUBLE PRECISION' | 'REAL';
  /** Fractional milliseconds (SQLite's INTEGER affinity keeps a fraction as a REAL value). */
  readonly fraction: 'DOUBLE PRECISION' | 'INTEGER';
  /** Text ordered and paginated on: bytewise on both engines (SQLite's default, "C" on PostgreSQL). */
  readonly sortedText: 'TEXT COLLATE "C"' | 'TEXT';
  /** A generated key never handed out twice, even after the newest row is deleted. */
  readonly serialKey: 'BIGSERIAL PRIMARY KEY' | 'INTEGER PRIMARY KEY AUTOINCREMENT';
  /** A generated key (SQLite's rowid itself). */
  readonly rowKey: 'BIGSERIAL PRIMARY KEY' | 'INTEGER PRIMARY KEY';
  /** A sequence column: drawn by PostgreSQL, filled by the writer on SQLite. */
  readonly serial: 'BIGSERIAL' | 'INTEGER';
  /** Appended to tables keyed by their primary key alone (SQLite clustering; nothing on PostgreSQL). */
  readonly withoutRowid: '' | ' WITHOUT ROWID';
}

export const POSTGRES_TYPES: SqlTypes = {
  engine: 'postgres',
  int: 'BIGINT',
  flag: 'BOOLEAN',
  no: 'FALSE',
  real: 'DOUBLE PRECISION',
  fraction: 'DOUBLE PRECISION',
  sortedText: 'TEXT COLLATE "C"',
  serialKey: 'BIGSERIAL PRIMARY KEY',
  rowKey: 'BIGSERIAL PRIMARY KEY',
  serial: 'BIGSERIAL',
  withoutRowid: '',
};

export const SQLITE_TYPES: SqlTypes = {
  engine: 'sqlite',
  int: 'INTEGER',
  flag: 'INTEGER',
  no: '0',
  real: 'REAL',
  fraction: 'INTEGER',
  sortedText: 'TEXT',
  serialKey: 'INTEGER PRIMARY KEY AUTOINCREMENT',
  rowKey: 'INTEGER PRIMARY KEY',
  serial: 'INTEGER',
  withoutRowid: ' WITHOUT ROWID',
};

/** `IF NOT EXISTS ` where a migration was written to be re-runnable, or nothing. */
export type IfNew = '' | 'IF NOT EXISTS ';
