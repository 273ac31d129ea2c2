import pg from 'pg';
import { parse } from '../shared/rows.js';
import { settleAll } from '../shared/settle-all.js';
import type { Dialect } from '../shared/sql.js';
import type { SessionKeying } from './business-keyed.js';
import { ClaimConflict, connectionFault, pgCode } from './faults.js';
import { inlined, typedArrays } from './literals.js';

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
  /**
   * A transaction-scoped advisory lock on a key (write transactions only), sent with the next
   * statement: for a repository that reads right after it (the read then waits for the lock, in the
   * same round trip). `lock` is the same, sent at once: resolved once the lock is granted.
   */
  lockKey(key: string): Promise<void>;
  lock(key: string): Promise<void>;
  /**
   * A write whose result nobody reads (an INSERT or UPDATE without RETURNING): in a write
   * transaction it is held and sent in the round trip of the next statement, or before COMMIT, with
   * the writes held beside it in one statement (data-modifying WITH). Every other statement sends
   * what is held first, so each read still sees every write before it; a write to a table already
   * held sends the held ones first (one statement never changes a row twice, nor misses a row a
   * sibling wrote), except that rows of the same plain INSERT join its VALUES list, in order. Its error, if any, is thrown where the batch is sent, inside the transaction.
   */
  write(text: string, values: unknown[]): Promise<void>;
  /** Send the held writes. */
  flush(): Promise<void>;
  /**
   * Run `fns` side by side, their statements batched: a statement of one waits until every other has
   * issued one too (or finished), then they go in one simple query, in the order issued, each read's
   * parameters written as literals (else it keeps a round trip of its own). For independent reads:
   * a write in a branch is held as ever. Settles once every branch has; the first error is thrown.
   */
  together<T extends readonly unknown[]>(fns: { readonly [K in keyof T]: () => Promise<T[K]> }): Promise<T>;
  /**
   * A read sent ahead of the transaction's next statement (with BEGIN, in its round trip) whose
   * answer `check` judges: an error it returns fails that statement, and the transaction, before
   * anything sent after that round trip. Never in the round trip of a write or COMMIT: a check still
   * waiting at commit goes alone first.
   */
  verify(text: string, check: (r: pg.QueryResult) => Error | undefined): void;
  /**
   * End a write transaction: the held writes and COMMIT, in one simple query once BEGIN has been
   * sent and the writes' parameters can be written as literals (else the writes, then COMMIT).
   * COMMIT's result, or undefined when nothing was begun (nothing to commit).
   */
  commit(): Promise<pg.QueryResult | undefined>;
  /**
   * A statement that reads what the held writes wrote, sent after them in COMMIT's round trip (write
   * transactions; just before COMMIT when its parameters cannot be written as literals). Its result
   * once COMMIT answered; rejected when the transaction did not commit, and never settled when it was
   * not ended by `commit` (nobody may wait for it inside the transaction).
   */
  atCommit(text: string, values: unknown[]): Promise<pg.QueryResult>;
  /**
   * A number that changes whenever a statement that may change `table` is issued on this session
   * (a write to it, or a statement whose target is not recognized): what a document read back from
   * memory checks.
   */
  changes(table: string): number;
  /** Whether BEGIN was sent: a write transaction opens at its first statement. */
  readonly opened: boolean;
  /** The error of a statement sent on this session that failed, kept for COMMIT to name. */
  readonly failure: unknown;
}

/** The statements a write transaction holds before sending them in one round trip: a cap on their parameters. */
const MAX_HELD_PARAMS = 20_000;
const WRITTEN_TABLE = /^\s*(?:INSERT\s+INTO|UPDATE)\s+(\w+)/i;
const CHANGED_TABLE = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)/i;

interface Held {
  text: string;
  values: unknown[];
  table: string;
  /** Rows of a plain `INSERT ... VALUES ($1, ..., $n)` written by this one statement (more are appended as tuples). */
  rows: number;
  /** n, when the statement is such an INSERT; 0 otherwise. */
  arity: number;
}

