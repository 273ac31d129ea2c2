/**
 * The PostgreSQL deployment directory's wake schedule (deployment-port.ts WakeSchedule): the
 * `wake_at` column of its businesses, read and claimed with plain statements on the directory's
 * pool. Not part of the directory's copy in memory (no request reads it), so no NOTIFY. A claim is
 * one UPDATE over the due rows it locks (SKIP LOCKED) and moves past now: of several processes
 * claiming at once, each business goes to one.
 */
import type pg from 'pg';
import type { WakeSchedule } from '../deployment-port.js';

export function pgWakeSchedule(pool: pg.Pool, s: string): WakeSchedule {
  return {
    async set(ids, at) {
      if (ids.length === 0) return;
      await pool.query(`UPDATE ${s}.hosted_businesses SET wake_at = $1 WHERE id = ANY($2::text[])`, [at, [...ids]]);
    },
    async claimDue(now, limit, leaseUntil, except) {
      const r = await pool.query<{ id: string }>(
        `UPDATE ${s}.hosted_businesses SET wake_at = $3 WHERE id IN (
           SELECT id FROM ${s}.hosted_businesses WHERE wake_at <= $1 AND NOT (id = ANY($4::text[]))
           ORDER BY wake_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
         ) AND wake_at <= $1 RETURNING id`,
        [now, limit, leaseUntil, [...except]],
      );
      return r.rows.map((row) => row.id);
    },
    async at(id) {
      const r = await pool.query<{ wake_at: string | null }>(
        `SELECT wake_at FROM ${s}.hosted_businesses WHERE id = $1`,
        [id],
      );
      if (r.rows.length === 0) return undefined;
      return r.rows[0].wake_at === null ? null : Number(r.rows[0].wake_at);
    },
  };
}
