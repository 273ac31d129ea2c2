/**
 * The address of a resource's secret iCalendar feed (`_business` for the business's own, all
 * bookings), and its rotation: a new token, the old address answering not_found from then on.
 */
import { z } from 'zod';
import { defineOperation, ok, requireBusiness } from '../define.js';
import { Out } from '../schemas.js';
import { feedToken, feedUrl, requireResource, rotateFeedToken } from './feed-tokens.js';

const input = z.object({ resource_id: z.string().min(1).max(200).describe('A resource id, or `_business` for the feed of every booking.') });

export const getCalendarFeed = defineOperation({
  name: 'get_calendar_feed',
  rest: { method: 'GET', path: '/admin/resources/{resource_id}/calendar-feed', input: 'query' },
  access: 'business_only',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  // The token is made on first use.
  writes: true,
  dashboard: 'calendar_feed_url',
  output: { url: Out.string },
  summary: "The secret iCalendar feed URL of a resource's bookings (or `_business`: all bookings), to subscribe to from a calendar app.",
  input,
  async handle(inp, ctx) {
    requireBusiness(ctx);
    requireResource(ctx, inp.resource_id);
    return ok({ url: feedUrl(ctx, inp.resource_id, await feedToken(ctx.tx, inp.resource_id)) });
  },
});

export const rotateCalendarFeed = defineOperation({
  name: 'rotate_calendar_feed',
  rest: { method: 'POST', path: '/admin/resources/{resource_id}/calendar-feed/rotate', input: 'none' },
  access: 'business_only',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: true,
  conditional: false,
  writes: true,
  dashboard: 'calendar_feed_rotate',
  output: { url: Out.string },
  summary: "Replace the token of a resource's calendar feed: the old URL stops working.",
  input,
  async handle(inp, ctx) {
    requireBusiness(ctx);
    requireResource(ctx, inp.resource_id);
    return ok({ url: feedUrl(ctx, inp.resource_id, await rotateFeedToken(ctx.tx, inp.resource_id)) });
  },
});
