/**
 * Recording a payment on a booking (spec 5.5.1), shared by confirm-payment and the sandbox checkout:
 * the action completes, the payment block says what was paid, and once nothing else is pending the
 * booking is confirmed (or waits for the business in manual mode), its expiry and reminders follow.
 */
import type { Action, BookingRecord } from '../../domain/index.js';
import { movePayment, touch, transition } from '../bookings/effects.js';
import type { OperationContext } from '../core/context.js';

export interface PaymentReport {
  amount_paid: number;
  transaction_id: string;
  order_reference?: string;
}

/** Record `pr` against the pending payment `action` of `rec`; the caller checked amount and currency. */
export async function recordPayment(
  ctx: OperationContext,
  rec: BookingRecord,
  action: Action,
  pr: PaymentReport,
): Promise<void> {
  const b = rec.booking;
  action.status = 'completed';
  rec.priv.amount_paid += pr.amount_paid;
  if (b.payment) {
    movePayment(
      b,
      b.payment.timing === 'deposit_required' && rec.priv.amount_paid < rec.priv.price_total ? 'pay_deposit' : 'pay',
    );
    b.payment.amount_due = 0;
    b.payment.transaction_id = pr.transaction_id;
    if (pr.order_reference) b.payment.order_reference = pr.order_reference;
  }
  if (b.actions!.some((a) => a.status === 'pending')) {
    touch(rec, ctx);
    await ctx.tx.bookings.update(rec);
    return;
  }
  // Nothing else pending: confirmed, or (manual mode, never confirmed yet) back to the business.
  const manual = b.confirmation_mode === 'manual' && !rec.priv.confirmed_once;
  await transition(ctx, rec, manual ? 'await_confirmation' : 'complete_actions');
}
