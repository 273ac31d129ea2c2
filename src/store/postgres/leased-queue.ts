/** Leasing from a queue on PostgreSQL: rows another worker is leasing right now are skipped, not waited for. */
import { dueRowsSql, finishSql, type LeasedQueue } from '../shared/leased-queue.js';
import type { PgSession } from './session.js';

/** `partition`: the value of the queue's partition column whose rows are leased (a partitioned queue only). */
export async function pgLeaseDue<R extends { id: string }>(
  s: PgSession,
  q: LeasedQueue,
  nowMs: number,
  limit: number,
  leaseUntilMs: number,
  partition?: string,
): Promise<R[]> {
  const rows = await s.rows<R>(
    `${dueRowsSql(q, (n) => `$${n}`)} FOR UPDATE SKIP LOCKED`,
    q.partition ? [nowMs, limit, partition] : [nowMs, limit],
  );
  if (rows.length > 0)
    await s.query(`UPDATE ${q.table} SET lease_until_ms = $1 WHERE id = ANY($2::text[])`, [
      leaseUntilMs,
      rows.map((r) => r.id),
    ]);
  return rows;
}

export async function pgFinishLeased<N>(s: PgSession, q: LeasedQueue<N>, id: string, next: N): Promise<void> {
  await s.query(
    finishSql(q, (n) => `$${n}`),
    [...q.finish.values(next), id],
  );
}
