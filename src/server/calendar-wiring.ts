/**
 * Calendar sync, composed: the poller over every calendar the business lists (busy times) and the
 * push worker (bookings as events in CalDAV calendars marked `write`). Both read the calendars from
 * the live business before each pass, so an admin edit of a resource's `calendars` reaches every
 * process at its next pass. A calendar URL of the business file that the outbound rule refuses
 * (plain http, or loopback without --allow-loopback-profiles) is refused before the server starts
 * (an edit is checked by the operation); addresses are vetted again at every fetch. Their state is
 * on /metrics (a failing feed, its busy times' age, staleness, the push backlog) and stale feeds in
 * the profile's health.
 */
import { bookingEventText } from '../domain/index.js';
import {
  CalendarPoller,
  CalendarPushWorker,
  calendarFeeds,
  calendarHealth,
  isPushedUid,
  type CalendarFeed,
  type CalendarHealth,
  type FetchLimits,
} from '../calendars/index.js';
import type { Business, Logger } from '../operations/index.js';
import { outboundPostProblem } from '../security/index.js';
import type { CalendarFeedState, CalendarPushJob, Store } from '../store/index.js';
import type { CalendarFigures } from './metrics-calendars.js';

/** Busy times older than this are stale (default 24 h, `--calendar-stale-hours`). */
export const DEFAULT_CALENDAR_STALE_HOURS = 24;

export interface CalendarOptions {
  /** Seconds between polls of every feed (default 300, `--calendar-poll-seconds`). */
  pollSeconds?: number;
  /** Hours without a good read after which a feed is stale (default 24, `--calendar-stale-hours`). */
  staleHours?: number;
  /** False: nothing runs until `poller.pollAll()` / `pusher.tick()` are called (tests that step them). Default true. */
  startWorkers?: boolean;
  limits?: Partial<FetchLimits>;
  /** Where password_env names are read (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface CalendarWiring {
  poller: CalendarPoller;
  pusher: CalendarPushWorker;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The feed and push figures /metrics shows, read from the store (null: it did not answer). */
  figures(): Promise<CalendarFigures | null>;
  /** How long without a good read makes a feed stale (ms). */
  readonly staleMs: number;
  /** The calendars' part of the profile's health, from the last pass's feed states. */
  health(): CalendarHealth;
  /** When the poller next reads a feed (epoch ms); undefined when it does not run or no feed is listed. */
  nextPollAt(): number | undefined;
  /**
   * A write committed: wake the push worker, when the business has a calendar to write (a push job is
   * queued by the store's trigger only then; a pass for none was a transaction per booking for nothing).
   */
  committed(): void;
}

/** Why a calendar of the business file cannot be read, by resource; empty when all can. */
export function calendarUrlProblems(feeds: readonly CalendarFeed[], allowLoopback: boolean): string[] {
  return feeds.flatMap((f) => {
    const p = outboundPostProblem(f.url, allowLoopback);
    if (!p) return [];
    const hint = p === 'must use https' ? ' (loopback only with --allow-loopback-profiles)' : '';
    return [`resources.${f.resourceId}.calendars: ${f.type} calendar URL ${p}${hint}`];
  });
}

/** Milliseconds between polls of every feed. */
const pollMsOf = (o: CalendarOptions | undefined): number => (o?.pollSeconds ?? 300) * 1000;

export function staleMsOf(o: CalendarOptions | undefined): number {
  return (o?.staleHours ?? DEFAULT_CALENDAR_STALE_HOURS) * 3_600_000;
}

type WiringDeps = {
  business: () => Business;
  store: Store;
  now: () => number;
  log: Logger;
  allowLoopback: boolean;
  refresh?: () => Promise<void>;
  /** The push worker's idle poll (ms; default 1 s; 0: nudges only, a work hub asks). */
  pushPollMs?: number;
};

