/**
 * The embedded store: SQLite through better-sqlite3 in WAL mode. The driver is synchronous, so
 * transactions are serialized through a promise queue: an async transaction body can await
 * between statements without another request's statements landing inside it.
 *
 * Faults of the file rather than of the statement (another process holding the write lock past
 * the busy timeout, a read-only or removed file, a full disk, an I/O error) fail the call with
 * `StoreUnavailable`; the transaction is rolled back, so nothing half-written stays behind.
 */
import Database from 'better-sqlite3';
import { mkdirSync, statSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Store, Tx } from '../port.js';
import { StoreUnavailable } from '../port.js';
import { type Checkpointer, startCheckpointer } from './checkpointer.js';
import { NEXT_DUE_SQL, dueTimes, type DueTimes } from '../shared/due.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import { buildRepos } from './repos.js';
import type { Db } from './statements.js';

export interface SqliteStoreOptions {
  /** File path, or ':memory:'. */
  path: string;
  /**
   * How long a write waits for another process's lock before the call answers service_unavailable
   * (SQLite busy_timeout, default 5000 ms). The driver is synchronous: the wait blocks this process.
   */
  busyTimeoutMs?: number;
  /**
   * Told the text of every statement either connection executes (better-sqlite3's `verbose`), for
   * tests and benchmarks that count statements; without it the driver reports nothing.
   */
  onStatement?: (sql: string) => void;
  /**
   * Log length, in frames, from which the checkpointer has the writer wait for a copy that lets the
   * log start over (checkpointer.ts; default `RESTART_FRAMES`, 16 MB at 4 KB pages). For tests.
   */
  walRestartFrames?: number;
  /** The longest a commit waits for its checkpoint (checkpointer.ts; default `CHECKPOINT_MAX_DELAY_MS`, 10 s). For tests. */
  checkpointDelayMs?: number;
}

/**
 * Page cache per connection, in KiB as SQLite's negative cache_size counts (default 2 MB). Booking
 * ids, idempotency scopes and credential hashes are random keys: with a large database every insert
 * lands on a leaf page the 2 MB cache no longer holds, and reading it back from the OS made a
 * booking cost more as bookings accumulated. No mmap: an I/O error would then be a SIGBUS, not a
 * StoreUnavailable.
 */
const CACHE_KIB = -16384;

/** SQLite result codes that mean the file, not the statement, is at fault (extended codes start with these). */
const FILE_FAULTS = [
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_READONLY',
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'SQLITE_CANTOPEN',
  'SQLITE_PROTOCOL',
];

const FAULT_REASON: Record<string, string> = {
  SQLITE_BUSY: 'the database file is locked by another process',
  SQLITE_LOCKED: 'the database file is locked',
  SQLITE_READONLY_DBMOVED: 'the database file was moved or deleted',
  SQLITE_READONLY: 'the database file is read-only',
  SQLITE_FULL: 'the disk is full',
  SQLITE_IOERR: 'an I/O error on the database file',
  SQLITE_CANTOPEN: 'the database file cannot be opened (missing directory, no permission, or a read-only file system)',
  SQLITE_PROTOCOL: 'the database file lock protocol failed',
};

/** The file-level fault behind an error, as StoreUnavailable; undefined when the statement itself failed. */
function sqliteFault(err: unknown): StoreUnavailable | undefined {
  if (err instanceof StoreUnavailable) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !FILE_FAULTS.some((f) => code === f || code.startsWith(`${f}_`))) return undefined;
  const reason = FAULT_REASON[code] ?? FAULT_REASON[FILE_FAULTS.find((f) => code.startsWith(f))!];
  return new StoreUnavailable(`${reason} (${code})`, { cause: err });
}

