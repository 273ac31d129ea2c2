import { deepFreeze, type PublishedService } from '../../domain/index.js';
import { availabilityHint, type AvailabilityHint } from '../availability/slots.js';
import type { OperationContext } from '../core/context.js';
import { isStoreUnavailable } from '../core/store-faults.js';

/** The service with a given hint, built once per (service, hint): hints are cached for minutes. */
const withHints = new WeakMap<AvailabilityHint, WeakMap<PublishedService, Record<string, unknown>>>();

/**
 * The published service with its availability hint computed from real availability. The result
 * is shared between answers (it is serialized, never mutated).
 */
export async function withHint(ctx: OperationContext, s: PublishedService): Promise<Record<string, unknown>> {
  const def = ctx.biz.services.get(s.id);
  if (!def || (s.status ?? 'active') !== 'active') return s;
  let hint: AvailabilityHint;
  try {
    hint = await availabilityHint(ctx.tx, ctx.biz, def, ctx.now);
  } catch (err) {
    // The hint is optional and only a hint: while the database is away the catalog is still
    // served from memory, without it, rather than refused.
    if (isStoreUnavailable(err)) return s;
    throw err;
  }
  let perHint = withHints.get(hint);
  if (!perHint) withHints.set(hint, (perHint = new WeakMap()));
  let out = perHint.get(s);
  // A copy frozen all the way down (the snapshot's service stays as it is): shared by every answer
  // until the hint changes, so a door may keep its JSON text (src/web/json.ts).
  if (!out) perHint.set(s, (out = deepFreeze(structuredClone({ ...s, availability_hint: hint }))));
  return out;
}
