import { z } from 'zod';
import { defineOperation, ok } from '../define.js';
import { loadOwned } from '../steps/feed-subscriptions.js';
import { id } from '../schemas.js';

export const getFeedSubscription = defineOperation({
  name: 'get_feed_subscription',
  rest: { method: 'GET', path: '/services/feed/subscriptions/{subscription_id}', input: 'none' },
  resource: { kind: 'subscription', key: 'subscription_id' },
  access: 'privileged_scoped',
  scopes: ['usp:booking'],
  capability: 'dev.usp-protocol.services.catalog.subscriptions',
  mutating: false,
  conditional: false,
  writes: false,
  summary: 'Read a feed subscription.',
  input: z.object({ subscription_id: id('The subscription id.') }),
  async handle(inp, ctx) {
    return ok({ subscription: (await loadOwned(ctx, inp.subscription_id)).subscription });
  },
});
