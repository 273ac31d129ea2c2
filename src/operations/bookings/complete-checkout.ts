/**
 * In a sandbox the checkout page stands in for a payment processor: "pay" records the payment as
 * confirm-payment would, "cancel" abandons it, and either way the buyer is sent back to the
 * platform's `post_payment_return_request` URL with its params appended verbatim.
 */
import { z } from 'zod';
import { ProtocolError } from '../errors.js';
import { defineOperation, ok } from '../define.js';
import { checkoutView } from '../steps/booking-views.js';
import { id } from '../schemas.js';
import { confirmPayment } from './confirm-payment.js';

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
    const { v, due, currency } = await checkoutView(ctx, inp.booking_id);
    if ((inp.choice ?? 'pay') === 'pay' && v.state === 'due' && due !== undefined) {
      // Outside a sandbox this page never takes money: the business's payment provider does.
      if (!v.sandbox) throw new ProtocolError('method_not_allowed', 'Payments for this business are taken by its payment provider.');
      const business = { ...ctx, caller: { principal: 'business', profile: null, business: true } };
      await confirmPayment.handle(
        { booking_id: inp.booking_id, payment_result: { status: 'paid', transaction_id: ctx.ids.next('demo_txn'), amount_paid: due, currency: currency! } },
        business,
      );
      return ok({ checkout: (await checkoutView(ctx, inp.booking_id)).v });
    }
    return ok({ checkout: v });
  },
});
