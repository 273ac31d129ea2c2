/**
 * The secret iCalendar feeds a business subscribes to: one per resource (its bookings) and one for
 * the whole business. Each is reached by a token in its URL, kept in the store (the URL has to be
 * shown again), made on first use and replaced on rotation (the old URL stops working at once).
 * What the feed says of a buyer is their name only, unless the business file asks for more.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Tx } from '../../store/index.js';
import type { OperationContext } from '../core/context.js';
import { ProtocolError } from '../core/errors.js';

/** The business-wide feed's name where a resource id goes (no resource id starts with `_`). */
export const BUSINESS_FEED = '_business';

const key = (scope: string) => `calendar_feed_token:${scope}`;

export async function feedToken(tx: Tx, scope: string): Promise<string> {
  const existing = await tx.kv.get(key(scope));
  if (existing) return existing;
  return rotateFeedToken(tx, scope);
}

export async function rotateFeedToken(tx: Tx, scope: string): Promise<string> {
  const token = randomBytes(24).toString('base64url');
  await tx.kv.set(key(scope), token);
  return token;
}

/** The token matches the feed's (compared in constant time); else not_found, as for an unknown feed. */
export async function checkFeedToken(tx: Tx, scope: string, presented: string | undefined): Promise<void> {
  const stored = await tx.kv.get(key(scope));
  const a = Buffer.from(stored ?? '');
  const b = Buffer.from(presented ?? '');
  if (!stored || a.length !== b.length || !timingSafeEqual(a, b))
    throw new ProtocolError('not_found', 'No calendar feed at this address.');
}

export function feedUrl(ctx: OperationContext, scope: string, token: string): string {
  return `${ctx.biz.publicUrl}/calendars/${encodeURIComponent(scope)}.ics?token=${token}`;
}

/** The resource, or not_found. */
export function requireResource(ctx: OperationContext, resourceId: string): void {
  if (resourceId !== BUSINESS_FEED && !ctx.biz.def.resources.some((r) => r.id === resourceId))
    throw new ProtocolError('not_found', `No resource ${resourceId}.`);
}
