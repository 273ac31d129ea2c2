import type { WebhookRepo } from '../port.js';
import { candidateCount, onePerTarget } from '../shared/deliveries.js';
import { ATTEMPT_COLUMNS, DELIVERY_COLUMNS, toAttempt, toDelivery } from '../shared/rows.js';
import { dueDeliveriesQuery } from '../shared/sql.js';
import { PG_DIALECT, type PgSession } from './session.js';

/** `channel`: the LISTEN/NOTIFY channel the events of deliveries written at COMMIT are announced on, with it. */
export function pgWebhooks(s: PgSession, channel?: string): WebhookRepo {
  return {
    async add(d) {
      // A held write (nobody reads its result): one expansion's rows join one VALUES list, sent with
      // COMMIT. The constant columns are parameters so that the statement is a plain VALUES list.
      await s.write(
        `INSERT INTO webhook_deliveries (event_id, event, seq, order_key, target_url, subscription_id, body, status, attempts, next_attempt_ms, created_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (event_id, target_url) DO NOTHING`,
        [
          d.event_id,
          d.event,
          d.seq,
          d.order_key,
          d.target_url,
          d.subscription_id,
          d.body,
          'pending',
          0,
          d.next_attempt_ms,
          d.created_ms,
        ],
      );
    },
    async claimDue(nowMs, limit, leaseUntilMs, busy) {
      // Rows another worker is leasing right now are skipped, not waited for; the lease written
      // below keeps them ours after commit.
      const { sql, args } = dueDeliveriesQuery(
        PG_DIALECT,
        nowMs,
        candidateCount(limit, busy),
        '\n       FOR UPDATE SKIP LOCKED',
      );
      const out = onePerTarget((await s.rows(sql, args)).map(toDelivery), busy, limit);
      if (out.length > 0) {
        await s.query('UPDATE webhook_deliveries SET lease_until_ms = $1 WHERE id = ANY($2::bigint[])', [
          leaseUntilMs,
          out.map((d) => d.id),
        ]);
      }
      return out;
    },
    addAtCommit(rows, nowMs, leaseUntilMs) {
      const values: unknown[] = [nowMs, leaseUntilMs];
      // With a channel, each event is announced on it by PostgreSQL at the commit.
      const notified = channel ? `, pg_notify($${values.push(channel)}, m.seq::text) IS NOT NULL AS announced` : '';
      const tuples = rows.map((r) => {
        const at = values.push(r.event_id, r.target_url, r.body, r.lease);
        return `($${at - 3}, $${at - 2}, $${at - 1}, $${at}::boolean)`;
      });
      // Each event's outbox row is read in the statement after the held writes that inserted it.
      const answer = s.atCommit(
        `WITH v (event_id, target_url, body, lease) AS (VALUES ${tuples.join(', ')}),
         d AS (
           INSERT INTO webhook_deliveries (event_id, event, seq, order_key, target_url, subscription_id, body, status, attempts, next_attempt_ms, created_ms, lease_until_ms)
           SELECT o.event_id, o.event, o.seq, o.order_key, v.target_url, NULL, v.body, 'pending', 0, $1, $1,
                  CASE WHEN v.lease AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.order_key = o.order_key
                    AND e.target_url = v.target_url AND e.status = 'pending') THEN $2::bigint END
           FROM v JOIN outbox o ON o.event_id = v.event_id
           ON CONFLICT (event_id, target_url) DO NOTHING
           RETURNING ${DELIVERY_COLUMNS}, lease_until_ms
         ),
         m AS (UPDATE outbox SET status = 'dispatched' WHERE event_id IN (SELECT event_id FROM v) AND status = 'pending' RETURNING seq, event_id)
         SELECT m.seq AS moved_seq, m.event_id AS moved_event_id, d.*${notified}
         FROM m LEFT JOIN d ON d.event_id = m.event_id ORDER BY m.seq`,
        values,
      );
      return answer.then((r) =>
        r.rows.map((x) => ({
          event_id: x.moved_event_id,
          seq: Number(x.moved_seq),
          delivery: x.id === null ? null : toDelivery(x),
          leased: x.lease_until_ms !== null,
          announced: x.announced === true,
        })),
      );
    },
    async releaseLeases(ids) {
      if (ids.length === 0) return;
      await s.query(
        `UPDATE webhook_deliveries SET lease_until_ms = NULL WHERE id = ANY($1::bigint[]) AND status = 'pending'`,
        [[...ids]],
      );
    },
    async recordAttempt(a, next) {
      // Held writes: both go with COMMIT's round trip.
      await s.write(
        `INSERT INTO webhook_attempts (${ATTEMPT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (delivery_id, attempt) DO UPDATE SET at_ms = EXCLUDED.at_ms, status_code = EXCLUDED.status_code,
         latency_ms = EXCLUDED.latency_ms, error = EXCLUDED.error`,
        [a.delivery_id, a.attempt, a.at_ms, a.status_code, a.latency_ms, a.error],
      );
      await s.write(
        `UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_ms = $3, lease_until_ms = NULL, last_status = $4,
         last_error = $5, last_latency_ms = $6, delivered_ms = CASE WHEN $1 = 'delivered' THEN $7 ELSE delivered_ms END WHERE id = $8`,
        [next.status, a.attempt, next.next_attempt_ms, a.status_code, a.error, a.latency_ms, a.at_ms, a.delivery_id],
      );
    },
    async list(w) {
      const r = w.status
        ? await s.rows(
            `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE status = $1 ORDER BY id DESC LIMIT $2`,
            [w.status, w.limit],
          )
        : await s.rows(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries ORDER BY id DESC LIMIT $1`, [w.limit]);
      return r.map(toDelivery);
    },
    async attempts(deliveryId) {
      return (
        await s.rows(`SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt`, [
          deliveryId,
        ])
      ).map(toAttempt);
    },
    async retry(id, nowMs) {
      const r =
        id === null
          ? await s.query(
              `UPDATE webhook_deliveries SET status = 'pending', next_attempt_ms = $1, lease_until_ms = NULL WHERE status = 'failed'`,
              [nowMs],
            )
          : await s.query(
              `UPDATE webhook_deliveries SET status = 'pending', next_attempt_ms = $1, lease_until_ms = NULL WHERE id = $2 AND status = 'failed'`,
              [nowMs, id],
            );
      return r.rowCount ?? 0;
    },
  };
}
