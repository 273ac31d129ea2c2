/** The secret iCalendar feed address of a resource (or `_business`), its token made on first use. */
import { defineOperation } from '../core/define.js';
import { FEED_ROW, feedAddress } from './calendar-feed-row.js';
import { feedToken } from './feed-tokens.js';

export const getCalendarFeed = defineOperation({
  name: 'get_calendar_feed',
  rest: { method: 'GET', path: '/admin/resources/{resource_id}/calendar-feed', input: 'query' },
  ...FEED_ROW,
  mutating: false,
  dashboard: 'calendar_feed_url',
  summary:
    "The secret iCalendar feed URL of a resource's bookings (or `_business`: all bookings), to subscribe to from a calendar app.",
  handle: (inp, ctx) => feedAddress(ctx, inp.resource_id, feedToken),
});
