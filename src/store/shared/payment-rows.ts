/** Payment job rows as both engines read them (BIGINT columns arrive as strings from PostgreSQL). */
import type { PaymentJob, PaymentRepo } from '../payment-port.js';
import type { LeasedQueue } from './leased-queue.js';

export type PaymentJobRow = Omit<PaymentJob, 'payload' | 'result' | 'attempts' | 'next_attempt_ms' | 'created_ms'> & {
  payload: string;
  result: string | null;
  attempts: number | string;
  next_attempt_ms: number | string;
  created_ms: number | string;
};

export const toPaymentJob = (r: PaymentJobRow): PaymentJob => ({
  id: r.id,
  kind: r.kind,
  booking_id: r.booking_id,
  payload: JSON.parse(r.payload) as Record<string, unknown>,
  status: r.status,
  attempts: Number(r.attempts),
  next_attempt_ms: Number(r.next_attempt_ms),
  created_ms: Number(r.created_ms),
  last_error: r.last_error,
  result: r.result === null ? null : (JSON.parse(r.result) as Record<string, unknown>),
});

export const PAYMENT_JOB_COLUMNS =
  'id, kind, booking_id, payload, status, attempts, next_attempt_ms, created_ms, last_error, result';

/** The payment worker's queue: pending jobs by their next attempt. */
export const PAYMENT_JOB_QUEUE: LeasedQueue<Parameters<PaymentRepo['finish']>[1]> = {
  table: 'payment_jobs',
  columns: PAYMENT_JOB_COLUMNS,
  waiting: 'pending',
  dueColumn: 'next_attempt_ms',
  finish: {
    columns: ['status', 'attempts', 'next_attempt_ms', 'last_error', 'result'],
    values: (n) => [
      n.status,
      n.attempts,
      n.next_attempt_ms,
      n.last_error,
      n.result === null ? null : JSON.stringify(n.result),
    ],
  },
};