/**
 * `VALUES ($1, $2, ..., $n)` ending a statement, or followed only by `ON CONFLICT (...) DO NOTHING`:
 * more rows can join it (a later row whose key an earlier one took is skipped, as it would be by a
 * statement of its own; DO UPDATE could not touch one row twice, so it never joins).
 */
const PLAIN_VALUES =
  /\sVALUES\s*\(\s*(\$\d+(?:\s*,\s*\$\d+)*)\s*\)(\s+ON\s+CONFLICT\s*\([\w\s,]*\)\s*DO\s+NOTHING)?\s*$/i;

function held(text: string, values: unknown[]): Held {
  const table = WRITTEN_TABLE.exec(text)?.[1] ?? '';
  const m = PLAIN_VALUES.exec(text);
  const params = m ? m[1].split(',').map((p) => p.trim()) : [];
  const inOrder = params.length === values.length && params.every((p, i) => p === `$${i + 1}`);
  return { text, values, table, rows: 1, arity: m && inOrder ? params.length : 0 };
}

/** The statement of one held write: its rows as tuples of one VALUES list, inserted in the order written. */
function rendered(w: Held): string {
  if (w.rows === 1) return w.text;
  const m = PLAIN_VALUES.exec(w.text)!;
  const tuples = Array.from(
    { length: w.rows },
    (_, r) => `(${Array.from({ length: w.arity }, (_, i) => `$${r * w.arity + i + 1}`).join(', ')})`,
  );
  return `${w.text.slice(0, m.index)} VALUES ${tuples.join(', ')}${m[2] ?? ''}`;
}

/** The last result of a simple query (pg answers one per statement, or the one alone). */
function last<R extends pg.QueryResultRow>(r: unknown): pg.QueryResult<R> {
  return (Array.isArray(r) ? r[r.length - 1] : r) as pg.QueryResult<R>;
}

/** Every result of a simple query, in statement order (pg answers one result alone when there was one statement). */
function all(r: unknown): pg.QueryResult[] {
  return (Array.isArray(r) ? r : [r]) as pg.QueryResult[];
}

