/**
 * Money that moves through the business's payment provider (its adapter's): the checkout a payment
 * action gets, the refunds a cancellation asks for, and what the provider reports back. Nothing
 * here calls the provider: a job is written in the booking's own transaction and the payment worker
 * calls the provider after commit; its answers and the provider's events come back as
 * `apply_payment_event` calls, applied here in one transaction each.
 */
import type { BookingRecord, ProviderMoney } from '../../domain/index.js';
import type { OperationContext } from '../core/context.js';
import { emitBookingEvent, movePayment } from '../bookings/effects.js';
import { moneyOf } from './checkouts.js';

/** Does a refund of this booking go through the provider (it was paid there)? */
export function refundsThroughProvider(ctx: OperationContext, rec: BookingRecord): boolean {
  return (
    ctx.biz.payments === 'provider' &&
    (rec.priv.provider?.checkouts.some((c) => c.status === 'paid' && c.payment_ref) ?? false)
  );
}

/** What is asked or known refunded on one provider payment: the larger of our requests not failed and what the provider reported. */
function takenFrom(m: ProviderMoney, paymentRef: string): number {
  const asked = m.refunds
    .filter((r) => r.payment_ref === paymentRef && r.status !== 'failed')
    .reduce((n, r) => n + r.amount, 0);
  return Math.max(asked, m.refunded[paymentRef] ?? 0);
}

/**
 * What the business may still refund on a booking, in minor units: paid and neither refunded nor
 * asked to be. Through the provider, what is left on its payments (never more than was collected,
 * which a lost dispute lowers); otherwise what was collected less the cancellation's refund.
 */
export function refundableAmount(rec: BookingRecord, viaProvider: boolean): number {
  if (!viaProvider) return Math.max(0, rec.priv.amount_paid - (rec.booking.cancellation?.refund_amount ?? 0));
  const m = moneyOf(rec);
  // A late payment is refunded in full on arrival and was never counted as collected.
  const paid = m.checkouts.filter((co) => co.status === 'paid' && co.payment_ref);
  const left = paid.reduce((n, co) => n + Math.max(0, co.amount - takenFrom(m, co.payment_ref!)), 0);
  const taken = [...new Set(paid.map((co) => co.payment_ref!))].reduce((n, ref) => n + takenFrom(m, ref), 0);
  return Math.max(0, Math.min(left, rec.priv.amount_paid - taken));
}

/**
 * Ask the provider to refund `amount` (after commit, idempotent per request): taken from the
 * booking's payments, newest first. `booking.refund_issued` follows when the provider confirms.
 */
export async function requestRefund(ctx: OperationContext, rec: BookingRecord, amount: number): Promise<void> {
  const m = moneyOf(rec);
  let left = amount;
  for (const co of [...m.checkouts].reverse()) {
    if (left <= 0) break;
    if (co.status !== 'paid' && co.status !== 'late') continue;
    if (!co.payment_ref) continue;
    const part = Math.min(left, co.amount - takenFrom(m, co.payment_ref));
    if (part <= 0) continue;
    left -= part;
    const jobId = `refund:${rec.booking.id}:${m.refunds.length + 1}`;
    m.refunds.push({ job_id: jobId, amount: part, payment_ref: co.payment_ref, status: 'requested' });
    await ctx.tx.payments.enqueue({
      id: jobId,
      kind: 'refund',
      booking_id: rec.booking.id,
      created_ms: ctx.now,
      payload: { booking_id: rec.booking.id, payment_ref: co.payment_ref, amount: part, currency: co.currency },
    });
    ctx.queued?.();
  }
}

/**
 * The provider says `total` has been refunded on one payment (cumulative, as providers report it):
 * what is new is recorded on the booking's payment block and announced once with
 * `booking.refund_issued` (spec 5.5.1), whichever of the refund's answer and its event came first.
 */
export function recordRefunded(ctx: OperationContext, rec: BookingRecord, paymentRef: string, total: number): number {
  const m = moneyOf(rec);
  const before = m.refunded[paymentRef] ?? 0;
  const fresh = total - before;
  if (fresh <= 0) return 0;
  m.refunded[paymentRef] = total;
  let confirmed = fresh;
  for (const r of m.refunds) {
    if (confirmed <= 0) break;
    if (r.payment_ref === paymentRef && r.status === 'requested' && r.amount <= confirmed) {
      r.status = 'succeeded';
      confirmed -= r.amount;
    }
  }
  const refundedAll = Object.values(m.refunded).reduce((n, x) => n + x, 0);
  const b = rec.booking;
  movePayment(b, refundedAll >= rec.priv.amount_paid ? 'refund_all' : 'refund_part');
  emitBookingEvent(ctx, 'booking.refund_issued', rec, { refund_amount: fresh });
  return fresh;
}
