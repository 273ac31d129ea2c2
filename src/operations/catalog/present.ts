import type { PublishedService } from '../../domain/catalog.js';
import { availabilityHint } from '../engine/availability.js';
import type { OperationContext } from '../runtime.js';

/** The published service with its availability hint computed from real availability. */
export async function withHint(ctx: OperationContext, s: PublishedService): Promise<Record<string, unknown>> {
  const def = ctx.biz.services.get(s.id);
  if (!def || (s.status ?? 'active') !== 'active') return { ...s };
  return { ...s, availability_hint: await availabilityHint(ctx.tx, ctx.biz, def, ctx.now) };
}