export function openSqliteStore(opts: SqliteStoreOptions): Store {
  const tell = opts.onStatement;
  const verbose = tell ? { verbose: (sql?: unknown) => tell(String(sql)) } : {};
  if (opts.path !== ':memory:') mkdirSync(dirname(opts.path), { recursive: true });
  let db: Db | undefined;
  try {
    db = new Database(opts.path, verbose);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
    db.pragma('foreign_keys = ON');
    // Erased personal data must not linger in freed space of the file (a buyer's erasure, spec 10.1.3).
    db.pragma('secure_delete = ON');
    db.pragma(`cache_size = ${CACHE_KIB}`);
    // A group-committed transaction after the first of its batch runs in a savepoint, whose undo copies
    // of the pages it touches (the sub-journal) spilled to a temporary file past 64 KB: a write
    // syscall per page per booking.
    db.pragma('temp_store = MEMORY');
    migrate(db);
  } catch (err) {
    db?.close();
    // A read-only, locked or full file at start: say so plainly (the process will not start).
    throw sqliteFault(err) ?? err;
  }
  let file: WatchedFile | undefined;
  if (opts.path !== ':memory:' && opts.path !== '') {
    const st = statSync(opts.path);
    file = { path: opts.path, dev: st.dev, ino: st.ino };
  }
  // Reads go through a second connection: in WAL mode it sees the last commit, whatever write
  // transaction is open on the first, so reads never wait in the write queue.
  let reader: Db | undefined;
  if (file) {
    try {
      // The writer created the file; a reader never creates one (a file deleted meanwhile stays gone).
      reader = new Database(opts.path, { fileMustExist: true, ...verbose });
      reader.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
      reader.pragma('query_only = ON');
      reader.pragma(`cache_size = ${CACHE_KIB}`);
    } catch (err) {
      reader?.close();
      db.close();
      throw sqliteFault(err) ?? err;
    }
  }
  const checkpointer = file
    ? startCheckpointer(db, file.path, {
        restartFrames: opts.walRestartFrames,
        maxDelayMs: opts.checkpointDelayMs,
      })
    : undefined;
  return new SqliteStore(db, file, reader, checkpointer);
}

/** The file the connection opened: SQLite keeps writing to it even after it is deleted or replaced. */
interface WatchedFile {
  path: string;
  dev: number;
  ino: number;
}

function migrate(db: Db): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL)');
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  const done = row.v ?? 0;
  for (let i = done; i < SQLITE_MIGRATIONS.length; i++) {
    db.transaction(() => {
      db.exec(SQLITE_MIGRATIONS[i]);
      db.prepare('INSERT INTO schema_migrations (version, applied_ms) VALUES (?, ?)').run(i + 1, Date.now());
    })();
  }
}

/** A committed-or-not answer owed to a transaction of the open batch. */
interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

class SqliteStore implements Store {
  readonly engine = 'sqlite' as const;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly tx: Tx;
  private closed = false;
  /**
   * Group commit: write transactions that run in the same turn of the event loop share one SQLite
   * transaction, each after the first inside its own savepoint, and one COMMIT at the end of the turn.
   * A caller's promise settles only after that COMMIT (so nothing is answered before it is durable); a
   * body that throws rolls back to its savepoint (the first: the transaction) and fails alone.
   * Undefined while no batch is open.
   */
  private batch: Waiter[] | undefined;

  // Prepared once: parsing BEGIN/COMMIT on every call was a visible share of short requests.
  private readonly begin: Database.Statement;
  private readonly beginRead: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly rollback: Database.Statement;
  private readonly savepoint: Database.Statement;
  private readonly release: Database.Statement;
  private readonly rollbackTo: Database.Statement;

  /** Reads on the second connection (file databases), one at a time among themselves. */
  private readQueue: Promise<unknown> = Promise.resolve();
  private readonly readTx: Tx;
  private readonly readBegin?: Database.Statement;
  private readonly readEnd?: Database.Statement;

