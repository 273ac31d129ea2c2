/**
 * What the two rows on a resource's secret iCalendar feed address share (`_business` for the
 * business's own, all bookings): reading it (`get-calendar-feed.ts`) and rotating it
 * (`rotate-calendar-feed.ts`: a new token, the old address answering not_found from then on).
 */
import { z } from 'zod';
import { ok, requireBusiness } from '../core/define.js';
import type { OperationContext } from '../core/context.js';
import { Out } from '../schemas.js';
import { type feedToken, feedUrl, requireResource } from './feed-tokens.js';

/** What both rows share: the business's own, writing (the token is made on first use), answering the address. */
export const FEED_ROW = {
  access: 'business_only',
  capability: 'dev.usp-protocol.services.bookings',
  conditional: false,
  writes: true,
  output: { url: Out.string },
  input: z.object({
    resource_id: z.string().min(1).max(200).describe('A resource id, or `_business` for the feed of every booking.'),
  }),
} as const;

/** The feed's address, with the token `token` gives (read or made, or replaced). */
export async function feedAddress(ctx: OperationContext, resourceId: string, token: typeof feedToken) {
  requireBusiness(ctx);
  requireResource(ctx, resourceId);
  return ok({ url: feedUrl(ctx, resourceId, await token(ctx.tx, resourceId)) });
}