/** Held writes as one statement: all but the last as data-modifying WITH queries, parameters renumbered. */
function combined(batch: readonly Held[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const parts = batch.map((w) => {
    const offset = values.length;
    values.push(...w.values);
    const text = rendered(w);
    return offset === 0 ? text : text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
  });
  const last = parts.pop();
  return {
    text: parts.length === 0 ? (last ?? '') : `WITH ${parts.map((p, i) => `held_${i} AS (${p})`).join(', ')} ${last}`,
    values,
  };
}

export const PG_DIALECT: Dialect = {
  param: (args, value) => `$${args.push(value)}`,
  nullSafeEq: 'IS NOT DISTINCT FROM',
};

/**
 * `begin` (write transactions) is sent with the first statement: in its round trip when that
 * statement has no parameters (an advisory lock, its key written as a literal), else just before it.
 */
export function pgSession(
  connection: () => Promise<pg.PoolClient>,
  mode: Mode,
  begin?: string,
  keyed?: SessionKeying,
): PgSession {
  let opened = false;
  let failure: unknown;
  let pending: Held[] = [];
  // Statements for COMMIT's round trip (atCommit), with who waits for each result.
  let forCommit: Array<{ text: string; values: unknown[]; settle: (r: pg.QueryResult | Error) => void }> = [];
  // Statements that may change a table, per table, and those whose table we could not tell.
  const changed = new Map<string, number>();
  let unknownChanges = 0;
  const issued = (text: string): void => {
    const table = CHANGED_TABLE.exec(text)?.[1];
    if (table) changed.set(table, (changed.get(table) ?? 0) + 1);
    else if (!/^\s*SELECT\s/i.test(text)) unknownChanges++;
  };
  // Reads whose answers are judged before anything after their round trip (`verify`).
  let checks: Array<{ text: string; check: (r: pg.QueryResult) => Error | undefined }> = [];
  // The error of a check that failed: every later statement, and COMMIT, fails with it (even if the
  // caller caught it: the database saw no error, so only this keeps the transaction from committing).
  let refused: Error | undefined;
  const judgeAll = (judged: typeof checks, answers: pg.QueryResult[]): void => {
    for (let i = 0; i < judged.length; i++) {
      const err = judged[i].check(answers[i]);
      if (err) {
        refused ??= err;
        fail(err);
      }
    }
  };
  const fail = (err: unknown): never => {
    failure ??= err;
    if (pgCode(err) === '23P01') throw new ClaimConflict((err as { detail?: string }).detail, { cause: err });
    throw err;
  };
  /**
   * `text` (one or more statements) with BEGIN and the checks waiting before it: in one simple query
   * without `values`, else the prefix and then the statement. The results of `text` alone.
   */
  const sendAll = async (text: string, values?: unknown[]): Promise<pg.QueryResult[]> => {
    if (refused) throw refused;
    const client = await connection();
    let beginning = false;
    const prefix: string[] = [];
    if (begin && !opened) {
      opened = beginning = true;
      prefix.push(begin, ...(keyed ? [keyed.begin] : []));
    }
    const lead = prefix.length;
    const judged = checks;
    checks = [];
    prefix.push(...judged.map((c) => c.text));
    const judge = (rs: pg.QueryResult[]): void => judgeAll(judged, rs.slice(lead, prefix.length));
    const out = (rs: pg.QueryResult[]) => (keyed ? rs.map(keyed.result) : rs);
    try {
      // With BEGIN or checks ahead of it, a statement whose parameters can be written as literals
      // shares their round trip (never COMMIT's: that travels on its own when BEGIN has not gone out).
      const whole =
        values === undefined ? text : prefix.length > 0 ? inlined(text, values, typedArrays(text, values)) : undefined;
      if (whole !== undefined) {
        const rs = all(await client.query([...prefix, whole].filter((t) => t !== '').join('; ')));
        judge(rs);
        return out(rs.slice(prefix.length));
      }
      if (prefix.length > 0) judge(all(await client.query(prefix.join('; '))));
      return out([await client.query(text, values)]);
    } catch (err) {
      // A connection cut before BEGIN reached the server: nothing was begun (the store may retry on a fresh one).
      if (beginning && connectionFault(err) && pgCode(err) !== '57014') opened = false;
      return fail(err);
    }
  };
  const send = async <R extends pg.QueryResultRow = any>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> => last<R>(await sendAll(text, values));
  // Advisory locks asked for and not sent yet: they travel with the next statement, in one simple
  // query (each statement of it takes its own snapshot, so what follows a lock still sees what
  // committed before the lock was granted). Never pending beside held writes.
  let locks: string[] = [];
  const sendLocks = async (): Promise<void> => {
    if (locks.length === 0) return;
    const l = locks;
    locks = [];
    await send(l.join('; '));
  };
  const flush = async (): Promise<void> => {
    await sendLocks();
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    const one = combined(batch);
    await send(one.text, one.values);
  };
  // `together`: while a batch is open (depth > 0), statements queue (locks in their place) until no
  // branch is running, that is every branch waits on a queued read or has finished.
  // A write issued while statements are queued takes its place among them (it is after them).
  type Queued =
    | { lock: string }
    | { write: string; values: unknown[] }
    | { text: string; values?: unknown[]; resolve: (r: pg.QueryResult) => void; reject: (e: unknown) => void };
  type Read = Extract<Queued, { resolve: unknown }>;
  const isRead = (q: Queued): q is Read => 'resolve' in q;
  let depth = 0;
  let running = 1;
  let queue: Queued[] = [];
  const dispatch = async (): Promise<void> => {
    const items = queue;
    queue = [];
    const reads = items.filter(isRead);
    running += reads.length;
    const answers = new Map<Queued, pg.QueryResult>();
    let parts: string[] = [];
    let owners: Array<Queued | undefined> = [];
    const sendParts = async (): Promise<void> => {
      if (parts.length === 0) return;
      const rs = await sendAll(parts.join('; '));
      owners.forEach((o, i) => o && answers.set(o, rs[i]));
      parts = [];
      owners = [];
    };
    try {
      // Writes held before the batch go first (its reads see them); locks asked for before it lead it.
      if (pending.length > 0) await flush();
      parts = locks;
      owners = locks.map(() => undefined);
      locks = [];
      for (const it of items) {
        if ('lock' in it) {
          parts.push(it.lock);
          owners.push(undefined);
          continue;
        }
        if ('write' in it) {
          await sendParts();
          await send(it.write, it.values);
          continue;
        }
        const literal = inlined(it.text, it.values);
        if (literal !== undefined) {
          parts.push(literal);
          owners.push(it);
          continue;
        }
        await sendParts();
        answers.set(it, await send(it.text, it.values));
      }
      await sendParts();
    } catch (err) {
      for (const r of reads) r.reject(err);
      return;
    }
    for (const r of reads) r.resolve(answers.get(r)!);
  };
  const query = async <R extends pg.QueryResultRow = any>(
    sql: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> => {
    const text = keyed ? keyed.statement(sql) : sql;
    issued(text);
    if (depth > 0) {
      return new Promise<pg.QueryResult<R>>((resolve, reject) => {
        queue.push({ text, values, resolve: resolve as (r: pg.QueryResult) => void, reject });
        if (--running === 0) void dispatch();
      });
    }
    if (locks.length > 0) {
      const literal = inlined(text, values);
      if (literal !== undefined) {
        const l = locks;
        locks = [];
        return send<R>(`${l.join('; ')}; ${literal}`);
      }
    }
    await flush();
    return send<R>(text, values);
  };
  /**
   * The held writes, the statements for COMMIT's round trip and COMMIT: their results after the held
   * writes' (COMMIT's last), or none when nothing was begun. One round trip where every parameter can
   * be written as a literal and BEGIN went out; before that, COMMIT travels alone (a connection cut
   * while it is in flight must not be taken for "nothing was begun": the store would run the call again).
   */
  const commitWith = async (ending: typeof forCommit): Promise<pg.QueryResult[]> => {
    const tails = ending.map((a) => inlined(a.text, a.values, typedArrays(a.text, a.values)));
    const one = pending.length > 0 ? combined(pending) : undefined;
    const text = one && inlined(one.text, one.values, typedArrays(one.text, one.values));
    if (!opened || text === undefined || tails.some((t) => t === undefined)) {
      await flush();
      if (opened && tails.every((t) => t !== undefined)) return sendAll([...(tails as string[]), 'COMMIT'].join('; '));
      const rs: pg.QueryResult[] = [];
      for (const a of ending) rs.push(await send(a.text, a.values));
      return opened ? [...rs, await send('COMMIT')] : rs;
    }
    const l = locks;
    pending = [];
    locks = [];
    return (await sendAll([...l, text, ...(tails as string[]), 'COMMIT'].join('; '))).slice(l.length + 1);
  };
  const rows = async <R extends pg.QueryResultRow = any>(text: string, values?: unknown[]) =>
    (await query<R>(text, values)).rows;
  const lockText = (key: string) =>
    `SELECT pg_advisory_xact_lock(hashtextextended(${pg.escapeLiteral(keyed ? keyed.lockKey(key) : key)}, 0))`;
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
      if (mode !== 'write') return;
      // Writes held before the lock go before it; the lock itself waits for the next statement.
      if (pending.length > 0) await flush();
      if (depth > 0) queue.push({ lock: lockText(key) });
      else locks.push(lockText(key));
    },
    async lock(key) {
      await this.lockKey(key);
      if (depth > 0) {
        // Resolved once granted, as ever: the batch sends it with what is queued before it.
        await query('SELECT 1');
        return;
      }
      await sendLocks();
    },
    async write(sql, values) {
      const text = keyed ? keyed.statement(sql) : sql;
      issued(text);
      if (depth > 0 && queue.length > 0) {
        queue.push({ write: text, values });
        return;
      }
      await sendLocks();
      if (mode === 'read') {
        await send(text, values);
        return;
      }
      const w = held(text, values);
      if (!w.table) {
        await flush();
        await send(text, values);
        return;
      }
      if (pending.reduce((n, p) => n + p.values.length, values.length) > MAX_HELD_PARAMS) await flush();
      const same = pending.find((p) => p.table === w.table);
      if (same && same.arity > 0 && same.text === text) {
        same.values.push(...values);
        same.rows++;
        return;
      }
      if (same) await flush();
      pending.push(w);
    },
    flush,
    async together<T extends readonly unknown[]>(fns: { readonly [K in keyof T]: () => Promise<T[K]> }): Promise<T> {
      const list = fns as readonly (() => Promise<unknown>)[];
      if (list.length === 0) return [] as unknown as T;
      depth++;
      // This flow becomes the branches; the last to finish hands it back.
      running += list.length - 1;
      let left = list.length;
      const done = (): void => {
        if (--left === 0) {
          // Locks and writes a branch left and no read took along (locks, then writes) wait for the
          // next statement, as outside.
          if (--depth === 0)
            for (const q of queue.splice(0)) {
              if ('lock' in q) locks.push(q.lock);
              else if ('write' in q) pending.push(held(q.write, q.values));
            }
          return;
        }
        if (--running === 0 && queue.length > 0) void dispatch();
      };
      return settleAll(list.map((fn) => (async () => fn())().finally(done))) as unknown as Promise<T>;
    },
    verify(text, check) {
      checks.push({ text: keyed ? keyed.statement(text) : text, check });
    },
    async commit() {
      if (mode !== 'write') throw new Error('commit of a read session');
      if (refused) throw refused;
      // A check never shares COMMIT's round trip: judged first, alone (without BEGIN when nothing was begun).
      if (checks.length > 0 && (opened || pending.length === 0)) {
        if (opened) await sendAll('');
        else {
          const judged = checks;
          checks = [];
          const client = await connection();
          // Outside BEGIN a simple query is one implicit transaction: the business is set for it alone.
          const texts = [...(keyed ? [keyed.begin] : []), ...judged.map((c) => c.text)];
          judgeAll(judged, all(await client.query(texts.join('; ')).catch(fail)).slice(keyed ? 1 : 0));
        }
      }
      const ending = forCommit;
      forCommit = [];
      let results: pg.QueryResult[];
      try {
        results = await commitWith(ending);
      } catch (err) {
        for (const a of ending) a.settle(err instanceof Error ? err : new Error(String(err)));
        throw err;
      }
      const end = results.at(-1);
      const committed = end?.command === 'COMMIT';
      ending.forEach((a, i) => a.settle(committed ? results[i] : new Error('the transaction did not commit')));
      return end;
    },
    atCommit(sql, values) {
      if (mode !== 'write') throw new Error('atCommit in a read session');
      // Not counted as a change (`changes`): it runs after every read of the transaction.
      const text = keyed ? keyed.statement(sql) : sql;
      return new Promise<pg.QueryResult>((resolve, reject) => {
        forCommit.push({ text, values, settle: (r) => (r instanceof Error ? reject(r) : resolve(r)) });
      });
    },
    changes: (table) => unknownChanges + (changed.get(table) ?? 0),
    get opened() {
      return opened;
    },
    get failure() {
      return failure;
    },
  };
}
