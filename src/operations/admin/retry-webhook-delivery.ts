import { z } from 'zod';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { ProtocolError } from '../core/errors.js';
import { Out } from '../schemas.js';

/** Put one failed delivery back in the queue, due now; the dispatcher sends the same signed body again. */
export const retryWebhookDelivery = defineOperation({
  name: 'retry_webhook_delivery',
  rest: { method: 'POST', path: '/admin/webhooks/deliveries/{delivery_id}/retry', input: 'none' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.bookings',
  dashboard: 'delivery_retry',
  output: { requeued: Out.object },
  summary: 'Retry a failed webhook delivery now.',
  input: z.object({ delivery_id: z.coerce.number().int().positive().describe('The delivery id from the log.') }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const failed = await ctx.tx.webhooks.list({ status: 'failed', limit: 10_000 });
    if (!failed.some((d) => d.id === inp.delivery_id)) {
      throw new ProtocolError(
        'not_found',
        `No failed delivery ${inp.delivery_id}: only failed deliveries can be retried.`,
      );
    }
    await ctx.tx.webhooks.retry(inp.delivery_id, ctx.now);
    ctx.env?.admin?.nudgeDeliveries();
    return ok({ requeued: { id: inp.delivery_id } });
  },
});
