/** The payment jobs, applied provider events and provider ids on SQLite. */
import type Database from 'better-sqlite3';
import type { PaymentRepo } from '../payment-port.js';
import {
  PAYMENT_JOB_COLUMNS as JOB_COLUMNS,
  PAYMENT_JOB_QUEUE,
  toPaymentJob as toJob,
  type PaymentJobRow as Row,
} from '../shared/payment-rows.js';
import { sqliteFinishLeased, sqliteLeaseDue } from './leased-queue.js';

export function sqlitePayments(db: Database.Database): PaymentRepo {
  const q = {
    enqueue: db.prepare(
      `INSERT INTO payment_jobs (id, kind, booking_id, payload, status, attempts, next_attempt_ms, created_ms) VALUES (?, ?, ?, ?, 'pending', 0, ?, ?)
       ON CONFLICT (id) DO NOTHING`,
    ),
    due: sqliteLeaseDue<Row>(db, PAYMENT_JOB_QUEUE),
    finish: sqliteFinishLeased(db, PAYMENT_JOB_QUEUE),
    get: db.prepare(`SELECT ${JOB_COLUMNS} FROM payment_jobs WHERE id = ?`),
    forBooking: db.prepare(`SELECT ${JOB_COLUMNS} FROM payment_jobs WHERE booking_id = ? ORDER BY created_ms, id`),
    event: db.prepare(
      'INSERT INTO payment_events (provider, event_id, received_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    ),
    link: db.prepare('INSERT INTO payment_refs (provider, ref, booking_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING'),
    byRef: db.prepare('SELECT booking_id FROM payment_refs WHERE provider = ? AND ref = ?'),
  };
  return {
    async enqueue(j) {
      q.enqueue.run(j.id, j.kind, j.booking_id, JSON.stringify(j.payload), j.created_ms, j.created_ms);
    },
    async claimDue(nowMs, limit, leaseUntilMs) {
      return q.due(nowMs, limit, leaseUntilMs).map(toJob);
    },
    async finish(id, n) {
      q.finish(id, n);
    },
    async get(id) {
      const r = q.get.get(id) as Row | undefined;
      return r ? toJob(r) : null;
    },
    async forBooking(bookingId) {
      return (q.forBooking.all(bookingId) as Row[]).map(toJob);
    },
    async recordEvent(provider, eventId, nowMs) {
      return q.event.run(provider, eventId, nowMs).changes > 0;
    },
    async linkRef(provider, ref, bookingId) {
      q.link.run(provider, ref, bookingId);
    },
    async bookingByRef(provider, ref) {
      const r = q.byRef.get(provider, ref) as { booking_id: string } | undefined;
      return r ? r.booking_id : null;
    },
  };
}
