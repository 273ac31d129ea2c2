/**
 * Prometheus metrics (prom-client, text format 0.0.4):
 * - `usp_calls_total` and `usp_call_duration_seconds` by door, operation and outcome (fed by the
 *   pipeline's one report per call), `usp_rate_limit_refusals_total` by door and operation;
 * - `usp_webhook_delivery_attempts_total` by result (fed by the dispatcher);
 * - sign-in and sign-up at the account pages and the dashboard: `usp_sign_in_failures_total` by door,
 *   `usp_sign_in_lockouts_total` by door and the limit that refused, `usp_sign_ups_total` by stage;
 * - `usp_oauth_client_registrations_total` by outcome (`registered`, or why one was refused);
 * - `usp_mcp_sessions` (open sessions) and `usp_inflight_calls`;
 * - the availability cache: `usp_availability_cache_hits_total`, `..._misses_total`,
 *   `..._evictions_total`, `usp_availability_cache_entries` and `usp_availability_cache_bytes` (estimated);
 * - gauges read from the database at scrape time (`usp_bookings`, `usp_holds_active`,
 *   `usp_outbox_due`, `usp_webhook_deliveries_pending`, `usp_webhook_deliveries_leased`): when the
 *   database does not answer, the last values are kept, `usp_store_gauges_stale` turns 1 and
 *   `usp_store_gauges_updated_timestamp_seconds` says how old they are; the rest is served as usual;
 * - a business's calendar sync (metrics-calendars.ts);
 * - the process metrics prom-client collects (`process_*`, `nodejs_*`, prefixed `usp_`).
 *
 * The metrics are declared once per registry (a `MetricsFamily`); each server reports through a view
 * of it. A server of its own (`npm start`) has a registry of its own with the process's metrics and
 * no extra label. A hosting process has one registry for all its businesses, each series labelled
 * `business="<id>"`, and no process metrics (the deployment's own registry has them): a view reads
 * back only its own series, and closing a business removes them, so the registry holds the loaded
 * businesses' series only (docs/DECISIONS.md "Hosting: one metrics registry per process").
 */
import {
  AggregatorRegistry,
  Counter,
  Gauge,
  Histogram,
  Registry,
  collectDefaultMetrics,
  type MetricObjectWithValues,
  type MetricValue,
} from 'prom-client';
import type { AvailabilityCacheStats, CallRecord } from '../operations/index.js';
import { StoreUnavailable, type Store, type StoreGauges } from '../store/index.js';
import type { AttemptResult } from '../webhooks/index.js';
import type { AccountEvent } from '../security/index.js';
import { calendarGauges, type CalendarFigures } from './metrics-calendars.js';

export type { CalendarFigures } from './metrics-calendars.js';

/** A scrape never waits longer than this for the database's counts. */
const GAUGE_TIMEOUT_MS = 2000;

export type MetricSeries = MetricObjectWithValues<MetricValue<string>>;
type Labels = Record<string, string>;

export interface ServerMetrics {
  /** The registry the series are in: the server's own, or the hosting process's (every business's). */
  readonly registry: Registry;
  /** The pipeline's report of one answered call. */
  recordCall(call: CallRecord): void;
  /** The dispatcher's report of one recorded delivery attempt. */
  recordAttempt(result: AttemptResult): void;
  /** A failed sign-in, an attempt refused by a limit, or a sign-up step. */
  recordAccountEvent(e: AccountEvent): void;
  /** The authorization server's report of one client registration: `registered`, or why it was refused. */
  recordRegistration(outcome: string): void;
  /** The calendars' figures, read at each scrape (a business's calendar sync; `staleMs` for the help text). */
  addCalendars(read: () => Promise<CalendarFigures | null>, staleMs: number): void;
  /** Read the figures taken at scrape time (database, sessions, calls in flight, cache, calendars). */
  refresh(): Promise<void>;
  /** Refresh, then render in the text format: a server of its own everything it has, a hosted business its own series. */
  scrape(): Promise<string>;
  /** Refresh, then this server's own series only (no process metrics). */
  own(): Promise<MetricSeries[]>;
  /** Remove this server's series from the registry; later reports are dropped. */
  close(): void;
  readonly contentType: string;
}

export type MetricsDeps = {
  store: Store;
  now: () => number;
  sessions: () => number;
  inFlight: () => number;
  availabilityCache?: () => AvailabilityCacheStats;
};

