/**
 * In a sandbox the checkout page stands in for a payment processor: "pay" records the payment as
 * confirm-payment would, "cancel" abandons it, and either way the buyer is sent back to the
 * platform's `post_payment_return_request` URL with its params appended verbatim.
 */
import { z } from 'zod';
import { ProtocolError } from '../core/errors.js';
import { defineOperation, ok } from '../core/define.js';
import { checkoutView } from './views.js';
import { id } from '../schemas.js';
import { recordPayment } from '../payments/record-payment.js';

export const completeCheckout = defineOperation({
  name: 'complete_checkout',
  rest: { method: 'POST', path: '/checkout/{booking_id}', input: 'body' },
  access: 'public',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  writes: true,
  page: 'checkout_form',
  summary: 'Sandbox payment processor: pay or abandon the checkout, then return to the platform.',
  input: z.object({ booking_id: id('The booking being paid.'), choice: z.enum(['pay', 'cancel']).optional() }),
  async handle(inp, ctx) {
    const { v, due } = await checkoutView(ctx, inp.booking_id);
    if ((inp.choice ?? 'pay') === 'pay' && v.state === 'due' && due !== undefined) {
      // Outside a sandbox this page never takes money: the business's payment provider does.
      if (!v.sandbox)
        throw new ProtocolError('method_not_allowed', 'Payments for this business are taken by its payment provider.');
      // The page read the booking (and applied its expiry) in this transaction: a payment is pending on it.
      const transactionId = ctx.ids.next('demo_txn');
      const rec = (await ctx.tx.bookings.get(inp.booking_id))!;
      const action = rec.booking.actions!.find((a) => a.type === 'payment' && a.status === 'pending')!;
      await recordPayment(ctx, rec, action, { transaction_id: transactionId, amount_paid: due });
      return ok({ checkout: (await checkoutView(ctx, inp.booking_id)).v });
    }
    return ok({ checkout: v });
  },
});
