/**
 * Whether a business's busy times can be trusted: a calendar is stale once it has gone longer than
 * the stale age (`--calendar-stale-hours`, default 24) without a good read, or has never been read
 * well though it was tried (its busy times are then missing altogether). Stale calendars make the
 * business's availability possibly wrong, so the profile's health says `degraded` and names their
 * resources. Pure: the feeds' states and the clock are given.
 */
import type { CalendarFeedState } from '../store/index.js';
import type { CalendarFeed } from './sources.js';

export interface StaleCalendar {
  resource_id: string;
  feed: string;
  /** The last good read, or null when there was none. */
  last_ok_ms: number | null;
}

export interface CalendarHealth {
  /** How many calendars the business lists. */
  calendars: number;
  stale: StaleCalendar[];
}

export function calendarHealth(
  feeds: readonly CalendarFeed[],
  states: readonly CalendarFeedState[],
  nowMs: number,
  staleMs: number,
): CalendarHealth {
  const byKey = new Map(states.map((s) => [s.feed_key, s]));
  const stale: StaleCalendar[] = [];
  for (const f of feeds) {
    const s = byKey.get(f.key);
    // Not tried yet (just added, or the first pass has not ended): nothing to say.
    if (!s || (s.last_ok_ms === null && s.last_attempt_ms === null)) continue;
    if (s.last_ok_ms === null || nowMs - s.last_ok_ms > staleMs)
      stale.push({ resource_id: f.resourceId, feed: f.key, last_ok_ms: s.last_ok_ms });
  }
  return { calendars: feeds.length, stale };
}
