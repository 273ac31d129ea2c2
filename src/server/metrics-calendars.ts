/**
 * A business's calendar sync on /metrics: per feed (resource, feed key) whether its last fetch failed,
 * the age of its last good read and whether it is stale; the push backlog and its failing part.
 * calendar-wiring.ts reads the figures from the store at each scrape; they are declared here once per
 * registry (metrics.ts), on the first server that has calendars.
 */
import { Gauge, type Registry } from 'prom-client';

type Labels = Record<string, string>;

/** One scrape's calendar figures. */
export interface CalendarFigures {
  /** Per feed: 1 while its last fetch failed; seconds since its last good read (none yet: undefined). */
  feeds: ReadonlyArray<{ resource: string; feed: string; failing: number; ageSeconds?: number }>;
  /** Per feed the business lists: 1 while it is stale. */
  stale: ReadonlyArray<{ resource: string; feed: string; stale: number }>;
  pushesPending: number;
  pushesFailing: number;
}

type Replace = (g: Gauge, values: ReadonlyArray<[Labels, number]>) => void;

export function calendarGauges(registry: Registry, extra: string[], staleMs: number) {
  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name, help, labelNames: [...labelNames, ...extra], registers: [registry] });
  const perFeed = ['resource', 'feed'];
  const failing = gauge(
    'usp_calendar_feed_failing',
    '1 while the last fetch of a calendar feed failed (its last good busy times are kept).',
    perFeed,
  );
  const age = gauge(
    'usp_calendar_feed_age_seconds',
    'Seconds since a calendar feed was last read successfully.',
    perFeed,
  );
  const stale = gauge(
    'usp_calendar_feed_stale',
    `1 while a calendar feed has gone longer than --calendar-stale-hours (${staleMs / 3_600_000} h) ` +
      "without a good read (the profile's health says so too).",
    perFeed,
  );
  const pending = gauge(
    'usp_calendar_pushes_pending',
    'Bookings waiting to be pushed to a CalDAV calendar (failed ones included).',
  );
  const pushFailing = gauge(
    'usp_calendar_pushes_failing',
    'Bookings whose last push to a CalDAV calendar failed (retried with backoff).',
  );
  return {
    /** Set a server's figures: `replace` swaps its series of a gauge, `at` gives its full labels. */
    apply(f: CalendarFigures, replace: Replace, at: (g: Gauge, labels?: Labels) => Labels) {
      replace(
        failing,
        f.feeds.map((x) => [{ resource: x.resource, feed: x.feed }, x.failing]),
      );
      replace(
        age,
        f.feeds.flatMap((x) =>
          x.ageSeconds === undefined ? [] : [[{ resource: x.resource, feed: x.feed }, x.ageSeconds]],
        ),
      );
      replace(
        stale,
        f.stale.map((x) => [{ resource: x.resource, feed: x.feed }, x.stale]),
      );
      pending.set(at(pending), f.pushesPending);
      pushFailing.set(at(pushFailing), f.pushesFailing);
    },
  };
}
