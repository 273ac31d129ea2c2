/**
 * Catalog feed subscriptions (spec 3.12.2) as the operations read and move them: owned by the
 * creating principal; delivery is the webhook dispatcher's job.
 */
import type { SubscriptionRecord } from '../../domain/index.js';
import { ProtocolError } from '../errors.js';
import { ok, type OperationResult } from '../define.js';
import { mayAct, type OperationContext } from '../context.js';

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

/** Move the caller's subscription to `to`; already there is a success, a canceled one moves nowhere. */
export async function moveSubscription(ctx: OperationContext, sid: string, to: 'active' | 'paused' | 'canceled'): Promise<OperationResult> {
  const rec = await loadOwned(ctx, sid);
  if (rec.subscription.status === to) return ok({ subscription: rec.subscription });
  if (rec.subscription.status === 'canceled') {
    throw new ProtocolError('booking_state_conflict', 'This subscription is canceled; create a new one instead.', {
      detailCode: 'subscription_canceled',
    });
  }
  rec.subscription.status = to;
  await ctx.tx.subscriptions.update(rec);
  return ok({ subscription: rec.subscription });
}
