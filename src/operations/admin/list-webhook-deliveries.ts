import { z } from 'zod';
import { isoUtc } from '../../domain/index.js';
import type { WebhookDelivery } from '../../store/index.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { BUSINESS_READ } from '../change-rows.js';
import { Out } from '../schemas.js';

function presentDelivery(d: WebhookDelivery): Record<string, unknown> {
  return {
    id: d.id,
    event_id: d.event_id,
    event: d.event,
    resource_id: d.order_key,
    target_url: d.target_url,
    status: d.status,
    attempts: d.attempts,
    created_at: isoUtc(d.created_ms),
    next_attempt_at: d.status === 'pending' ? isoUtc(d.next_attempt_ms) : null,
    delivered_at: d.delivered_ms === null ? null : isoUtc(d.delivered_ms),
    last_status: d.last_status,
    last_error: d.last_error,
    last_latency_ms: d.last_latency_ms,
  };
}

/** The webhook delivery log: newest first, optionally only one status (failed ones to retry). */
export const listWebhookDeliveries = defineOperation({
  name: 'list_webhook_deliveries',
  rest: { method: 'GET', path: '/admin/webhooks/deliveries', input: 'query' },
  ...BUSINESS_READ,
  dashboard: 'deliveries',
  output: { deliveries: Out.objects },
  summary: 'The webhook delivery log, newest first: target, status, attempts, last answer.',
  input: z.object({
    status: z.enum(['pending', 'delivered', 'failed', 'canceled', 'skipped']).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const list = await ctx.tx.webhooks.list({ status: inp.status, limit: inp.limit });
    return ok({ deliveries: list.map(presentDelivery) });
  },
});
