/**
 * Recording a payment on a booking (spec 5.5.1), shared by confirm-payment and the sandbox checkout:
 * the action completes, the payment block says what was paid, and once nothing else is pending the
 * booking is confirmed (or waits for the business in manual mode), its expiry and reminders follow.
 */
import type { Action, BookingRecord } from '../../domain/index.js';
import { emitBookingEvent, move, remindIfInsideWindow, touch } from './booking-lifecycle.js';
import { iso, type OperationContext } from '../context.js';

export interface PaymentReport {
  amount_paid: number;
  transaction_id: string;
  order_reference?: string;
}

/** Record `pr` against the pending payment `action` of `rec`; the caller checked amount and currency. */
export async function recordPayment(ctx: OperationContext, rec: BookingRecord, action: Action, pr: PaymentReport): Promise<void> {
  const b = rec.booking;
  action.status = 'completed';
  rec.priv.amount_paid += pr.amount_paid;
  if (b.payment) {
    b.payment.status = b.payment.timing === 'deposit_required' && rec.priv.amount_paid < rec.priv.price_total ? 'deposit_paid' : 'paid';
    b.payment.amount_due = 0;
    b.payment.transaction_id = pr.transaction_id;
    if (pr.order_reference) b.payment.order_reference = pr.order_reference;
  }
  const stillPending = b.actions!.some((a) => a.status === 'pending');
  if (!stillPending) {
    const manual = b.confirmation_mode === 'manual' && !rec.priv.confirmed_once;
    move(rec, manual ? 'await_confirmation' : 'complete_actions', ctx);
    if (!manual) {
      delete b.expires_at;
      rec.priv.expires_at_ms = undefined;
      rec.priv.confirmed_once = true;
      await ctx.tx.claims.setExpiry(b.id, null);
    } else {
      const until = Math.min(ctx.now + ctx.biz.def.settings.manual_confirmation_ttl_seconds * 1000, rec.priv.start_ms);
      rec.priv.expires_at_ms = until;
      b.expires_at = iso(until);
      await ctx.tx.claims.setExpiry(b.id, until);
    }
  } else {
    touch(rec, ctx);
  }
  await ctx.tx.bookings.update(rec);
  if (b.status === 'confirmed') {
    emitBookingEvent(ctx, 'booking.confirmed', rec);
    remindIfInsideWindow(ctx, rec);
  }
}
