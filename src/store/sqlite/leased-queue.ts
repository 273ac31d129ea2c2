/** Leasing from a queue on SQLite: one writer, so the select and the lease run back to back in the caller's transaction. */
import type Database from 'better-sqlite3';
import { dueRowsSql, finishSql, type LeasedQueue } from '../shared/leased-queue.js';

/** `partition`: the value of the queue's partition column whose rows are leased (a partitioned queue only). */
export function sqliteLeaseDue<R extends { id: string }>(
  db: Database.Database,
  q: LeasedQueue,
): (nowMs: number, limit: number, leaseUntilMs: number, partition?: string) => R[] {
  // Positional parameters, in the order written: the partition (if any), `now` twice, the limit.
  const due = db.prepare(dueRowsSql(q, () => '?'));
  const lease = db.prepare(`UPDATE ${q.table} SET lease_until_ms = ? WHERE id = ?`);
  return (nowMs, limit, leaseUntilMs, partition) => {
    const rows = (q.partition ? due.all(partition, nowMs, nowMs, limit) : due.all(nowMs, nowMs, limit)) as R[];
    for (const r of rows) lease.run(leaseUntilMs, r.id);
    return rows;
  };
}

export function sqliteFinishLeased<N>(db: Database.Database, q: LeasedQueue<N>): (id: string, next: N) => void {
  const finish = db.prepare(finishSql(q, () => '?'));
  return (id, next) => {
    finish.run(...q.finish.values(next), id);
  };
}
