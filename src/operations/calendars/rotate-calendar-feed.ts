/** A new token for a resource's calendar feed: the old address answers not_found from then on. */
import { defineOperation } from '../core/define.js';
import { FEED_ROW, feedAddress } from './calendar-feed-row.js';
import { rotateFeedToken } from './feed-tokens.js';

export const rotateCalendarFeed = defineOperation({
  name: 'rotate_calendar_feed',
  rest: { method: 'POST', path: '/admin/resources/{resource_id}/calendar-feed/rotate', input: 'none' },
  ...FEED_ROW,
  mutating: true,
  dashboard: 'calendar_feed_rotate',
  summary: "Replace the token of a resource's calendar feed: the old URL stops working.",
  handle: (inp, ctx) => feedAddress(ctx, inp.resource_id, rotateFeedToken),
});
