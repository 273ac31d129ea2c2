/** The payment jobs, applied provider events and provider ids on PostgreSQL. */
import type { PaymentRepo } from '../payment-port.js';
import { PAYMENT_JOB_COLUMNS, PAYMENT_JOB_QUEUE, toPaymentJob, type PaymentJobRow } from '../shared/payment-rows.js';
import type { PgSession } from './session.js';
import { pgFinishLeased, pgLeaseDue } from './leased-queue.js';

export function pgPayments(s: PgSession): PaymentRepo {
  return {
    async enqueue(j) {
      await s.query(
        `INSERT INTO payment_jobs (id, kind, booking_id, payload, status, attempts, next_attempt_ms, created_ms) VALUES ($1, $2, $3, $4, 'pending', 0, $5, $5)
         ON CONFLICT (id) DO NOTHING`,
        [j.id, j.kind, j.booking_id, JSON.stringify(j.payload), j.created_ms],
      );
    },
    async claimDue(nowMs, limit, leaseUntilMs) {
      return (await pgLeaseDue<PaymentJobRow>(s, PAYMENT_JOB_QUEUE, nowMs, limit, leaseUntilMs)).map(toPaymentJob);
    },
    async finish(id, n) {
      await pgFinishLeased(s, PAYMENT_JOB_QUEUE, id, n);
    },
    async get(id) {
      const r = await s.rows<PaymentJobRow>(`SELECT ${PAYMENT_JOB_COLUMNS} FROM payment_jobs WHERE id = $1`, [id]);
      return r.length > 0 ? toPaymentJob(r[0]) : null;
    },
    async forBooking(bookingId) {
      return (
        await s.rows<PaymentJobRow>(
          `SELECT ${PAYMENT_JOB_COLUMNS} FROM payment_jobs WHERE booking_id = $1 ORDER BY created_ms, id`,
          [bookingId],
        )
      ).map(toPaymentJob);
    },
    async recordEvent(provider, eventId, nowMs) {
      const r = await s.query(
        'INSERT INTO payment_events (provider, event_id, received_ms) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [provider, eventId, nowMs],
      );
      return (r.rowCount ?? 0) > 0;
    },
    async linkRef(provider, ref, bookingId) {
      await s.query('INSERT INTO payment_refs (provider, ref, booking_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        provider,
        ref,
        bookingId,
      ]);
    },
    async bookingByRef(provider, ref) {
      const r = await s.rows<{ booking_id: string }>(
        'SELECT booking_id FROM payment_refs WHERE provider = $1 AND ref = $2',
        [provider, ref],
      );
      return r.length > 0 ? r[0].booking_id : null;
    },
  };
}