export interface MetricsFamily {
  readonly registry: Registry;
  /** A server's view: its series labelled `business=<id>` when the family is labelled. */
  view(deps: MetricsDeps, business?: string): ServerMetrics;
  /** Every series; in a labelled family each business's relabelled as `label` says (undefined: left out). */
  series(label: (business: string) => string | undefined): Promise<MetricSeries[]>;
}

/** One server's metrics on a registry of its own (`npm start`, the registry role). */
export function createMetrics(deps: MetricsDeps): ServerMetrics {
  return createMetricsFamily({ labelled: false }).view(deps);
}

/** The metrics declared on one registry: a server's own (unlabelled), or a hosting process's (labelled by business). */
export function createMetricsFamily(o: { labelled: boolean }): MetricsFamily {
  const registry = new Registry();
  if (!o.labelled) collectDefaultMetrics({ register: registry, prefix: 'usp_' });
  const extra = o.labelled ? ['business'] : [];
  const m = declare(registry, extra);
  let calendars: ReturnType<typeof calendarGauges> | undefined;
  const calendarsOf = (staleMs: number) => (calendars ??= calendarGauges(registry, extra, staleMs));
  const json = async () => (await registry.getMetricsAsJSON()) as MetricSeries[];
  return {
    registry,
    view: (deps, business) => {
      if (o.labelled !== (business !== undefined)) throw new Error('a business label is needed exactly when labelled');
      return new ServerView(registry, m, calendarsOf, deps, business);
    },
    async series(label) {
      if (!o.labelled) return json();
      return (await json()).map((s) => ({
        ...s,
        values: s.values.flatMap((v) => {
          const to = label(String(v.labels.business));
          return to === undefined ? [] : [{ ...v, labels: { ...v.labels, business: to } }];
        }),
      }));
    },
  };
}

