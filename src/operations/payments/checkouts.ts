/** The provider's record of a booking's money, and the checkout a new payment action gets there and the job that creates it after commit (no imports of the lifecycle). */
import type { BookingRecord, ProviderCheckout, ProviderMoney } from '../../domain/index.js';
import type { OperationContext } from '../core/context.js';

/** The booking's record at the provider, begun under `provider` (the name its ids and events are stored under) when there is none yet. */
export function moneyOf(rec: BookingRecord, provider = ''): ProviderMoney {
  return (rec.priv.provider ??= { provider, checkouts: [], refunds: [], refunded: {}, disputes: [], mismatches: [] });
}

/** Note the checkout of the payment action about to be appended to the booking's actions; returns its id. */
export function trackCheckout(ctx: OperationContext, rec: BookingRecord, amount: number, currency: string): string {
  const actionId = ctx.ids.next('act');
  moneyOf(rec, ctx.biz.provider?.name ?? ctx.biz.payments).checkouts.push({
    action_id: actionId,
    action_index: rec.booking.actions?.length ?? 0,
    amount,
    currency,
    status: 'requested',
  });
  return actionId;
}

/** Our page a buyer lands on after paying elsewhere: it sends them on to the platform's return URL (spec 8.5.5). */
export function returnPageUrl(ctx: OperationContext, bookingId: string): string {
  return `${ctx.biz.publicUrl}/checkout/${encodeURIComponent(bookingId)}/return`;
}

/** The job that creates a checkout at the provider; the id is the provider's idempotency key too. */
export function checkoutJobId(co: ProviderCheckout, attempt = 1): string {
  return attempt === 1 ? `checkout:${co.action_id}` : `checkout:${co.action_id}:${attempt}`;
}

/**
 * Write the jobs that create the provider's checkout for every action still waiting for one (after
 * commit; never inside this transaction). The session expires with the action, but within the
 * life the provider's checkout accepts (`checkoutTtlMs`, its adapter's; see docs/DECISIONS.md: our own expiry still ends the booking on time, and a
 * payment that lands after it is refunded).
 */
export async function queueCheckouts(ctx: OperationContext, rec: BookingRecord, attempt = 1): Promise<void> {
  const ttl = ctx.biz.provider?.checkoutTtlMs;
  if (ctx.biz.payments !== 'provider' || !ttl) return;
  const b = rec.booking;
  for (const co of rec.priv.provider?.checkouts ?? []) {
    const action = b.actions?.[co.action_index];
    if (!action || action.status !== 'pending' || (co.status !== 'requested' && attempt === 1)) continue;
    const expiresMs = Date.parse(action.expires_at);
    await ctx.tx.payments.enqueue({
      id: checkoutJobId(co, attempt),
      kind: 'checkout',
      booking_id: b.id,
      created_ms: ctx.now,
      payload: {
        booking_id: b.id,
        action_id: co.action_id,
        amount: co.amount,
        currency: co.currency,
        description: action.payment_context?.description ?? b.service_name,
        expires_ms: Math.min(Math.max(expiresMs, ctx.now + ttl.min + 60_000), ctx.now + ttl.max - 60_000),
        success_url: `${returnPageUrl(ctx, b.id)}?result=paid`,
        cancel_url: `${returnPageUrl(ctx, b.id)}?result=canceled`,
      },
    });
    ctx.queued?.();
  }
}

/**
 * The checkouts of actions no longer pending (the booking ended) are closed: marked expired here,
 * so a payment that still lands on one is late and refunded, and each session the provider made is
 * expired after commit by a job (`expire:<session>`, the provider's idempotency key), so that the
 * buyer cannot pay on it at all. A checkout whose session is not made yet is closed when it is.
 */
export async function closeCheckouts(ctx: OperationContext, rec: BookingRecord): Promise<void> {
  if (ctx.biz.payments !== 'provider') return;
  for (const co of rec.priv.provider?.checkouts ?? []) {
    if (co.status !== 'open' && co.status !== 'requested') continue;
    if (rec.booking.actions?.[co.action_index]?.status === 'pending') continue;
    co.status = 'expired';
    if (co.session_id) await queueExpiry(ctx, rec, co);
  }
}

/** The job that expires a checkout's session at the provider (after commit). */
export async function queueExpiry(ctx: OperationContext, rec: BookingRecord, co: ProviderCheckout): Promise<void> {
  if (!co.session_id) return;
  await ctx.tx.payments.enqueue({
    id: `expire:${co.session_id}`,
    kind: 'expire_checkout',
    booking_id: rec.booking.id,
    created_ms: ctx.now,
    payload: { booking_id: rec.booking.id, action_id: co.action_id, session_id: co.session_id },
  });
  ctx.queued?.();
}

export { paidBeforeAppointment } from '../../domain/index.js';
