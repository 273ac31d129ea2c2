/**
 * The row every operation on one existing feed subscription shares (spec 3.12.2; the newer text
 * gives each its MCP tool): the subscription's id as the only input, the scoped access of its
 * creator, and either a read or one move of its status. Each operation file states only its name,
 * tool, route and move.
 */
import { z } from 'zod';
import type { SubscriptionMove } from '../../domain/index.js';
import { defineOperation, ok, type RestRoute } from '../core/define.js';
import { loadOwned, moveSubscription } from './feed-subscriptions.js';
import { id, Out } from '../schemas.js';

export interface SubscriptionRowSpec {
  name: string;
  tool: string;
  rest: RestRoute;
  summary: string;
  /** The status move the operation makes; absent, the operation reads the subscription. */
  move?: SubscriptionMove;
}

export function subscriptionRow(spec: SubscriptionRowSpec) {
  const { move } = spec;
  return defineOperation({
    name: spec.name,
    tool: spec.tool,
    rest: spec.rest,
    resource: { kind: 'subscription', key: 'subscription_id' },
    access: 'privileged_scoped',
    scopes: ['usp:booking'],
    capability: 'dev.usp-protocol.services.catalog.subscriptions',
    mutating: move !== undefined,
    conditional: false,
    writes: move !== undefined,
    // Pausing, resuming or cancelling twice changes nothing more: a subscription already there answers as it is.
    ...(move !== undefined ? { idempotent: true } : {}),
    ...(move === 'cancel' ? { destructive: true } : {}),
    output: { subscription: Out.object },
    summary: spec.summary,
    input: z.object({ subscription_id: id('The subscription id.') }),
    async handle(inp, ctx) {
      if (move === undefined) return ok({ subscription: (await loadOwned(ctx, inp.subscription_id)).subscription });
      return moveSubscription(ctx, inp.subscription_id, move);
    },
  });
}
