/**
 * Prometheus metrics (prom-client, text format 0.0.4), one registry per server:
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
 * - the process metrics prom-client collects (`process_*`, `nodejs_*`, prefixed `usp_`).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AvailabilityCacheStats, CallRecord } from '../operations/index.js';
import { StoreUnavailable, type Store, type StoreGauges } from '../store/index.js';
import type { AttemptResult } from '../webhooks/index.js';
import type { AccountEvent } from '../security/index.js';

/** A scrape never waits longer than this for the database's counts. */
const GAUGE_TIMEOUT_MS = 2000;

export interface ServerMetrics {
  readonly registry: Registry;
  /** The pipeline's report of one answered call. */
  recordCall(call: CallRecord): void;
  /** The dispatcher's report of one recorded delivery attempt. */
  recordAttempt(result: AttemptResult): void;
  /** A failed sign-in, an attempt refused by a limit, or a sign-up step. */
  recordAccountEvent(e: AccountEvent): void;
  /** The authorization server's report of one client registration: `registered`, or why it was refused. */
  recordRegistration(outcome: string): void;
  /** Refresh the database gauges, then render every metric in the text format. */
  scrape(): Promise<string>;
  readonly contentType: string;
}

type Deps = {
  store: Store;
  now: () => number;
  sessions: () => number;
  inFlight: () => number;
  availabilityCache?: () => AvailabilityCacheStats;
};

export function createMetrics(deps: Deps): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'usp_' });
  const recordCall = callMetrics(registry);
  const accounts = accountMetrics(registry);
  liveGauges(registry, deps);
  if (deps.availabilityCache) cacheMetrics(registry, deps.availabilityCache);
  const readGauges = storeGauges(registry, deps);
  return {
    registry,
    contentType: registry.contentType,
    recordCall,
    ...accounts,
    async scrape() {
      await readGauges();
      return registry.metrics();
    },
  };
}

/** Calls by door, operation and outcome, their durations, and the rate-limit refusals among them. */
function callMetrics(registry: Registry): ServerMetrics['recordCall'] {
  const labelNames = ['door', 'operation', 'outcome'] as const;
  const calls = new Counter({
    name: 'usp_calls_total',
    help: 'Calls answered, by door, operation and outcome (ok, a business outcome code, or a protocol error code).',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'usp_call_duration_seconds',
    help: 'Time from the pipeline receiving a call to its answer, by door, operation and outcome.',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const perCall = new Map<string, { calls: { inc(): void }; duration: { observe(v: number): void } }>();
  const refusals = new Counter({
    name: 'usp_rate_limit_refusals_total',
    help: 'Calls refused with rate_limited, by door and operation.',
    labelNames: ['door', 'operation'],
    registers: [registry],
  });
  return (call) => {
    // The label values are closed sets (door, operation, outcome code), so one pair of children
    // per combination is kept: prom-client hashes the label object on every call otherwise.
    const key = `${call.door}\u0000${call.operation}\u0000${call.outcome}`;
    let series = perCall.get(key);
    if (!series) {
      const labels = { door: call.door, operation: call.operation, outcome: call.outcome };
      perCall.set(key, (series = { calls: calls.labels(labels), duration: duration.labels(labels) }));
    }
    series.calls.inc();
    series.duration.observe(call.duration_ms / 1000);
    if (call.outcome === 'rate_limited') refusals.inc({ door: call.door, operation: call.operation });
  };
}

/** Webhook attempts, sign-in and sign-up steps, password resets and OAuth client registrations. */
function accountMetrics(
  registry: Registry,
): Pick<ServerMetrics, 'recordAttempt' | 'recordAccountEvent' | 'recordRegistration'> {
  const counter = (name: string, help: string, labelNames: string[]) =>
    new Counter({ name, help, labelNames, registers: [registry] });
  const registrations = counter(
    'usp_oauth_client_registrations_total',
    'OAuth dynamic client registrations, by outcome: registered, or the reason one was refused (rate_limited, registrant_cap, profile_control_not_proven, invalid_redirect_uri, ...).',
    ['outcome'],
  );
  const attempts = counter(
    'usp_webhook_delivery_attempts_total',
    'Webhook delivery attempts recorded, by result (delivered, retry, failed, canceled, skipped).',
    ['result'],
  );
  const signInFailures = counter(
    'usp_sign_in_failures_total',
    'Sign-ins refused for a wrong password or an unknown email, by door (oauth: the buyer account pages; dashboard).',
    ['door'],
  );
  const lockouts = counter(
    'usp_sign_in_lockouts_total',
    'Sign-in, sign-up and code attempts refused unchecked because a limit holds them back, by door and limit (address, account, signup_email, signup_address, verify_address).',
    ['door', 'limit'],
  );
  const signUps = counter('usp_sign_ups_total', 'Buyer sign-up steps, by stage (started, completed, code_rejected).', [
    'stage',
  ]);
  const passwordResets = counter(
    'usp_password_resets_total',
    'Buyer password reset steps, by stage (requested, mailed, held, completed, link_rejected).',
    ['stage'],
  );
  return {
    recordAttempt(result) {
      attempts.inc({ result });
    },
    recordAccountEvent(e) {
      if (e.kind === 'sign_in_failed') signInFailures.inc({ door: e.door });
      else if (e.kind === 'locked_out') lockouts.inc({ door: e.door, limit: e.limit });
      else if (e.kind === 'password_reset') passwordResets.inc({ stage: e.stage });
      else signUps.inc({ stage: e.stage });
    },
    recordRegistration(outcome) {
      registrations.inc({ outcome: outcome.slice(0, 40) });
    },
  };
}

/** Gauges read from the process when scraped: open MCP sessions and calls in flight. */
function liveGauges(registry: Registry, deps: Pick<Deps, 'sessions' | 'inFlight'>): void {
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge('usp_mcp_sessions', 'MCP sessions open in this process (stdio and HTTP).', deps.sessions);
  gauge('usp_inflight_calls', 'Calls being executed right now.', deps.inFlight);
}

/** The availability cache's counters and size, read from its stats when scraped. */
function cacheMetrics(registry: Registry, cacheStats: () => AvailabilityCacheStats): void {
  const counter = (name: string, help: string, key: 'hits' | 'misses' | 'evictions') =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(cacheStats()[key]);
      },
    });
  counter(
    'usp_availability_cache_hits_total',
    'Availability queries answered from a cached computation still exact at the time.',
    'hits',
  );
  counter(
    'usp_availability_cache_misses_total',
    'Availability queries computed afresh (nothing cached, or the store version or the clock moved past it).',
    'misses',
  );
  counter(
    'usp_availability_cache_evictions_total',
    'Cached availability answers dropped to stay within the memory budget.',
    'evictions',
  );
  const gauge = (name: string, help: string, key: 'entries' | 'bytes') =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(cacheStats()[key]);
      },
    });
  gauge('usp_availability_cache_entries', 'Availability answers cached.', 'entries');
  gauge(
    'usp_availability_cache_bytes',
    'Estimated memory held by cached availability answers (budget: --availability-cache-mb).',
    'bytes',
  );
}

