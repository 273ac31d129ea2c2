/**
 * Calendar sync, composed: the poller over every calendar the business file lists (busy times) and,
 * when a CalDAV calendar is marked `write`, the push worker (bookings as events there). A calendar
 * URL that the outbound rule refuses (plain http, or loopback without --allow-loopback-profiles) is
 * refused before the server starts; addresses are vetted again at every fetch. Their state is on
 * /metrics: a failing feed, its busy times' age, and the push backlog.
 */
import type { Registry } from 'prom-client';
import { Gauge } from 'prom-client';
import { CalendarPoller, CalendarPushWorker, calendarFeeds, isPushedUid, type CalendarFeed, type FetchLimits } from '../calendars/index.js';
import type { Business, Logger } from '../operations/index.js';
import { outboundPostProblem } from '../security/index.js';
import type { CalendarFeedState, CalendarPushJob, Store } from '../store/index.js';

export interface CalendarOptions {
  /** Seconds between polls of every feed (default 300, `--calendar-poll-seconds`). */
  pollSeconds?: number;
  /** False: nothing runs until `poller.pollAll()` / `pusher.tick()` are called (tests that step them). Default true. */
  startWorkers?: boolean;
  limits?: Partial<FetchLimits>;
  /** Where password_env names are read (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface CalendarWiring {
  poller?: CalendarPoller;
  pusher?: CalendarPushWorker;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Feed and push gauges on the server's registry. */
  registerMetrics(registry: Registry): void;
}

/** Why a calendar of the business file cannot be read, by resource; empty when all can. */
export function calendarUrlProblems(feeds: readonly CalendarFeed[], allowLoopback: boolean): string[] {
  return feeds.flatMap((f) => {
    const p = outboundPostProblem(f.url, allowLoopback);
    return p ? [`resources.${f.resourceId}.calendars: ${f.type} calendar URL ${p}${p === 'must use https' ? ' (loopback only with --allow-loopback-profiles)' : ''}`] : [];
  });
}

export function wireCalendars(o: CalendarOptions | undefined, deps: { biz: Business; store: Store; now: () => number; log: Logger; allowLoopback: boolean }): CalendarWiring {
  const feeds = calendarFeeds(deps.biz.def.resources);
  const problems = calendarUrlProblems(feeds, deps.allowLoopback);
  if (problems.length > 0) throw new Error(problems.join('; '));
  const limits = { allowLoopback: deps.allowLoopback, ...o?.limits };
  const poller =
    feeds.length === 0
      ? undefined
      : new CalendarPoller({
          store: deps.store,
          feeds,
          zone: deps.biz.def.business.timezone,
          now: deps.now,
          log: deps.log,
          pollMs: (o?.pollSeconds ?? 300) * 1000,
          limits,
          env: o?.env,
          ignoreUids: isPushedUid,
        });
  const writable = feeds.filter((f) => f.write);
  const serviceName = new Map(deps.biz.def.services.map((s) => [s.id, s.name]));
  const pusher =
    writable.length === 0
      ? undefined
      : new CalendarPushWorker({
          store: deps.store,
          calendars: writable,
          now: deps.now,
          log: deps.log,
          limits,
          env: o?.env,
          summary: (rec) => `${serviceName.get(rec.booking.service_id) ?? rec.booking.service_id}: ${rec.booking.buyer.first_name} ${rec.booking.buyer.last_name}`.trim(),
        });
  const run = o?.startWorkers !== false;
  return {
    poller,
    pusher,
    async start() {
      // The push targets are written even when the workers are stepped by hand: the trigger needs them.
      if (pusher) await (run ? pusher.start() : pusher.prepare());
      if (poller && run) await poller.start();
    },
    async stop() {
      await poller?.stop();
      await pusher?.stop();
    },
    registerMetrics(registry) {
      if (feeds.length === 0) return;
      // One read per scrape, shared by the gauges (prom-client collects them concurrently).
      let shared: { at: number; p: Promise<{ feeds: CalendarFeedState[]; backlog: CalendarPushJob[] } | null> } | undefined;
      const snapshot = () => {
        if (!shared || Date.now() - shared.at > 250) {
          shared = {
            at: Date.now(),
            p: deps.store.read(async (tx) => ({ feeds: await tx.calendars.feedStates(), backlog: await tx.calendars.pushBacklog(1000) })).catch(() => null),
          };
        }
        return shared.p;
      };
      const labelNames = ['resource', 'feed'] as const;
      new Gauge({
        name: 'usp_calendar_feed_failing',
        help: '1 while the last fetch of a calendar feed failed (its last good busy times are kept).',
        labelNames,
        registers: [registry],
        async collect() {
          const s = await snapshot();
          if (!s) return;
          this.reset();
          for (const f of s.feeds) this.set({ resource: f.resource_id, feed: f.feed_key }, f.last_error ? 1 : 0);
        },
      });
      new Gauge({
        name: 'usp_calendar_feed_age_seconds',
        help: 'Seconds since a calendar feed was last read successfully.',
        labelNames,
        registers: [registry],
        async collect() {
          const s = await snapshot();
          if (!s) return;
          this.reset();
          for (const f of s.feeds) if (f.last_ok_ms !== null) this.set({ resource: f.resource_id, feed: f.feed_key }, Math.max(0, (deps.now() - f.last_ok_ms) / 1000));
        },
      });
      new Gauge({
        name: 'usp_calendar_pushes_pending',
        help: 'Bookings waiting to be pushed to a CalDAV calendar (failed ones included).',
        registers: [registry],
        async collect() {
          const s = await snapshot();
          if (s) this.set(s.backlog.length);
        },
      });
      new Gauge({
        name: 'usp_calendar_pushes_failing',
        help: 'Bookings whose last push to a CalDAV calendar failed (retried with backoff).',
        registers: [registry],
        async collect() {
          const s = await snapshot();
          if (s) this.set(s.backlog.filter((j) => j.last_error !== null).length);
        },
      });
    },
  };
}
