import { subscriptionRow } from './feed-subscription-row.js';

export const resumeFeedSubscription = subscriptionRow({
  name: 'resume_feed_subscription',
  tool: 'usp_services_feed_subscription_resume',
  rest: { method: 'POST', path: '/services/feed/subscriptions/{subscription_id}/resume', input: 'none' },
  summary: 'Resume a paused feed subscription.',
  move: 'resume',
});
