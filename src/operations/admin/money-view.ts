/**
 * What the business sees of a booking's money: what was paid, refunded and disputed, with the
 * payment provider's ids (sessions, payment intents, refunds, disputes), and the provider calls
 * still waiting or given up.
 */
import type { BookingRecord } from '../../domain/index.js';
import type { PaymentJob } from '../../store/index.js';

export interface MoneyView {
  currency: string;
  paid: number;
  refunded: number;
  provider?: string;
  payments: Array<{ action_id: string; amount: number; status: string; session_id?: string; payment_ref?: string }>;
  refunds: Array<{ amount: number; status: string; refund_id?: string; payment_ref: string }>;
  disputes: Array<{ dispute_id: string; amount: number; reason: string; status: string }>;
  mismatches: Array<{ event_id: string; amount: number; currency: string; at: string }>;
  jobs: Array<{ id: string; kind: string; status: string; attempts: number; last_error: string | null }>;
}

export function moneyView(rec: BookingRecord, jobs: readonly PaymentJob[]): MoneyView {
  const m = rec.priv.provider;
  const refundedByProvider = m ? Object.values(m.refunded).reduce((n, x) => n + x, 0) : 0;
  return {
    currency: rec.booking.payment?.currency ?? '',
    paid: rec.priv.amount_paid,
    refunded: m ? refundedByProvider : (rec.booking.cancellation?.refund_amount ?? 0),
    ...(m ? { provider: m.provider } : {}),
    payments: (m?.checkouts ?? []).map((c) => ({ action_id: c.action_id, amount: c.amount, status: c.status, session_id: c.session_id, payment_ref: c.payment_ref })),
    refunds: (m?.refunds ?? []).map((r) => ({ amount: r.amount, status: r.status, refund_id: r.refund_id, payment_ref: r.payment_ref })),
    disputes: m?.disputes ?? [],
    mismatches: m?.mismatches ?? [],
    jobs: jobs.map((j) => ({ id: j.id, kind: j.kind, status: j.status, attempts: j.attempts, last_error: j.last_error })),
  };
}
