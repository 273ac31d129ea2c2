/**
 * Catalog feed subscriptions (spec 3.12.2) as the operations read and move them: owned by the
 * creating principal; delivery is the webhook dispatcher's job.
 */
import {
  nextSubscriptionStatus,
  type SubscriptionMove,
  type SubscriptionRecord,
  type SubscriptionStatus,
} from '../../domain/index.js';
import { ProtocolError } from '../core/errors.js';
import { ok, type OperationResult } from '../core/define.js';
import { mayAct, type OperationContext } from '../core/context.js';

export const CATALOG_EVENTS = ['service.created', 'service.updated', 'service.deleted', 'service.suspended'] as const;

export async function loadOwned(ctx: OperationContext, sid: string): Promise<SubscriptionRecord> {
  const rec = await ctx.tx.subscriptions.get(sid);
  if (!rec || !mayAct(ctx.caller, rec.priv.principal, rec.subscription.id)) {
    throw new ProtocolError('not_found', `No feed subscription ${JSON.stringify(sid)} belongs to this platform.`, {
      detailCode: 'subscription_not_found',
    });
  }
  return rec;
}

/** Where each move leads: a subscription already there answers as it is. */
const TARGET: Record<SubscriptionMove, SubscriptionStatus> = { pause: 'paused', resume: 'active', cancel: 'canceled' };

/**
 * Apply a move to the caller's subscription; already there is a success, a canceled one moves
 * nowhere. Entering a status writes nothing else: whether the subscription then receives catalog
 * events is its row of SUBSCRIPTION_ENTRY_EFFECTS, which the store's `active()` list follows.
 */
export async function moveSubscription(
  ctx: OperationContext,
  sid: string,
  m: SubscriptionMove,
): Promise<OperationResult> {
  const rec = await loadOwned(ctx, sid);
  if (rec.subscription.status === TARGET[m]) return ok({ subscription: rec.subscription });
  const to = nextSubscriptionStatus(rec.subscription.status, m);
  if (!to) {
    throw new ProtocolError('booking_state_conflict', 'This subscription is canceled; create a new one instead.', {
      detailCode: 'subscription_canceled',
    });
  }
  rec.subscription.status = to;
  await ctx.tx.subscriptions.update(rec);
  return ok({ subscription: rec.subscription });
}
