import type { OutboxEvent, OutboxRepo } from '../port.js';
import { eventBody } from '../port.js';
import { OUTBOX_COLUMNS, outboxValues, toOutbox, withoutSeq } from '../shared/rows.js';
import type { PgSession } from './session.js';

export function pgOutbox(s: PgSession): OutboxRepo {
  return {
    async add(e) {
      await s.write(
        'INSERT INTO outbox (event_id, event, order_key, principal, profile, payload, created_ms, due_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        outboxValues(e),
      );
    },
    async recent(limit) {
      return (await s.rows(`SELECT ${OUTBOX_COLUMNS} FROM outbox ORDER BY seq DESC LIMIT $1`, [limit])).map(withoutSeq);
    },
    async recentBodies(principal, limit) {
      const r = await s.rows(
        `SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE principal = $1 AND status = 'dispatched' ORDER BY seq DESC LIMIT $2`,
        [principal, limit],
      );
      return r.map((x) => eventBody(toOutbox(x)));
    },
    async due(nowMs, limit) {
      return (
        await s.rows(
          `SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE status = 'pending' AND due_ms <= $1 ORDER BY seq LIMIT $2`,
          [nowMs, limit],
        )
      ).map(toOutbox);
    },
    async markDispatched(seqs) {
      if (seqs.length === 0) return [];
      // Conditional: a row another worker already moved is not ours to announce.
      const r = await s.rows<{ seq: number }>(
        `UPDATE outbox SET status = 'dispatched' WHERE seq = ANY($1::bigint[]) AND status = 'pending' RETURNING seq`,
        [seqs],
      );
      const moved = new Set(r.map((x) => x.seq));
      return seqs.filter((seq, i) => moved.has(seq) && seqs.indexOf(seq) === i);
    },
    async bySeq(seqs) {
      if (seqs.length === 0) return [];
      const found = new Map(
        (await s.rows(`SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE seq = ANY($1::bigint[])`, [seqs])).map(
          (r) => [r.seq as number, toOutbox(r)] as const,
        ),
      );
      const out: Array<OutboxEvent & { seq: number }> = [];
      for (const seq of seqs) {
        const e = found.get(seq);
        if (e) out.push(e);
      }
      return out;
    },
    async cancelScheduled(orderKey, event) {
      return (
        (
          await s.query(
            `UPDATE outbox SET status = 'canceled' WHERE order_key = $1 AND event = $2 AND status = 'pending'`,
            [orderKey, event],
          )
        ).rowCount ?? 0
      );
    },
    async purgeDispatched(dueBeforeMs, limit) {
      const r = await s.query(
        `DELETE FROM outbox WHERE seq IN (SELECT seq FROM outbox WHERE status IN ('dispatched', 'canceled') AND due_ms < $1 LIMIT $2)`,
        [dueBeforeMs, limit],
      );
      return r.rowCount ?? 0;
    },
  };
}
