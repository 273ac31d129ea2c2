/**
 * The business-hosted checkout page behind every payment action's `continue_url` (spec 8.5.4,
 * 8.5.5). Reading it shows what is due and never buyer data; after the action expires it says so
 * explicitly. In a sandbox it also stands in for a payment processor: "pay" records the payment as
 * confirm-payment would, "cancel" abandons it, and either way the buyer is sent back to the
 * platform's `post_payment_return_request` URL with its params appended verbatim.
 */
import { z } from 'zod';
import { formatMoney, formatInstant } from '../../domain/index.js';
import { ProtocolError } from '../errors.js';
import { defineOperation, ok } from '../define.js';
import { expireIfDue } from '../engine/bookings.js';
import type { OperationContext } from '../runtime.js';
import { id } from '../schemas.js';
import { confirmPayment } from './confirm-payment.js';

export interface CheckoutView {
  booking_id: string;
  service_name: string;
  start: string;
  zone: string;
  state: 'due' | 'paid' | 'expired' | 'not_applicable';
  amount_due?: string;
  expires_at?: string;
  return_url?: string;
  sandbox: boolean;
}

async function view(ctx: OperationContext, bookingId: string): Promise<{ v: CheckoutView; due?: number; currency?: string }> {
  const rec = await ctx.tx.bookings.get(bookingId);
  if (!rec) throw new ProtocolError('not_found', 'There is no checkout for this link.', { detailCode: 'checkout_not_found' });
  await expireIfDue(ctx, rec);
  const b = rec.booking;
  const action = b.actions?.find((a) => a.type === 'payment' && a.status === 'pending');
  const lastPayment = b.actions?.filter((a) => a.type === 'payment').at(-1);
  const zone = ctx.biz.zone;
  const v: CheckoutView = {
    booking_id: b.id,
    service_name: b.service_name,
    start: formatInstant(rec.priv.start_ms, zone),
    zone,
    state: action ? 'due' : lastPayment?.status === 'expired' ? 'expired' : lastPayment?.status === 'completed' ? 'paid' : 'not_applicable',
    sandbox: ctx.biz.sandbox && !ctx.biz.def.settings.checkout_url_template,
  };
  const ret = rec.priv.post_payment_return_request;
  if (ret) {
    const u = new URL(ret.url);
    for (const [k, val] of Object.entries(ret.params ?? {})) u.searchParams.append(k, val);
    v.return_url = u.toString();
  }
  if (action?.payment_context) {
    v.amount_due = formatMoney(action.payment_context.amount_due, action.payment_context.currency);
    v.expires_at = formatInstant(Date.parse(action.expires_at), zone);
    return { v, due: action.payment_context.amount_due, currency: action.payment_context.currency };
  }
  return { v };
}

export const viewCheckout = defineOperation({
  name: 'view_checkout',
  rest: { method: 'GET', path: '/checkout/{booking_id}', input: 'none' },
  access: 'public',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  writes: true,
  summary: 'The hosted checkout page of a payment action (HTML for browsers, JSON otherwise).',
  input: z.object({ booking_id: id('The booking being paid.') }),
  async handle(inp, ctx) {
    return ok({ checkout: (await view(ctx, inp.booking_id)).v });
  },
});

export const completeCheckout = defineOperation({
  name: 'complete_checkout',
  rest: { method: 'POST', path: '/checkout/{booking_id}', input: 'body' },
  access: 'public',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  writes: true,
  summary: 'Sandbox payment processor: pay or abandon the checkout, then return to the platform.',
  input: z.object({ booking_id: id('The booking being paid.'), choice: z.enum(['pay', 'cancel']).optional() }),
  async handle(inp, ctx) {
    const { v, due, currency } = await view(ctx, inp.booking_id);
    if ((inp.choice ?? 'pay') === 'pay' && v.state === 'due' && due !== undefined) {
      // Outside a sandbox this page never takes money: the business's payment provider does.
      if (!v.sandbox) throw new ProtocolError('method_not_allowed', 'Payments for this business are taken by its payment provider.');
      const business = { ...ctx, caller: { principal: 'business', profile: null, business: true } };
      await confirmPayment.handle(
        { booking_id: inp.booking_id, payment_result: { status: 'paid', transaction_id: ctx.ids.next('demo_txn'), amount_paid: due, currency: currency! } },
        business,
      );
      return ok({ checkout: (await view(ctx, inp.booking_id)).v });
    }
    return ok({ checkout: v });
  },
});
