/**
 * A queue of rows committed with a change and sent after it (mail, payment jobs): a worker leases
 * the due rows, oldest due first, skipping those another worker holds a live lease on, and each
 * engine writes the lease its own way (src/store/{sqlite,postgres}/leased-queue.ts).
 */
export interface LeasedQueue<Next = unknown> {
  table: string;
  /** The select list the row mapper reads (it includes `id`). */
  columns: string;
  /** The status of a row waiting to be sent. */
  waiting: string;
  /** The column holding when a row is due. */
  dueColumn: string;
  /** A column that splits the queue between runners (the notification outbox's `channel`): each leases only its own rows. */
  partition?: string;
  /** The columns an attempt's end sets (the lease is cleared with them), and their values from the outcome. */
  finish: { columns: readonly string[]; values(next: Next): unknown[] };
}

/**
 * The due rows, `now` as parameter `p(1)`, the limit as `p(2)` and, for a partitioned queue, the
 * partition as `p(3)` (positional engines bind them in the order written: partition, now, now, limit).
 */
export function dueRowsSql(q: LeasedQueue, p: (n: 1 | 2 | 3) => string): string {
  const part = q.partition ? ` AND ${q.partition} = ${p(3)}` : '';
  return `SELECT ${q.columns} FROM ${q.table} WHERE status = '${q.waiting}'${part} AND ${q.dueColumn} <= ${p(1)} AND (lease_until_ms IS NULL OR lease_until_ms <= ${p(1)})
     ORDER BY ${q.dueColumn}, created_ms LIMIT ${p(2)}`;
}

/** An attempt's end: the finish columns as parameters `p(1)`..`p(n)`, the row's id as `p(n + 1)`. */
export function finishSql(q: LeasedQueue<never>, p: (n: number) => string): string {
  const sets = q.finish.columns.map((c, i) => `${c} = ${p(i + 1)}`).join(', ');
  return `UPDATE ${q.table} SET ${sets}, lease_until_ms = NULL WHERE id = ${p(q.finish.columns.length + 1)}`;
}