  constructor(
    private readonly db: Db,
    private readonly file?: WatchedFile,
    private readonly reader?: Db,
    private readonly checkpointer?: Checkpointer,
  ) {
    this.tx = buildRepos(db);
    this.readTx = reader ? buildRepos(reader) : this.tx;
    if (reader) {
      this.readBegin = reader.prepare('BEGIN');
      this.readEnd = reader.prepare('ROLLBACK');
    }
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.beginRead = db.prepare('BEGIN');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.savepoint = db.prepare('SAVEPOINT usp_tx');
    this.release = db.prepare('RELEASE usp_tx');
    this.rollbackTo = db.prepare('ROLLBACK TO usp_tx');
  }

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    let committed!: Promise<void>;
    const body = this.serialize(async () => {
      try {
        // The first body of a batch needs no savepoint: undoing it is undoing the whole transaction,
        // which holds nothing else yet. Two statements fewer per transaction that commits alone.
        const first = !this.batch;
        if (first) this.openBatch();
        const batch = this.batch!;
        if (!first) this.savepoint.run();
        let out: T;
        try {
          out = await fn(this.tx);
          if (!first) this.release.run();
        } catch (err) {
          // Its savepoint (or, first in the batch, the transaction) is still open: undo it, or the
          // batch's COMMIT would keep what it wrote.
          if (first) this.undoAlone();
          else this.undo(err);
          throw err;
        }
        committed = new Promise<void>((resolve, reject) => batch.push({ resolve, reject }));
        return out;
      } catch (err) {
        throw sqliteFault(err) ?? err;
      }
    });
    return body.then(async (out) => {
      await committed;
      return out;
    });
  }

  /** BEGIN IMMEDIATE (the write lock) and schedule the COMMIT for the end of this turn of the event loop. */
  private openBatch(): void {
    this.checkFile();
    // A copy that lets the write-ahead log start over, when one was asked for (checkpointer.ts).
    this.checkpointer?.beforeWrite();
    this.begin.run();
    this.batch = [];
    // Behind whatever is queued now: bodies that arrived in this turn join the batch first.
    setImmediate(() => void this.serialize(async () => this.flush()).catch(() => undefined));
  }

  /** Commit the open batch and settle its callers; on failure none of them was committed. */
  private flush(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    try {
      this.commit.run();
      this.checkpointer?.wrote();
    } catch (err) {
      this.abort();
      const fault = sqliteFault(err) ?? err;
      for (const w of batch) w.reject(fault);
      return;
    }
    for (const w of batch) w.resolve();
  }

  /**
   * A body threw: undo its statements. Normally that is its savepoint; when SQLite rolled the whole
   * transaction back itself (a full disk, an I/O error), the batch's earlier bodies are lost too and
   * their callers are told so.
   */
  private undo(err: unknown): void {
    if (this.db.inTransaction) {
      try {
        this.rollbackTo.run();
        this.release.run();
        return;
      } catch {
        this.abort();
      }
    }
    const batch = this.batch;
    this.batch = undefined;
    const fault =
      sqliteFault(err) ?? new StoreUnavailable('the transaction was rolled back by the database', { cause: err });
    for (const w of batch ?? []) w.reject(fault);
  }

  /**
   * The batch's first body threw: roll the transaction back and close the batch (it has no caller
   * yet); the next body opens another. The COMMIT already scheduled finds no batch, or commits that
   * next one early, which is as safe as committing it later.
   */
  private undoAlone(): void {
    this.abort();
    this.batch = undefined;
  }

  private definitionVersionStmt?: Database.Statement;

  async definitionVersion(): Promise<number> {
    return this.definitionVersionNow();
  }

  definitionVersionNow(): number {
    // One prepared statement on the read connection (the last commit), outside every queue: microseconds.
    try {
      this.definitionVersionStmt ??= (this.reader ?? this.db).prepare(
        'SELECT version FROM definition_version WHERE one = 1',
      );
      return (this.definitionVersionStmt.get() as { version: number } | undefined)?.version ?? 0;
    } catch (err) {
      throw sqliteFault(err) ?? err;
    }
  }

  private nextDueStmt?: Database.Statement;
  private dataVersionStmt?: Database.Statement;
  private lastDue?: { version: number; due: DueTimes };

  /**
   * Asked of every loaded business every few seconds by the process's work hub: a file's answer is
   * given again from memory while the reader's `data_version` says no other connection (this store's
   * writer, another process) committed since. Seven indexed reads otherwise.
   */
  async nextDue(): Promise<DueTimes> {
    try {
      const conn = this.reader ?? this.db;
      this.nextDueStmt ??= conn.prepare(NEXT_DUE_SQL);
      // An in-memory store has one connection, whose own commits leave its data_version as it was.
      if (!this.reader) return dueTimes(this.nextDueStmt.get() as Parameters<typeof dueTimes>[0]);
      this.dataVersionStmt ??= this.reader.prepare('PRAGMA data_version').pluck();
      const version = this.dataVersionStmt.get() as number;
      if (this.lastDue?.version !== version)
        this.lastDue = { version, due: dueTimes(this.nextDueStmt.get() as Parameters<typeof dueTimes>[0]) };
      return { ...this.lastDue.due };
    } catch (err) {
      throw sqliteFault(err) ?? err;
    }
  }

  read<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.reader) return this.readOnReader(fn);
    return this.serialize(async () => {
      // A read sees committed data only: commit the open batch first.
      this.flush();
      try {
        this.checkFile();
        this.beginRead.run();
        try {
          return await fn(this.tx);
        } finally {
          this.abort();
        }
      } catch (err) {
        throw sqliteFault(err) ?? err;
      }
    });
  }

  /** A read on the second connection: a snapshot of what is committed, beside any open write batch. */
  private readOnReader<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const reader = this.reader!;
    const job = async () => {
      try {
        this.checkFile();
        this.readBegin!.run();
        try {
          return await fn(this.readTx);
        } finally {
          try {
            if (reader.inTransaction) this.readEnd!.run();
          } catch {
            /* nothing to undo in a read */
          }
        }
      } catch (err) {
        throw sqliteFault(err) ?? err;
      }
    };
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const run = this.readQueue.then(job, job);
    this.readQueue = run.catch(() => undefined);
    return run;
  }

  /** Readiness: the file is still where we opened it, its schema is this build's, and a write lock can be taken (then released). */
  ping(): Promise<void> {
    if (this.file) {
      // A write of a few bytes may still fit in a page the file already has: look at the disk too.
      const fs = statfsSync(dirname(this.file.path));
      if (fs.bavail * fs.bsize < MIN_FREE_BYTES)
        return Promise.reject(new StoreUnavailable('the disk is full (SQLITE_FULL)'));
    }
    return this.transaction(async () => {
      // A write proves the file takes writes (not read-only, not moved); it is rolled back below.
      this.db.prepare("INSERT INTO main.kv (key, value) VALUES ('usp:ping', '') ON CONFLICT (key) DO NOTHING").run();
      const applied =
        (this.db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0;
      if (applied < SQLITE_MIGRATIONS.length)
        throw new StoreUnavailable(`migrations not applied (schema at ${applied} of ${SQLITE_MIGRATIONS.length})`);
      throw PING_DONE;
    }).catch((err) => {
      if (err !== PING_DONE) throw err;
    });
  }

  /**
   * The path still names the file we opened. A deleted or replaced file is not noticed by SQLite:
   * writes would go on into a file nobody will ever open again (lost at the next start), and reads
   * would not see a restored copy. A stat per transaction costs a few microseconds.
   */
  private checkFile(): void {
    if (!this.file) return;
    let st;
    try {
      st = statSync(this.file.path);
    } catch {
      throw new StoreUnavailable(`the database file ${this.file.path} was moved or deleted`);
    }
    if (st.ino !== this.file.ino || st.dev !== this.file.dev)
      throw new StoreUnavailable(`the database file ${this.file.path} was replaced by another file`);
  }

  /** Roll back whatever is open; a failing rollback (the disk went away) must not hide the first error. */
  private abort(): void {
    try {
      if (this.db.inTransaction) this.rollback.run();
    } catch {
      /* SQLite rolled back itself, or cannot: the transaction did not commit either way */
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.catch(() => undefined);
    await this.readQueue.catch(() => undefined);
    this.flush();
    await this.checkpointer?.stop();
    this.reader?.close();
    this.db.close();
  }

  private serialize<T>(job: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const run = this.queue.then(job, job);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

const PING_DONE = Symbol('ping done');
/** Readiness fails below this much free space next to the database file. */
const MIN_FREE_BYTES = 256 * 1024;
