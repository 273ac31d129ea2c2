import { z } from 'zod';
import { defineOperation } from '../define.js';
import { moveSubscription } from '../steps/feed-subscriptions.js';
import { id } from '../schemas.js';

export const pauseFeedSubscription = defineOperation({
  name: 'pause_feed_subscription',
  rest: { method: 'POST', path: '/services/feed/subscriptions/{subscription_id}/pause', input: 'none' },
  resource: { kind: 'subscription', key: 'subscription_id' },
  access: 'privileged_scoped',
  scopes: ['usp:booking'],
  capability: 'dev.usp-protocol.services.catalog.subscriptions',
  mutating: true,
  conditional: false,
  writes: true,
  summary: 'Pause deliveries to a feed subscription.',
  input: z.object({ subscription_id: id('The subscription id.') }),
  async handle(inp, ctx) {
    return moveSubscription(ctx, inp.subscription_id, 'pause');
  },
});
