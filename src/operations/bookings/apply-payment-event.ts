/**
 * The payment provider reports something (a checkout created, paid or expired, a refund, a
 * dispute): applied to its booking in one transaction, once per provider event. Business-only: the
 * provider's webhook door and the payment worker call it as the business after verifying what they
 * received; no MCP tool. The business may also post an event itself (reconciliation), audited.
 */
import { z } from 'zod';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, requireBusiness } from '../core/define.js';
import { invalidRequest } from '../core/errors.js';
import { PAYMENT_EVENT } from '../payment-events.js';
import { applyProviderEvent } from '../payments/provider-events.js';

export const applyPaymentEvent = defineOperation({
  name: 'apply_payment_event',
  rest: { method: 'POST', path: '/admin/payments/events', input: 'body' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.bookings',
  paymentEvents: true,
  summary:
    'Apply what the payment provider reported (checkout paid or expired, refund, dispute) to its booking, once per event.',
  // The provider's name is its adapter's (src/payments/): checked against the business's in the handler.
  input: z.object({ provider: z.string().min(1).max(64), event: PAYMENT_EVENT }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const own = ctx.biz.provider?.name;
    if (inp.provider !== own) {
      const message = own
        ? `must be "${own}", the business's payment provider`
        : 'this business takes no payments through a provider';
      throw invalidRequest(`provider ${message}.`, [{ field: 'provider', message }]);
    }
    return applyProviderEvent(ctx, inp.provider, inp.event);
  },
});
