import type { WebhookRepo } from '../port.js';
import { candidateCount, onePerTarget } from '../shared/deliveries.js';
import { ATTEMPT_COLUMNS, DELIVERY_COLUMNS, toAttempt, toDelivery } from '../shared/rows.js';
import { dueDeliveriesQuery } from '../shared/sql.js';
import { SQLITE_DIALECT, type Statements } from './statements.js';

export function sqliteWebhooks(s: Statements): WebhookRepo {
  const add = s.prepare(
    `INSERT INTO webhook_deliveries (event_id, event, seq, order_key, target_url, subscription_id, body, status, attempts, next_attempt_ms, created_ms)
     VALUES (@event_id, @event, @seq, @order_key, @target_url, @subscription_id, @body, 'pending', 0, @next_attempt_ms, @created_ms)
     ON CONFLICT (event_id, target_url) DO NOTHING`,
  );
  const lease = s.prepare('UPDATE webhook_deliveries SET lease_until_ms = ? WHERE id = ?');
  const attempt = s.prepare(`INSERT OR REPLACE INTO webhook_attempts (${ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`);
  const update = s.prepare(
    `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_ms = ?, lease_until_ms = NULL, last_status = ?, last_error = ?,
     last_latency_ms = ?, delivered_ms = CASE WHEN ? = 'delivered' THEN ? ELSE delivered_ms END WHERE id = ?`,
  );
  const list = s.prepare(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries ORDER BY id DESC LIMIT ?`);
  const listStatus = s.prepare(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE status = ? ORDER BY id DESC LIMIT ?`,
  );
  const attempts = s.prepare(`SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt`);
  const retryOne = s.prepare(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_ms = ?, lease_until_ms = NULL WHERE id = ? AND status = 'failed'`,
  );
  const retryAll = s.prepare(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_ms = ?, lease_until_ms = NULL WHERE status = 'failed'`,
  );
  const release = s.prepare(`UPDATE webhook_deliveries SET lease_until_ms = NULL WHERE id = ? AND status = 'pending'`);
  return {
    async add(d) {
      add.run(d);
    },
    async claimDue(nowMs, limit, leaseUntilMs, busy) {
      const { sql, args } = dueDeliveriesQuery(SQLITE_DIALECT, nowMs, candidateCount(limit, busy));
      const out = onePerTarget((s.prepare(sql).all(...args) as any[]).map(toDelivery), busy, limit);
      for (const d of out) lease.run(leaseUntilMs, d.id);
      return out;
    },
    async releaseLeases(ids) {
      for (const id of ids) release.run(id);
    },
    async recordAttempt(a, next) {
      attempt.run(a.delivery_id, a.attempt, a.at_ms, a.status_code, a.latency_ms, a.error);
      update.run(
        next.status,
        a.attempt,
        next.next_attempt_ms,
        a.status_code,
        a.error,
        a.latency_ms,
        next.status,
        a.at_ms,
        a.delivery_id,
      );
    },
    async list(w) {
      return ((w.status ? listStatus.all(w.status, w.limit) : list.all(w.limit)) as any[]).map(toDelivery);
    },
    async attempts(deliveryId) {
      return (attempts.all(deliveryId) as any[]).map(toAttempt);
    },
    async retry(id, nowMs) {
      return (id === null ? retryAll.run(nowMs) : retryOne.run(nowMs, id)).changes;
    },
  };
}
