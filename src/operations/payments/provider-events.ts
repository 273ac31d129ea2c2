/**
 * What the payment provider reports, applied to the booking it concerns, in one transaction each:
 * a checkout created, paid or expired; a refund confirmed or failed; a dispute opened or closed.
 * Each provider event is applied once (its id is recorded in the same transaction), and each paid
 * checkout once whatever the event that reports it (by the provider's payment), in any order:
 * amounts are cumulative, a dispute closed before it was opened is opened first, and a payment
 * that lands after the action lapsed is refunded rather than reviving the booking.
 */
import {
  errorMessage,
  formatMoney,
  infoMessage,
  nextDisputeStatus,
  type BookingRecord,
  type Message,
} from '../../domain/index.js';
import { ok, outcome, type OperationResult } from '../core/define.js';
import { iso, type OperationContext } from '../core/context.js';
import { endBooking, expireIfDue } from '../bookings/lifecycle.js';
import { moneyOf, queueCheckouts, queueExpiry } from './checkouts.js';
import { recordPayment } from './record-payment.js';
import { recordRefunded, requestRefund } from './provider-money.js';
import { enterDisputeStatus, openDisputeOn } from './disputes.js';
import type { PaymentEvent } from '../payment-events.js';

const already = (what: string): OperationResult => ({ data: {}, messages: [infoMessage('already_in_state', what)] });
const unknown = (what: string): OperationResult =>
  outcome(errorMessage('booking_not_found', `No booking of this business matches ${what}.`));

export async function applyProviderEvent(
  ctx: OperationContext,
  provider: string,
  ev: PaymentEvent,
): Promise<OperationResult> {
  if ('event_id' in ev && !(await ctx.tx.payments.recordEvent(provider, ev.event_id, ctx.now)))
    return already(`Event ${ev.event_id} was already applied.`);
  switch (ev.type) {
    case 'ignored':
      return ok({});
    case 'checkout_created':
    case 'checkout_completed':
    case 'checkout_expired': {
      const rec = await ctx.tx.bookings.get(ev.booking_id);
      const co = rec?.priv.provider?.checkouts.find((c) => c.action_id === ev.action_id);
      if (!rec || !co) return unknown(`checkout ${ev.action_id}`);
      if (ev.type === 'checkout_created') {
        if (co.status === 'requested') co.status = 'open';
        co.session_id = ev.session_id;
        co.url = ev.url;
        // Made after its booking ended (the create job ran late): closed at once.
        if (co.status === 'expired' && rec.booking.actions?.[co.action_index]?.status !== 'pending')
          await queueExpiry(ctx, rec, co);
        await ctx.tx.bookings.update(rec);
        return ok({ booking: rec.booking });
      }
      await expireIfDue(ctx, rec);
      const action = rec.booking.actions?.[co.action_index];
      if (ev.type === 'checkout_expired')
        return checkoutExpired(
          ctx,
          rec,
          co.action_index,
          action?.status === 'pending' && co.session_id === ev.session_id,
        );
      return checkoutPaid(ctx, provider, rec, ev, action?.status === 'pending');
    }
    case 'refund_result':
    case 'charge_refunded': {
      const bookingId =
        ev.type === 'refund_result' ? ev.booking_id : await ctx.tx.payments.bookingByRef(provider, ev.payment_ref);
      const rec = bookingId ? await ctx.tx.bookings.get(bookingId) : null;
      if (!rec) return unknown(`payment ${ev.payment_ref}`);
      const m = moneyOf(rec);
      if (ev.type === 'refund_result') {
        const r = m.refunds.find((x) => x.job_id === ev.job_id);
        if (r && ev.refund_id) r.refund_id = ev.refund_id;
        if (r && ev.status === 'failed' && r.status === 'requested') r.status = 'failed';
        if (r && ev.status === 'succeeded' && r.status === 'requested')
          recordRefunded(ctx, rec, r.payment_ref, (m.refunded[r.payment_ref] ?? 0) + r.amount);
      } else {
        recordRefunded(ctx, rec, ev.payment_ref, ev.amount_refunded);
      }
      await ctx.tx.bookings.update(rec);
      return ok({ booking: rec.booking });
    }
    case 'dispute_opened':
    case 'dispute_closed': {
      const bookingId = await ctx.tx.payments.bookingByRef(provider, ev.payment_ref);
      const rec = bookingId ? await ctx.tx.bookings.get(bookingId) : null;
      if (!rec) return unknown(`payment ${ev.payment_ref}`);
      const m = moneyOf(rec);
      let d = m.disputes.find((x) => x.dispute_id === ev.dispute_id);
      if (!d)
        m.disputes.push((d = { dispute_id: ev.dispute_id, amount: ev.amount, reason: ev.reason, status: 'opened' }));
      // The spec keeps one dispute per booking: a later one only adds to the provider's record.
      if (!rec.booking.dispute) openDisputeOn(ctx, rec, ev.reason);
      if (ev.type === 'dispute_closed') {
        d.status = ev.outcome;
        const move = ev.outcome === 'buyer' ? 'resolve_buyer' : 'resolve_business';
        if (nextDisputeStatus(rec.booking.dispute!.status, move))
          enterDisputeStatus(ctx, rec, move, ev.outcome === 'buyer' ? Math.min(ev.amount, rec.priv.amount_paid) : 0);
      }
      await ctx.tx.bookings.update(rec);
      return ok({ booking: rec.booking });
    }
  }
}

