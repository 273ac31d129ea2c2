/**
 * Subscribe to catalog changes (spec 3.12.2): a platform asks to be told when services change.
 * Privileged and owned by the creating principal; delivery is the webhook dispatcher's job.
 */
import { z } from 'zod';
import type { SubscriptionRecord } from '../../domain/index.js';
import { invalidRequest } from '../core/errors.js';
import { checkProfileUrl } from '../../security/index.js';
import { Out } from '../schemas.js';
import { defineOperation, ok } from '../core/define.js';
import { iso } from '../core/context.js';
import { CATALOG_EVENTS } from './feed-subscriptions.js';

export const createFeedSubscription = defineOperation({
  name: 'create_feed_subscription',
  tool: 'usp_services_feed_subscribe',
  rest: { method: 'POST', path: '/services/feed/subscriptions', input: 'body' },
  access: 'privileged_platform',
  scopes: ['usp:booking'],
  capability: 'dev.usp-protocol.services.catalog.subscriptions',
  mutating: true,
  conditional: false,
  writes: true,
  creates: true,
  subscribesSessionToCatalog: true,
  output: { subscription: Out.object },
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
    return ok({ subscription: rec.subscription });
  },
});
