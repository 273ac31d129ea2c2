import type { OutboxRepo } from '../port.js';
import { eventBody } from '../port.js';
import { OUTBOX_COLUMNS, outboxValues, toOutbox, withoutSeq } from '../shared/rows.js';
import type { Statements } from './statements.js';

export function sqliteOutbox(s: Statements): OutboxRepo {
  const add = s.prepare(
    'INSERT INTO outbox (event_id, event, order_key, principal, profile, payload, created_ms, due_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const recent = s.prepare(`SELECT ${OUTBOX_COLUMNS} FROM outbox ORDER BY seq DESC LIMIT ?`);
  const recentFor = s.prepare(
    `SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE principal = ? AND status = 'dispatched' ORDER BY seq DESC LIMIT ?`,
  );
  const due = s.prepare(
    `SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE status = 'pending' AND due_ms <= ? ORDER BY seq LIMIT ?`,
  );
  const mark = s.prepare(`UPDATE outbox SET status = 'dispatched' WHERE seq = ? AND status = 'pending'`);
  const bySeq = s.prepare(`SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE seq = ?`);
  const cancel = s.prepare(
    `UPDATE outbox SET status = 'canceled' WHERE order_key = ? AND event = ? AND status = 'pending'`,
  );
  // outbox_due (status, due_ms, seq) finds them: no index of its own.
  const purge = s.prepare(
    `DELETE FROM outbox WHERE seq IN (SELECT seq FROM outbox WHERE status IN ('dispatched', 'canceled') AND due_ms < ? LIMIT ?)`,
  );
  return {
    async add(e) {
      add.run(...outboxValues(e));
    },
    async recent(limit) {
      return (recent.all(limit) as any[]).map(withoutSeq);
    },
    async recentBodies(principal, limit) {
      return (recentFor.all(principal, limit) as any[]).map((r) => eventBody(toOutbox(r)));
    },
    async due(nowMs, limit) {
      return (due.all(nowMs, limit) as any[]).map(toOutbox);
    },
    async markDispatched(seqs) {
      const moved: number[] = [];
      for (const seq of seqs) if (mark.run(seq).changes > 0) moved.push(seq);
      return moved;
    },
    async bySeq(seqs) {
      return seqs
        .map((seq) => bySeq.get(seq) as any)
        .filter(Boolean)
        .map(toOutbox);
    },
    async cancelScheduled(orderKey, event) {
      return cancel.run(orderKey, event).changes;
    },
    async purgeDispatched(dueBeforeMs, limit) {
      return purge.run(dueBeforeMs, limit).changes;
    },
  };
}