/** The session ran out: a pending action lapses as its own expiry makes it, unless the action outlives the session (a new one is made). */
async function checkoutExpired(
  ctx: OperationContext,
  rec: BookingRecord,
  index: number,
  pending: boolean,
): Promise<OperationResult> {
  const co = rec.priv.provider!.checkouts.find((c) => c.action_index === index)!;
  if (!pending) {
    if (co.status === 'open' || co.status === 'requested') co.status = 'expired';
    await ctx.tx.bookings.update(rec);
    return already('The payment action is no longer pending.');
  }
  const action = rec.booking.actions![index];
  if (Date.parse(action.expires_at) > ctx.now + 60_000) {
    // A provider caps a session's life (its adapter's `checkoutTtlMs`): an action that lasts longer gets a fresh session.
    co.status = 'requested';
    await ctx.tx.bookings.update(rec);
    await queueCheckouts(ctx, rec, Math.floor(ctx.now / 1000));
    return ok({ booking: rec.booking });
  }
  co.status = 'expired';
  await endBooking(ctx, rec, 'expire', {
    reason: 'expired',
    canceled_by: 'system',
    fee: 0,
    refund_amount: rec.priv.amount_paid,
    canceled_at: iso(ctx.now),
  });
  return ok({ booking: rec.booking });
}

async function checkoutPaid(
  ctx: OperationContext,
  provider: string,
  rec: BookingRecord,
  ev: Extract<PaymentEvent, { type: 'checkout_completed' }>,
  pending: boolean,
): Promise<OperationResult> {
  const m = moneyOf(rec);
  const co = m.checkouts.find((c) => c.action_id === ev.action_id)!;
  co.session_id ??= ev.session_id;
  if (!ev.paid) return already('The checkout completed without a payment yet.');
  // The same payment reported again under another event id (a second integration, the business's
  // reconciliation): it was applied, or refunded as late, once; it is neither a new payment nor a late one.
  if ((co.status === 'paid' || co.status === 'late') && co.payment_ref === ev.payment_ref) {
    return already(`Payment ${ev.payment_ref} of this checkout was already applied.`);
  }
  co.payment_ref = ev.payment_ref;
  await ctx.tx.payments.linkRef(provider, ev.payment_ref, rec.booking.id);
  const b = rec.booking;
  let refused: Message | undefined;
  if (ev.currency.toUpperCase() !== co.currency || ev.amount !== co.amount) {
    m.mismatches.push({
      event_id: ev.event_id,
      amount: ev.amount,
      currency: ev.currency.toUpperCase(),
      at: iso(ctx.now),
    });
    refused = errorMessage(
      'payment_amount_mismatch',
      `The provider reported ${formatMoney(ev.amount, ev.currency.toUpperCase())}; ${formatMoney(co.amount, co.currency)} was due. The booking is unchanged.`,
    );
  } else if (!pending) {
    // Paid after the action lapsed (the session outlives short payment windows): give the money back.
    co.status = 'late';
    await requestRefund(ctx, rec, co.amount);
    refused = errorMessage('payment_expired', 'The payment arrived after the payment window closed; it is refunded.');
  }
  if (refused) {
    await ctx.tx.bookings.update(rec);
    return outcome(refused, { booking: b });
  }
  co.status = 'paid';
  await recordPayment(ctx, rec, b.actions![co.action_index], {
    amount_paid: ev.amount,
    transaction_id: ev.payment_ref,
    order_reference: ev.session_id,
  });
  return ok({ booking: b });
}
