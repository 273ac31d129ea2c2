/**
 * What the business sees of a booking's money: what was paid, refunded and disputed, with the
 * payment provider's ids (sessions, payment intents, refunds, disputes), and the provider calls
 * still waiting or given up.
 */
import type { BookingRecord } from '../../domain/index.js';
import type { PaymentJob } from '../../store/index.js';
import { refundableAmount } from '../payments/provider-money.js';

export interface MoneyView {
  currency: string;
  paid: number;
  refunded: number;
  /** What the business may still refund (the refund form's limit). */
  refundable: number;
  provider?: string;
  /** Refunds the business made itself, with its reason. */
  business_refunds: Array<{ amount: number; reason: string; at: string; through_provider: boolean }>;
  payments: Array<{ action_id: string; amount: number; status: string; session_id?: string; payment_ref?: string }>;
  refunds: Array<{ amount: number; status: string; refund_id?: string; payment_ref: string }>;
  disputes: Array<{ dispute_id: string; amount: number; reason: string; status: string }>;
  mismatches: Array<{ event_id: string; amount: number; currency: string; at: string }>;
  jobs: Array<{ id: string; kind: string; status: string; attempts: number; last_error: string | null }>;
}

export function moneyView(rec: BookingRecord, jobs: readonly PaymentJob[], viaProvider: boolean): MoneyView {
  const m = rec.priv.provider;
  const refundedByProvider = m ? Object.values(m.refunded).reduce((n, x) => n + x, 0) : 0;
  const own = rec.priv.business_refunds ?? [];
  // Refunds recorded at once were taken off what was collected: paid says what came in.
  const recordedAtOnce = own.filter((r) => !r.provider_jobs).reduce((n, r) => n + r.amount, 0);
  return {
    currency: rec.booking.payment?.currency ?? '',
    paid: rec.priv.amount_paid + recordedAtOnce,
    refunded: m ? refundedByProvider : (rec.booking.cancellation?.refund_amount ?? 0) + recordedAtOnce,
    refundable: refundableAmount(rec, viaProvider),
    ...(m ? { provider: m.provider } : {}),
    business_refunds: own.map((r) => ({
      amount: r.amount,
      reason: r.reason,
      at: r.at,
      through_provider: !!r.provider_jobs,
    })),
    payments: (m?.checkouts ?? []).map((c) => ({
      action_id: c.action_id,
      amount: c.amount,
      status: c.status,
      session_id: c.session_id,
      payment_ref: c.payment_ref,
    })),
    refunds: (m?.refunds ?? []).map((r) => ({
      amount: r.amount,
      status: r.status,
      refund_id: r.refund_id,
      payment_ref: r.payment_ref,
    })),
    disputes: m?.disputes ?? [],
    mismatches: m?.mismatches ?? [],
    jobs: jobs.map((j) => ({
      id: j.id,
      kind: j.kind,
      status: j.status,
      attempts: j.attempts,
      last_error: j.last_error,
    })),
  };
}