/**
 * The database gauges, read at scrape time within GAUGE_TIMEOUT_MS; when the database does not
 * answer, the last values are kept and `usp_store_gauges_stale` says so. Returns the reader.
 */
function storeGauges(registry: Registry, deps: Pick<Deps, 'store' | 'now'>): () => Promise<void> {
  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name, help, labelNames, registers: [registry] });
  const bookings = gauge('usp_bookings', 'Bookings in the database, by status (read at scrape time).', ['status']);
  const holds = gauge('usp_holds_active', 'Holds active and not expired (read at scrape time).');
  const outbox = gauge('usp_outbox_due', 'Outbox events due and not yet dispatched (read at scrape time).');
  const pending = gauge(
    'usp_webhook_deliveries_pending',
    'Webhook deliveries waiting for an attempt (read at scrape time).',
  );
  const leased = gauge(
    'usp_webhook_deliveries_leased',
    'Pending webhook deliveries a worker holds a lease on (read at scrape time).',
  );
  const stale = gauge(
    'usp_store_gauges_stale',
    '1 when the last scrape could not read the database: the database gauges keep their previous values.',
  );
  const updated = gauge(
    'usp_store_gauges_updated_timestamp_seconds',
    'When the database gauges were last read successfully (Unix seconds).',
  );
  const apply = (g: StoreGauges) => {
    bookings.reset();
    for (const [status, n] of Object.entries(g.bookings_by_status)) bookings.set({ status }, n);
    holds.set(g.active_holds);
    outbox.set(g.outbox_due);
    pending.set(g.deliveries_pending);
    leased.set(g.deliveries_leased);
    stale.set(0);
    updated.set(Date.now() / 1000);
  };
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      const g = await Promise.race([
        deps.store.read((tx) => tx.bookings.gauges(deps.now())),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new StoreUnavailable(`no answer within ${GAUGE_TIMEOUT_MS} ms`)),
            GAUGE_TIMEOUT_MS,
          );
        }),
      ]);
      apply(g);
    } catch {
      // The database is away (or slow): serve the rest, and say the database gauges are stale.
      stale.set(1);
    } finally {
      clearTimeout(timer);
    }
  };
}
