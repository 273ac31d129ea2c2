/**
 * The calendar poller: every `pollMs` (default 300 s, `--calendar-poll-seconds`) each feed is
 * fetched (conditionally), expanded into busy intervals over the booking horizon, and stored as the
 * resource's calendar claims in one transaction that holds the resource's lock (the one
 * check-and-reserve takes), so a booking and a poll never both take the same time. Busy time already
 * under a booking or an active hold is left to that claim (the exclusion constraint would refuse two
 * firm claims over one instant, and the time is taken either way). A feed that fails keeps the busy
 * times of its last good fetch and records why; nothing is rewritten when nothing changed, so the
 * availability cache keeps its answers across polls of an unchanged calendar.
 *
 * The feeds are read from the live business before every pass (`feeds` as a function, after
 * `refresh`), so a calendar added or removed by an admin edit is polled, or forgotten with its busy
 * times, on the next pass of every process; the feeds' states are kept after each pass for the
 * profile's health.
 */
import { BackgroundLoop, type LoopLog } from '../outbox/index.js';
import { CALENDAR_SLOT_KEY, type BusyInterval, type CalendarFeedState, type Store } from '../store/index.js';
import { DEFAULT_FETCH_LIMITS, fetchCaldav, fetchIcs, type FetchLimits } from './fetch.js';
import { basicAuth, type CalendarFeed } from './sources.js';

const DAY_MS = 86_400_000;

export interface CalendarPollerOptions {
  store: Store;
  /** The feeds to poll: a list, or read afresh before every pass (the live business's). */
  feeds: readonly CalendarFeed[] | (() => readonly CalendarFeed[]);
  /** Brings the business up to date before a pass (another process may have edited it). */
  refresh?: () => Promise<void>;
  /**
   * The business's zone (floating times and all-day events): fixed, or read afresh before every pass
   * (the live business's, so an edit of the business's time zone is taken up at the next pass).
   */
  zone: string | (() => string);
  now: () => number;
  log: LoopLog;
  /** Default 300 s. */
  pollMs?: number;
  /** How far ahead busy time is kept (default 400 days: past any booking window). */
  horizonMs?: number;
  limits?: Partial<FetchLimits>;
  env?: NodeJS.ProcessEnv;
  /** The business whose calendar secrets (`USP_CALENDAR_SECRET_<BUSINESS>__…`) alone may be read. */
  businessId: string;
  /** UIDs of events this server pushed: not busy time. */
  ignoreUids?: (uid: string) => boolean;
}

/** What one poll of one feed did. */
export interface FeedPollResult {
  feed: string;
  resource_id: string;
  outcome: 'updated' | 'unchanged' | 'failed';
  busy: number;
  error?: string;
}

export class CalendarPoller {
  private readonly loop: BackgroundLoop;
  private readonly limits: FetchLimits;
  /** The feed keys last reconciled with the store (undefined: not yet). */
  private known?: string;
  private lastStates: CalendarFeedState[] = [];
  /** The zone the last pass expanded the feeds in (undefined: no pass yet in this process). */
  private passZone?: string;

  constructor(private readonly o: CalendarPollerOptions) {
    this.limits = { ...DEFAULT_FETCH_LIMITS, ...o.limits };
    this.loop = new BackgroundLoop({
      name: 'calendar poller',
      pass: async () => void (await this.pollAll()),
      log: o.log,
      pollMs: o.pollMs ?? 300_000,
    });
  }

  get feeds(): readonly CalendarFeed[] {
    return typeof this.o.feeds === 'function' ? this.o.feeds() : this.o.feeds;
  }

  /** The zone this pass expands floating and all-day times in. */
  get zone(): string {
    return typeof this.o.zone === 'function' ? this.o.zone() : this.o.zone;
  }

  /** Every feed's state as the last pass left it (all processes' fetches: they share the store). */
  get states(): readonly CalendarFeedState[] {
    return this.lastStates;
  }

  /** Forget feeds taken out of the business, then poll now and every `pollMs`. */
  async start(): Promise<void> {
    await this.reconcile(this.feeds);
    this.loop.start();
  }

