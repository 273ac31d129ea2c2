/**
 * Catalog feed subscriptions (spec 3.12.2): a platform asks to be told when services change.
 * Privileged and owned by the creating principal; delivery is the webhook dispatcher's job.
 */
import { z } from 'zod';
import type { SubscriptionRecord } from '../../domain/index.js';
import { ProtocolError, invalidRequest } from '../errors.js';
import { checkProfileUrl } from '../../security/index.js';
import { defineOperation, ok, type OperationDef } from '../define.js';
import { iso } from '../context.js';
import { mayAct, type OperationContext } from '../context.js';
import { id } from '../schemas.js';

export const CATALOG_EVENTS = ['service.created', 'service.updated', 'service.deleted', 'service.suspended'] as const;

export const createFeedSubscription = defineOperation({
  name: 'create_feed_subscription',
  tool: 'usp_services_feed_subscribe',
  rest: { method: 'POST', path: '/services/feed/subscriptions', input: 'body' },
  access: 'privileged_platform',
  capability: 'dev.usp-protocol.services.catalog.subscriptions',
  mutating: true,
  conditional: false,
  writes: true,
  summary: 'Subscribe a callback URL to catalog change events.',
  input: z.object({
    callback_url: z.string().max(2048).describe('HTTPS URL that receives signed catalog events.'),
    categories: z.array(z.string().max(200)).max(100).optional(),
    events: z.array(z.enum(CATALOG_EVENTS)).min(1).optional().describe('Defaults to every service.* event.'),
  }),
  async handle(inp, ctx) {
    // https only (plain http to loopback in development, like platform profiles).
    const problem = checkProfileUrl(inp.callback_url, ctx.biz.allowLoopbackUrls);
    if (problem) throw invalidRequest(`callback_url ${problem}.`, [{ field: 'callback_url', message: problem }]);
    const rec: SubscriptionRecord = {
      subscription: {
        id: ctx.ids.next('sub'),
        callback_url: inp.callback_url,
        events: inp.events ?? [...CATALOG_EVENTS],
        status: 'active',
        created_at: iso(ctx.now),
      },
      priv: { principal: ctx.caller.principal },
    };
    if (inp.categories) rec.subscription.categories = inp.categories;
    await ctx.tx.subscriptions.insert(rec);
    return ok({ subscription: rec.subscription }, 201);
  },
});

const byId = z.object({ subscription_id: id('The subscription id.') });

async function loadOwned(ctx: OperationContext, sid: string): Promise<SubscriptionRecord> {
  const rec = await ctx.tx.subscriptions.get(sid);
  if (!rec || !mayAct(ctx.caller, rec.priv.principal, rec.subscription.id)) {
    throw new ProtocolError('not_found', `No feed subscription ${JSON.stringify(sid)} belongs to this platform.`, {
      detailCode: 'subscription_not_found',
    });
  }
  return rec;
}

function lifecycle(
  name: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  summary: string,
  to: 'active' | 'paused' | 'canceled' | null,
): OperationDef<typeof byId> {
  return defineOperation({
    name,
    rest: { method, path, input: 'none' },
    resource: { kind: 'subscription', key: 'subscription_id' },
    access: 'privileged_scoped',
    capability: 'dev.usp-protocol.services.catalog.subscriptions',
    mutating: to !== null,
    conditional: false,
    writes: to !== null,
    summary,
    input: byId,
    async handle(inp, ctx) {
      const rec = await loadOwned(ctx, inp.subscription_id);
      if (to === null || rec.subscription.status === to) return ok({ subscription: rec.subscription });
      if (rec.subscription.status === 'canceled') {
        throw new ProtocolError('booking_state_conflict', 'This subscription is canceled; create a new one instead.', {
          detailCode: 'subscription_canceled',
        });
      }
      rec.subscription.status = to;
      await ctx.tx.subscriptions.update(rec);
      return ok({ subscription: rec.subscription });
    },
  });
}

export const getFeedSubscription = lifecycle('get_feed_subscription', 'GET', '/services/feed/subscriptions/{subscription_id}', 'Read a feed subscription.', null);
export const pauseFeedSubscription = lifecycle('pause_feed_subscription', 'POST', '/services/feed/subscriptions/{subscription_id}/pause', 'Pause deliveries to a feed subscription.', 'paused');
export const resumeFeedSubscription = lifecycle('resume_feed_subscription', 'POST', '/services/feed/subscriptions/{subscription_id}/resume', 'Resume a paused feed subscription.', 'active');
export const cancelFeedSubscription = lifecycle('cancel_feed_subscription', 'DELETE', '/services/feed/subscriptions/{subscription_id}', 'Cancel a feed subscription for good.', 'canceled');
