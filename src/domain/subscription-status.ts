/**
 * The catalog feed subscription lifecycle (spec 3.12.2) as an explicit transition map: an active
 * subscription is paused and resumed; either is canceled for good.
 */
export type SubscriptionStatus = 'active' | 'paused' | 'canceled';

export type SubscriptionMove = 'pause' | 'resume' | 'cancel';

export const SUBSCRIPTION_TRANSITIONS: Readonly<
  Record<SubscriptionStatus, Partial<Record<SubscriptionMove, SubscriptionStatus>>>
> = {
  active: { pause: 'paused', cancel: 'canceled' },
  paused: { resume: 'active', cancel: 'canceled' },
  canceled: {},
};

/** The status a move leads to, or null when the map forbids it. */
export function nextSubscriptionStatus(from: SubscriptionStatus, move: SubscriptionMove): SubscriptionStatus | null {
  return SUBSCRIPTION_TRANSITIONS[from][move] ?? null;
}

/**
 * What entering a status does (operations/catalog/feed-subscriptions.ts `enterSubscriptionStatus`
 * applies it). A subscription raises no event of its own; `delivers` says whether the catalog
 * events that follow are sent to its callback (the dispatcher fans them out to the subscriptions
 * that deliver).
 */
export interface SubscriptionEntryEffects {
  delivers: boolean;
}

export const SUBSCRIPTION_ENTRY_EFFECTS: Readonly<Record<SubscriptionStatus, SubscriptionEntryEffects>> = {
  active: { delivers: true },
  paused: { delivers: false },
  canceled: { delivers: false },
};
