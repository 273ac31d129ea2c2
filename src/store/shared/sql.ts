/**
 * Queries whose text is built by logic (optional filters, repeated parameters), written once for
 * both engines. A dialect says how a parameter is spelled and how NULL-safe equality is written.
 */
import type { WaitlistQuery } from '../port.js';
import { DELIVERY_COLUMNS } from './rows.js';

export interface Dialect {
  /** Append a parameter value and return its placeholder (`?` or `$n`). */
  param(args: unknown[], value: unknown): string;
  /** NULL-safe equality: `IS` (SQLite) or `IS NOT DISTINCT FROM` (PostgreSQL). */
  readonly nullSafeEq: string;
}

export interface Query {
  sql: string;
  args: unknown[];
}

/** A caller's waitlist entries, oldest first, keyset-paginated on (created_ms, id). */
export function waitlistListQuery(d: Dialect, w: WaitlistQuery): Query {
  const args: unknown[] = [];
  const p = (v: unknown) => d.param(args, v);
  const where = [`principal ${d.nullSafeEq} ${p(w.principal)}`];
  if (w.serviceId) where.push(`service_id = ${p(w.serviceId)}`);
  if (w.status) where.push(`status = ${p(w.status)}`);
  if (w.afterCreatedMs !== undefined) {
    where.push(
      `(created_ms > ${p(w.afterCreatedMs)} OR (created_ms = ${p(w.afterCreatedMs)} AND id > ${p(w.afterId ?? '')}))`,
    );
  }
  return {
    sql: `SELECT data FROM waitlist_entries WHERE ${where.join(' AND ')} ORDER BY created_ms, id LIMIT ${p(w.limit)}`,
    args,
  };
}

/**
 * Due webhook deliveries: pending, due, not leased by another worker, and with no earlier pending
 * delivery of the same order key to the same target (causal order). `suffix` adds row locking.
 */
export function dueDeliveriesQuery(d: Dialect, nowMs: number, count: number, suffix = ''): Query {
  const args: unknown[] = [];
  const p = (v: unknown) => d.param(args, v);
  const sql = `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d
       WHERE d.status = 'pending' AND d.next_attempt_ms <= ${p(nowMs)} AND (d.lease_until_ms IS NULL OR d.lease_until_ms <= ${p(nowMs)})
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.order_key = d.order_key AND e.target_url = d.target_url
                       AND e.status = 'pending' AND e.seq < d.seq)
       ORDER BY d.next_attempt_ms, d.seq LIMIT ${p(count)}${suffix}`;
  return { sql, args };
}