export function wireCalendars(o: CalendarOptions | undefined, deps: WiringDeps): CalendarWiring {
  const problems = calendarUrlProblems(calendarFeeds(deps.business().def.resources), deps.allowLoopback);
  if (problems.length > 0) throw new Error(problems.join('; '));
  const feeds = liveFeeds(deps.business);
  const { poller, pusher } = calendarWorkers(o, deps, feeds);
  const run = o?.startWorkers !== false;
  const staleMs = staleMsOf(o);
  const health = () => calendarHealth(feeds(), poller.states, deps.now(), staleMs);
  return {
    poller,
    pusher,
    health,
    committed: () => {
      if (feeds().some((f) => f.write)) pusher.nudge();
    },
    async start() {
      // The push targets are written even when the workers are stepped by hand: the trigger needs them.
      await (run ? pusher.start() : pusher.prepare());
      if (run) await poller.start();
      await poller.readStates();
    },
    async stop() {
      await poller.stop();
      await pusher.stop();
    },
    nextPollAt: () => {
      const listed = feeds();
      if (!run || listed.length === 0) return undefined;
      const last = new Map(poller.states.map((s) => [s.feed_key, s.last_attempt_ms ?? 0]));
      return Math.min(...listed.map((f) => (last.get(f.key) ?? 0) + pollMsOf(o)));
    },
    staleMs,
    figures: calendarFigures({ store: deps.store, now: deps.now, feeds, staleMs }),
  };
}

/** The live business's calendars, computed again only when its definition changed. */
function liveFeeds(business: () => Business): () => CalendarFeed[] {
  let memo: { def: unknown; feeds: CalendarFeed[] } | undefined;
  return () => {
    const { def } = business();
    if (memo?.def !== def) memo = { def, feeds: calendarFeeds(def.resources) };
    return memo.feeds;
  };
}

/** The poller (busy times of every feed) and the push worker (bookings into the `write` calendars). */
function calendarWorkers(
  o: CalendarOptions | undefined,
  deps: WiringDeps,
  feeds: () => CalendarFeed[],
): { poller: CalendarPoller; pusher: CalendarPushWorker } {
  const limits = { allowLoopback: deps.allowLoopback, ...o?.limits };
  // What both workers share; a business's id never changes (update_business refuses it), nor the secrets it may read.
  // Each options object is written out: a spread of a shared one took a hidden class of its own per business.
  const { store, refresh, now, log } = deps;
  const env = o?.env;
  const businessId = deps.business().def.business.id;
  const poller = new CalendarPoller({
    store,
    refresh,
    now,
    log,
    limits,
    env,
    businessId,
    feeds,
    // Read before every pass, like the feeds: an edit of the business's time zone reaches the next one.
    zone: () => deps.business().zone,
    pollMs: pollMsOf(o),
    ignoreUids: isPushedUid,
  });
  const pusher = new CalendarPushWorker({
    store,
    refresh,
    now,
    log,
    limits,
    env,
    businessId,
    pollMs: deps.pushPollMs,
    calendars: () => feeds().filter((f) => f.write),
    eventText: (rec) => {
      const { def } = deps.business();
      const service = def.services.find((s) => s.id === rec.booking.service_id);
      const buyerData = def.settings.calendar_feed_buyer_data;
      return bookingEventText(service?.name ?? rec.booking.service_id, rec.booking.buyer, buyerData);
    },
  });
  return { poller, pusher };
}

type Snapshot = { feeds: CalendarFeedState[]; backlog: CalendarPushJob[] };
type MetricsDeps = { store: Store; now: () => number; feeds: () => CalendarFeed[]; staleMs: number };

/** The feed and push figures, from one read of the store per scrape. */
function calendarFigures(deps: MetricsDeps): () => Promise<CalendarFigures | null> {
  const snapshot = sharedSnapshot(deps.store);
  const { now, feeds, staleMs } = deps;
  return async () => {
    const s = await snapshot();
    if (!s) return null;
    const stale = new Set(calendarHealth(feeds(), s.feeds, now(), staleMs).stale.map((f) => f.feed));
    return {
      feeds: s.feeds.map((f) => ({
        resource: f.resource_id,
        feed: f.feed_key,
        failing: f.last_error ? 1 : 0,
        ...(f.last_ok_ms !== null ? { ageSeconds: Math.max(0, (now() - f.last_ok_ms) / 1000) } : {}),
      })),
      stale: feeds().map((f) => ({ resource: f.resourceId, feed: f.key, stale: stale.has(f.key) ? 1 : 0 })),
      pushesPending: s.backlog.length,
      pushesFailing: s.backlog.filter((j) => j.last_error !== null).length,
    };
  };
}

/**
 * One read per scrape, shared by the gauges: prom-client starts their collects together, so the
 * read is shared while it is in flight and the next scrape reads afresh.
 */
function sharedSnapshot(store: Store): () => Promise<Snapshot | null> {
  let shared: Promise<Snapshot | null> | undefined;
  return () => {
    shared ??= store
      .read(async (tx) => ({ feeds: await tx.calendars.feedStates(), backlog: await tx.calendars.pushBacklog(1000) }))
      .catch(() => null)
      .finally(() => {
        shared = undefined;
      });
    return shared;
  };
}
