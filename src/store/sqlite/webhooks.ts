import type { WebhookRepo } from '../port.js';
import { candidateCount, onePerTarget } from '../shared/deliveries.js';
import { ATTEMPT_COLUMNS, DELIVERY_COLUMNS, toAttempt, toDelivery } from '../shared/rows.js';
import { dueDeliveriesQuery } from '../shared/sql.js';
import { SQLITE_DIALECT, type Statements } from './statements.js';

const ADD = `INSERT INTO webhook_deliveries (event_id, event, seq, order_key, target_url, subscription_id, body, status, attempts, next_attempt_ms, created_ms)
     VALUES (@event_id, @event, @seq, @order_key, @target_url, @subscription_id, @body, 'pending', 0, @next_attempt_ms, @created_ms)
     ON CONFLICT (event_id, target_url) DO NOTHING`;
const LEASE = 'UPDATE webhook_deliveries SET lease_until_ms = ? WHERE id = ?';
const ATTEMPT = `INSERT OR REPLACE INTO webhook_attempts (${ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`;
const UPDATE = `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_ms = ?, lease_until_ms = NULL, last_status = ?, last_error = ?,
     last_latency_ms = ?, delivered_ms = CASE WHEN ? = 'delivered' THEN ? ELSE delivered_ms END WHERE id = ?`;
const LIST = `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries ORDER BY id DESC LIMIT ?`;
const LIST_STATUS = `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE status = ? ORDER BY id DESC LIMIT ?`;
const ATTEMPTS = `SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt`;
const RETRY_ONE = `UPDATE webhook_deliveries SET status = 'pending', next_attempt_ms = ?, lease_until_ms = NULL WHERE id = ? AND status = 'failed'`;
const RETRY_ALL = `UPDATE webhook_deliveries SET status = 'pending', next_attempt_ms = ?, lease_until_ms = NULL WHERE status = 'failed'`;
const RELEASE = `UPDATE webhook_deliveries SET lease_until_ms = NULL WHERE id = ? AND status = 'pending'`;

export function sqliteWebhooks(s: Statements): WebhookRepo {
  return new SqliteWebhooks(s);
}

/** A class over the connection's statement cache, each statement prepared on its first use (./outbox.ts). */
class SqliteWebhooks implements WebhookRepo {
  constructor(private readonly s: Statements) {}
  async add(d: Parameters<WebhookRepo['add']>[0]) {
    this.s.prepare(ADD).run(d);
  }
  async claimDue(nowMs: number, limit: number, leaseUntilMs: number, busy: readonly string[]) {
    const { sql, args } = dueDeliveriesQuery(SQLITE_DIALECT, nowMs, candidateCount(limit, busy));
    const out = onePerTarget((this.s.prepare(sql).all(...args) as any[]).map(toDelivery), busy, limit);
    const lease = this.s.prepare(LEASE);
    for (const d of out) lease.run(leaseUntilMs, d.id);
    return out;
  }
  async releaseLeases(ids: readonly number[]) {
    const release = this.s.prepare(RELEASE);
    for (const id of ids) release.run(id);
  }
  async recordAttempt(...[a, next]: Parameters<WebhookRepo['recordAttempt']>) {
    this.s.prepare(ATTEMPT).run(a.delivery_id, a.attempt, a.at_ms, a.status_code, a.latency_ms, a.error);
    this.s
      .prepare(UPDATE)
      .run(
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
  }
  async list(w: Parameters<WebhookRepo['list']>[0]) {
    const rows = w.status ? this.s.prepare(LIST_STATUS).all(w.status, w.limit) : this.s.prepare(LIST).all(w.limit);
    return (rows as any[]).map(toDelivery);
  }
  async attempts(deliveryId: number) {
    return (this.s.prepare(ATTEMPTS).all(deliveryId) as any[]).map(toAttempt);
  }
  async retry(id: number | null, nowMs: number) {
    return (id === null ? this.s.prepare(RETRY_ALL).run(nowMs) : this.s.prepare(RETRY_ONE).run(nowMs, id)).changes;
  }
}
