import { subscriptionRow } from './feed-subscription-row.js';

export const getFeedSubscription = subscriptionRow({
  name: 'get_feed_subscription',
  tool: 'usp_services_feed_subscription_get',
  rest: { method: 'GET', path: '/services/feed/subscriptions/{subscription_id}', input: 'none' },
  summary: 'Read a feed subscription.',
});
