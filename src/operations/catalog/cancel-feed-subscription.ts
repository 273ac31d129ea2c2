import { subscriptionRow } from './feed-subscription-row.js';

export const cancelFeedSubscription = subscriptionRow({
  name: 'cancel_feed_subscription',
  tool: 'usp_services_feed_unsubscribe',
  rest: { method: 'DELETE', path: '/services/feed/subscriptions/{subscription_id}', input: 'none' },
  summary: 'Cancel a feed subscription for good.',
  move: 'cancel',
});
