/**
 * The registry's side of the businesses' catalog feed subscriptions (spec 3.12.2): where the
 * registry's platform profile and its callbacks live, and what it keeps of each subscription. Its
 * rows are `get-registry-platform-profile.ts` and `receive-catalog-event.ts`, served by the
 * registry's feed door (src/bindings/registry-feeds).
 */
export const PLATFORM_PROFILE_PATH = '/registry/platform-profile';
export const FEED_EVENTS_PATH = '/registry/feed-events';
/** Where the registry keeps what it subscribed to at a registration's business. */
export const feedSubscriptionKey = (registrationId: string): string => `registry_feed_subscription:${registrationId}`;

export interface FeedSubscriptionNote {
  subscription_id: string;
  endpoint: string;
  created_ms: number;
}