/** Every metric of the family, with `extra` label names after each one's own. */
function declare(registry: Registry, extra: string[]) {
  const counter = (name: string, help: string, labelNames: string[] = []) =>
    new Counter({ name, help, labelNames: [...labelNames, ...extra], registers: [registry] });
  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name, help, labelNames: [...labelNames, ...extra], registers: [registry] });
  const call = ['door', 'operation', 'outcome'];
  return {
    calls: counter(
      'usp_calls_total',
      'Calls answered, by door, operation and outcome (ok, a business outcome code, or a protocol error code).',
      call,
    ),
    duration: new Histogram({
      name: 'usp_call_duration_seconds',
      help: 'Time from the pipeline receiving a call to its answer, by door, operation and outcome.',
      labelNames: [...call, ...extra],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    refusals: counter('usp_rate_limit_refusals_total', 'Calls refused with rate_limited, by door and operation.', [
      'door',
      'operation',
    ]),
    registrations: counter(
      'usp_oauth_client_registrations_total',
      'OAuth dynamic client registrations, by outcome: registered, or the reason one was refused (rate_limited, registrant_cap, profile_control_not_proven, invalid_redirect_uri, ...).',
      ['outcome'],
    ),
    attempts: counter(
      'usp_webhook_delivery_attempts_total',
      'Webhook delivery attempts recorded, by result (delivered, retry, failed, canceled, skipped).',
      ['result'],
    ),
    signInFailures: counter(
      'usp_sign_in_failures_total',
      'Sign-ins refused for a wrong password or an unknown email, by door (oauth: the buyer account pages; dashboard).',
      ['door'],
    ),
    lockouts: counter(
      'usp_sign_in_lockouts_total',
      'Sign-in, sign-up and code attempts refused unchecked because a limit holds them back, by door and limit (address, account, signup_email, signup_address, verify_address).',
      ['door', 'limit'],
    ),
    signUps: counter('usp_sign_ups_total', 'Buyer sign-up steps, by stage (started, completed, code_rejected).', [
      'stage',
    ]),
    passwordResets: counter(
      'usp_password_resets_total',
      'Buyer password reset steps, by stage (requested, mailed, held, completed, link_rejected).',
      ['stage'],
    ),
    sessions: gauge('usp_mcp_sessions', 'MCP sessions open in this process (stdio and HTTP).'),
    inFlight: gauge('usp_inflight_calls', 'Calls being executed right now.'),
    cache: cacheMetrics(counter, gauge),
    bookings: gauge('usp_bookings', 'Bookings in the database, by status (read at scrape time).', ['status']),
    holds: gauge('usp_holds_active', 'Holds active and not expired (read at scrape time).'),
    outbox: gauge('usp_outbox_due', 'Outbox events due and not yet dispatched (read at scrape time).'),
    pending: gauge(
      'usp_webhook_deliveries_pending',
      'Webhook deliveries waiting for an attempt (read at scrape time).',
    ),
    leased: gauge(
      'usp_webhook_deliveries_leased',
      'Pending webhook deliveries a worker holds a lease on (read at scrape time).',
    ),
    stale: gauge(
      'usp_store_gauges_stale',
      '1 when the last scrape could not read the database: the database gauges keep their previous values.',
    ),
    updated: gauge(
      'usp_store_gauges_updated_timestamp_seconds',
      'When the database gauges were last read successfully (Unix seconds).',
    ),
  };
}

type Declared = ReturnType<typeof declare>;
type Metric = Counter | Gauge | Histogram;

/** The availability cache's counters and size (declared only when a server has a cache: see serverView). */
function cacheMetrics(counter: (name: string, help: string) => Counter, gauge: (name: string, help: string) => Gauge) {
  let made: ReturnType<typeof make> | undefined;
  const make = () => ({
    hits: counter(
      'usp_availability_cache_hits_total',
      'Availability queries answered from a cached computation still exact at the time.',
    ),
    misses: counter(
      'usp_availability_cache_misses_total',
      'Availability queries computed afresh (nothing cached, or the store version or the clock moved past it).',
    ),
    evictions: counter(
      'usp_availability_cache_evictions_total',
      'Cached availability answers dropped to stay within the memory budget.',
    ),
    entries: gauge('usp_availability_cache_entries', 'Availability answers cached.'),
    bytes: gauge(
      'usp_availability_cache_bytes',
      'Estimated memory held by cached availability answers (budget: --availability-cache-mb).',
    ),
  });
  return () => (made ??= make());
}

/**
 * A server's reports and scrapes over the family's metrics. Every series it writes is remembered
 * (metric and labels), so `close` removes exactly its own. A class: its methods are shared by every
 * business's view, not closures of each.
 */
class ServerView implements ServerMetrics {
  readonly contentType: string;
  // Both maps are made on the first series (an idle hosted business writes none).
  #mine: Map<string, { metric: Metric; labels: Labels }> | undefined;
  // The label values are closed sets (door, operation, outcome code), so one pair of children per
  // combination is kept: prom-client hashes the label object on every call otherwise.
  #perCall: Map<string, { calls: { inc(): void }; duration: { observe(v: number): void } }> | undefined;
  readonly #calendarReads: Array<() => Promise<CalendarFigures | null>> = [];
  #calendars: ReturnType<typeof calendarGauges> | undefined;
  #closed = false;

  constructor(
    readonly registry: Registry,
    private readonly m: Declared,
    private readonly calendarsOf: (staleMs: number) => ReturnType<typeof calendarGauges>,
    private readonly deps: MetricsDeps,
    private readonly business: string | undefined,
  ) {
    this.contentType = registry.contentType;
    if (deps.availabilityCache) m.cache();
  }

  /** A series' full labels (this server's label added), remembered as this server's. */
  #at(metric: Metric, labels: Labels = {}): Labels {
    const full = this.business === undefined ? labels : { ...labels, business: this.business };
    const key = `${(metric as unknown as { name: string }).name}\u0000${JSON.stringify(full)}`;
    const mine = (this.#mine ??= new Map());
    if (!mine.has(key)) mine.set(key, { metric, labels: full });
    return full;
  }

  /** Replace a gauge's series of this server by `values` (label sets no longer there are removed). */
  #replace(g: Gauge, values: ReadonlyArray<[Labels, number]>): void {
    const keep = new Set<string>();
    for (const [labels, v] of values) {
      const full = this.#at(g, labels);
      keep.add(JSON.stringify(full));
      g.set(full, v);
    }
    const mine = this.#mine ?? new Map();
    for (const [key, s] of mine)
      if (s.metric === g && !keep.has(JSON.stringify(s.labels))) {
        g.remove(s.labels);
        mine.delete(key);
      }
  }

  /** A counter that mirrors a running total read elsewhere. */
  #mirror(c: Counter, v: number): void {
    const labels = this.#at(c);
    c.remove(labels);
    c.inc(labels, v);
  }

  recordCall(call: CallRecord): void {
    if (this.#closed) return;
    const { m } = this;
    const key = `${call.door}\u0000${call.operation}\u0000${call.outcome}`;
    const perCall = (this.#perCall ??= new Map());
    let series = perCall.get(key);
    if (!series) {
      const labels = { door: call.door, operation: call.operation, outcome: call.outcome };
      series = {
        calls: m.calls.labels(this.#at(m.calls, labels)),
        duration: m.duration.labels(this.#at(m.duration, labels)),
      };
      perCall.set(key, series);
    }
    series.calls.inc();
    series.duration.observe(call.duration_ms / 1000);
    if (call.outcome === 'rate_limited')
      m.refusals.inc(this.#at(m.refusals, { door: call.door, operation: call.operation }));
  }

  recordAttempt(result: AttemptResult): void {
    if (!this.#closed) this.m.attempts.inc(this.#at(this.m.attempts, { result }));
  }

  recordAccountEvent(e: AccountEvent): void {
    if (this.#closed) return;
    const { m } = this;
    if (e.kind === 'sign_in_failed') m.signInFailures.inc(this.#at(m.signInFailures, { door: e.door }));
    else if (e.kind === 'locked_out') m.lockouts.inc(this.#at(m.lockouts, { door: e.door, limit: e.limit }));
    else if (e.kind === 'password_reset') m.passwordResets.inc(this.#at(m.passwordResets, { stage: e.stage }));
    else m.signUps.inc(this.#at(m.signUps, { stage: e.stage }));
  }

  recordRegistration(outcome: string): void {
    if (!this.#closed) this.m.registrations.inc(this.#at(this.m.registrations, { outcome: outcome.slice(0, 40) }));
  }

  addCalendars(read: () => Promise<CalendarFigures | null>, staleMs: number): void {
    this.#calendars = this.calendarsOf(staleMs);
    this.#calendarReads.push(read);
  }

  async refresh(): Promise<void> {
    if (this.#closed) return;
    const { m, deps } = this;
    m.sessions.set(this.#at(m.sessions), deps.sessions());
    m.inFlight.set(this.#at(m.inFlight), deps.inFlight());
    if (deps.availabilityCache) {
      const cache = m.cache();
      const s = deps.availabilityCache();
      this.#mirror(cache.hits, s.hits);
      this.#mirror(cache.misses, s.misses);
      this.#mirror(cache.evictions, s.evictions);
      cache.entries.set(this.#at(cache.entries), s.entries);
      cache.bytes.set(this.#at(cache.bytes), s.bytes);
    }
    const [g, ...cals] = await Promise.all([storeGauges(deps), ...this.#calendarReads.map((r) => r())]);
    if (this.#closed) return;
    if (g) {
      this.#replace(
        m.bookings,
        Object.entries(g.bookings_by_status).map(([status, n]) => [{ status }, n]),
      );
      m.holds.set(this.#at(m.holds), g.active_holds);
      m.outbox.set(this.#at(m.outbox), g.outbox_due);
      m.pending.set(this.#at(m.pending), g.deliveries_pending);
      m.leased.set(this.#at(m.leased), g.deliveries_leased);
      m.updated.set(this.#at(m.updated), Date.now() / 1000);
    }
    // The database is away (or slow): the rest is served, and the database gauges are said to be stale.
    m.stale.set(this.#at(m.stale), g ? 0 : 1);
    const replace = (gauge: Gauge, values: ReadonlyArray<[Labels, number]>) => this.#replace(gauge, values);
    const at = (metric: Metric, labels?: Labels) => this.#at(metric, labels);
    for (const c of cals) if (c && this.#calendars) this.#calendars.apply(c, replace, at);
  }

  async scrape(): Promise<string> {
    // A hosted business's text is its own series only, never the process registry's whole.
    if (this.business !== undefined) return AggregatorRegistry.aggregate([await this.own()]).metrics();
    await this.refresh();
    return this.registry.metrics();
  }

  async own(): Promise<MetricSeries[]> {
    await this.refresh();
    const all = (await this.registry.getMetricsAsJSON()) as MetricSeries[];
    const { business } = this;
    return all
      .filter((s) => !/^usp_(process_|nodejs_)/.test(s.name))
      .map((s) => ({ ...s, values: s.values.filter((v) => business === undefined || v.labels.business === business) }));
  }

  close(): void {
    this.#closed = true;
    for (const { metric, labels } of this.#mine?.values() ?? []) metric.remove(labels);
    this.#mine?.clear();
    this.#perCall?.clear();
  }
}

/** The database gauges, read within GAUGE_TIMEOUT_MS; null when the database does not answer. */
async function storeGauges(deps: Pick<MetricsDeps, 'store' | 'now'>): Promise<StoreGauges | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      deps.store.read((tx) => tx.bookings.gauges(deps.now())),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new StoreUnavailable(`no answer within ${GAUGE_TIMEOUT_MS} ms`)),
          GAUGE_TIMEOUT_MS,
        );
      }),
    ]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