  /** A feed no longer listed loses its busy times and state (once per change of the list). */
  private async reconcile(feeds: readonly CalendarFeed[]): Promise<void> {
    const keys = feeds.map((f) => f.key);
    const known = [...keys].sort().join(',');
    if (known === this.known) return;
    await this.o.store.transaction((tx) => tx.calendars.forgetFeedsExcept(keys));
    this.known = known;
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One poll of every feed, in order (tests step it; the loop runs it on its schedule). */
  async pollAll(): Promise<FeedPollResult[]> {
    await this.o.refresh?.();
    const feeds = this.feeds;
    const zone = this.zone;
    // The business moved to another zone since the last pass: every feed is read again in full, since
    // its floating and all-day events now fall at other instants even where the feed itself is unchanged.
    const rezoned = this.passZone !== undefined && this.passZone !== zone;
    await this.reconcile(feeds);
    const out: FeedPollResult[] = [];
    for (const feed of feeds) out.push(await this.poll(feed, zone, rezoned));
    this.passZone = zone;
    this.lastStates = await this.statesOf(feeds);
    return out;
  }

  /** Read the feeds' states now (at start, before the first pass ends). */
  async readStates(): Promise<readonly CalendarFeedState[]> {
    this.lastStates = await this.statesOf(this.feeds);
    return this.lastStates;
  }

  /**
   * The stored states, after a reconcile with `feeds`. With no feed listed there are none (the
   * reconcile forgot them all): no read, and no calendar repository on the reading connection of a
   * business without calendars (a hosted business keeps what its store built while it is loaded).
   */
  private async statesOf(feeds: readonly CalendarFeed[]): Promise<CalendarFeedState[]> {
    if (feeds.length === 0 && this.known === '') return [];
    return this.o.store.read((tx) => tx.calendars.feedStates());
  }

  /**
   * Fetch, expand (in `zone`, default the business's now) and store one feed; a failure is recorded
   * on the feed and its busy times kept. `unconditional`: the stored validators are not sent.
   */
  async poll(feed: CalendarFeed, zone = this.zone, unconditional = false): Promise<FeedPollResult> {
    const now = this.o.now();
    const prior = await this.o.store.read((tx) => tx.calendars.feedState(feed.key));
    const state: CalendarFeedState = prior ?? {
      feed_key: feed.key,
      resource_id: feed.resourceId,
      etag: null,
      last_modified: null,
      last_attempt_ms: null,
      last_ok_ms: null,
      last_error: null,
      busy_count: 0,
    };
    const fromMs = now - DAY_MS;
    const toMs = now + (this.o.horizonMs ?? 400 * DAY_MS);
    try {
      const fetched =
        feed.type === 'ics'
          ? await fetchIcs(
              feed,
              unconditional
                ? { etag: null, lastModified: null }
                : { etag: state.etag, lastModified: state.last_modified },
              this.limits,
            )
          : await fetchCaldav(
              feed,
              basicAuth(feed, this.o.env ?? process.env, this.o.businessId),
              fromMs,
              toMs,
              this.limits,
            );
      if (fetched.kind === 'unchanged') {
        await this.o.store.transaction((tx) =>
          tx.calendars.putFeedState({ ...state, last_attempt_ms: now, last_ok_ms: now, last_error: null }),
        );
        return { feed: feed.key, resource_id: feed.resourceId, outcome: 'unchanged', busy: state.busy_count };
      }
      // ical.js (260 KB of source) is loaded by the first feed read, not with the server.
      const { expandBusy, subtractIntervals } = await import('./expand.js');
      const busy = expandBusy(fetched.texts, {
        zone,
        fromMs,
        toMs,
        ignoreUids: this.o.ignoreUids,
        maxEvents: this.limits.maxEvents,
      });
      const changed = await this.o.store.transaction(async (tx) => {
        await tx.lock([`resource:${feed.resourceId}`]);
        const taken = (await tx.claims.active([feed.resourceId], fromMs, toMs, now))
          .filter((c) => c.slot_key !== CALENDAR_SLOT_KEY)
          .map((c): BusyInterval => ({ start_ms: c.start_ms, end_ms: c.end_ms }));
        const wanted = subtractIntervals(busy, taken);
        const stored = await tx.calendars.busy(feed.key);
        const same = sameIntervals(
          stored.filter((b) => b.end_ms > fromMs),
          wanted,
        );
        if (!same) await tx.calendars.replaceBusy(feed.key, feed.resourceId, wanted);
        await tx.calendars.putFeedState({
          ...state,
          etag: fetched.etag,
          last_modified: fetched.lastModified,
          last_attempt_ms: now,
          last_ok_ms: now,
          last_error: null,
          busy_count: wanted.length,
        });
        return !same;
      });
      return {
        feed: feed.key,
        resource_id: feed.resourceId,
        outcome: changed ? 'updated' : 'unchanged',
        busy: busy.length,
      };
    } catch (err) {
      if ((err as { storeUnavailable?: boolean }).storeUnavailable) throw err;
      const error = describe(err);
      this.o.log.warn('calendar feed failed: its last busy times are kept', {
        resource_id: feed.resourceId,
        feed: feed.key,
        error,
      });
      await this.o.store.transaction((tx) =>
        tx.calendars.putFeedState({ ...state, last_attempt_ms: now, last_error: error }),
      );
      return { feed: feed.key, resource_id: feed.resourceId, outcome: 'failed', busy: state.busy_count, error };
    }
  }
}

function sameIntervals(a: readonly BusyInterval[], b: readonly BusyInterval[]): boolean {
  return a.length === b.length && a.every((x, i) => x.start_ms === b[i].start_ms && x.end_ms === b[i].end_ms);
}

/** A short reason fit for the dashboard and a log line: never the feed's secret address. */
function describe(err: unknown): string {
  const e = err as { message?: string; code?: string };
  const msg = (e.code && !String(e.message).includes(e.code) ? `${e.code}: ` : '') + String(e.message ?? err);
  return msg.replace(/https?:\/\/\S+/g, '<url>').slice(0, 200);
}
