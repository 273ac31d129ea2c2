import { subscriptionRow } from './feed-subscription-row.js';

export const pauseFeedSubscription = subscriptionRow({
  name: 'pause_feed_subscription',
  tool: 'usp_services_feed_subscription_pause',
  rest: { method: 'POST', path: '/services/feed/subscriptions/{subscription_id}/pause', input: 'none' },
  summary: 'Pause deliveries to a feed subscription.',
  move: 'pause',
});
