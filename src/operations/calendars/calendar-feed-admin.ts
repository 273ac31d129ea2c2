/**
 * The address of a resource's secret iCalendar feed (`_business` for the business's own, all
 * bookings), and its rotation: a new token, the old address answering not_found from then on.
 */
import { z } from 'zod';
import { defineOperation, ok, requireBusiness } from '../define.js';
import type { OperationContext } from '../context.js';
import { Out } from '../schemas.js';
import { feedToken, feedUrl, requireResource, rotateFeedToken } from './feed-tokens.js';

/** What both rows share: the business's own, writing (the token is made on first use), answering the address. */
const FEED_ROW = {
  access: 'business_only',
  capability: 'dev.usp-protocol.services.bookings',
  conditional: false,
  writes: true,
  output: { url: Out.string },
  input: z.object({ resource_id: z.string().min(1).max(200).describe('A resource id, or `_business` for the feed of every booking.') }),
} as const;

/** The feed's address, with the token `token` gives (read or made, or replaced). */
async function feedAddress(ctx: OperationContext, resourceId: string, token: typeof feedToken) {
  requireBusiness(ctx);
  requireResource(ctx, resourceId);
  return ok({ url: feedUrl(ctx, resourceId, await token(ctx.tx, resourceId)) });
}

export const getCalendarFeed = defineOperation({
  name: 'get_calendar_feed',
  rest: { method: 'GET', path: '/admin/resources/{resource_id}/calendar-feed', input: 'query' },
  ...FEED_ROW,
  mutating: false,
  dashboard: 'calendar_feed_url',
  summary: "The secret iCalendar feed URL of a resource's bookings (or `_business`: all bookings), to subscribe to from a calendar app.",
  handle: (inp, ctx) => feedAddress(ctx, inp.resource_id, feedToken),
});

export const rotateCalendarFeed = defineOperation({
  name: 'rotate_calendar_feed',
  rest: { method: 'POST', path: '/admin/resources/{resource_id}/calendar-feed/rotate', input: 'none' },
  ...FEED_ROW,
  mutating: true,
  dashboard: 'calendar_feed_rotate',
  summary: "Replace the token of a resource's calendar feed: the old URL stops working.",
  handle: (inp, ctx) => feedAddress(ctx, inp.resource_id, rotateFeedToken),
});
