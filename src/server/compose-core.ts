/**
 * The first phase of composition, the same for every role: the opened store, the clock, the ids
 * and the log; the auth policy's base (the nonce secret, the profile resolver, the rate limits); the
 * webhook keyring and resource names, the MCP session hub, the metrics, the pipeline, and the
 * dispatcher over the outbox with the fan-out of committed events. Built in dependency order and
 * returned frozen; a role (compose-business.ts, compose-role.ts) is composed over it, then the host
 * and the listener over both (compose.ts).
 */
import type { Context } from 'hono';
import type { BusinessDef } from '../domain/index.js';
import {
  AvailabilityCache,
  DEFAULT_AVAILABILITY_CACHE_BYTES,
  EventChannels,
  Pipeline,
  dashboardSignInEnv,
  loadWebhookResourceKey,
  randomIds,
  systemClock,
  webhookResourceNamer,
  type CallScope,
  type Clock,
  type DashboardSignInEnv,
  type IdSource,
  type Logger,
  type OperationEnv,
  type PublicOrigin,
  type RateBucket,
  type ScopeResolver,
} from '../operations/index.js';
import type { OutboxEvent, Store } from '../store/index.js';
import {
  clientLimitKey,
  trustedProxies,
  viaTrustedProxy,
  type AuthPolicy,
  type ProfileResolver,
  type TrustedProxies,
} from '../security/index.js';
import { loadKeyring, type SigningKeyring } from '../webhooks/index.js';
import { SessionHub, createMcpHttp } from '../bindings/mcp/index.js';
import { buildOpenApi, createRestApp } from '../bindings/rest/index.js';
import { buildAuthPolicy } from './security-wiring.js';
import { webhookChannel, wireWebhooks, type WebhookWiring } from './webhook-wiring.js';
import { createMetrics, type MetricsDeps, type ServerMetrics } from './metrics.js';
import { staleMsOf } from './calendar-wiring.js';
import type { ServerOptions } from './options.js';
import type { Door } from './host.js';
import type { PaymentWorker } from '../payments/index.js';
import type { MailWorker } from '../mail/index.js';
import type { CalendarWiring } from './calendar-wiring.js';

/** The options every role is composed from (a business's server adds its business). */
export type ComposeOptions = Omit<ServerOptions, 'business'>;

/** What the core is composed around besides the options: what the role opened. */
export interface CoreInputs {
  store: Store;
  log: Logger;
  /** Where the server is reached: the configured origin, else the address listened on (set once). */
  origin: PublicOrigin;
  /** The public origin now: a business's latest snapshot's, else the role's. */
  publicUrl: () => string;
  /** The business's own key lists (none for a role without a business). */
  keys: Pick<BusinessDef, 'admin_api_key_hashes' | 'platform_api_keys'>;
}

/** The core of a server, whichever role it serves; frozen. */
export interface Core {
  readonly store: Store;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly log: Logger;
  readonly origin: PublicOrigin;
  readonly publicUrl: () => string;
  /** The public origin of a scope: its business's latest snapshot's, else the role's. */
  readonly baseUrlOf: (s: CallScope) => string;
  readonly proxies: TrustedProxies;
  /** Who is on the other end (limits, lockouts, logs): trusted proxies honoured, IPv6 counted per /64. */
  readonly limitKey: (req: Request, env: unknown) => string | undefined;
  /** The policy before a role adds to it (the business's OAuth verifier) and freezes it. */
  readonly basePolicy: AuthPolicy;
  readonly resolver: ProfileResolver;
  readonly rateLimits: Readonly<Record<RateBucket, number>> | undefined;
  readonly webhookResourceUri: (principal: string) => string;
  readonly hub: SessionHub;
  readonly keyring: SigningKeyring;
  readonly availabilityCache?: AvailabilityCache;
  readonly metrics: ServerMetrics;
  readonly pipeline: Pipeline;
  readonly webhooks: WebhookWiring;
  /** Tell the dispatcher and the embedder's listener about committed events. */
  readonly announce: (events: readonly OutboxEvent[]) => void;
  /** A new scope's channels, the webhooks' registered (the outbox's events, announced once committed). */
  readonly channels: () => EventChannels;
}

export async function composeCore(opts: ComposeOptions, inputs: CoreInputs): Promise<Core> {
  const { store, log, origin, publicUrl } = inputs;
  const clock = opts.clock ?? systemClock;
  const ids = opts.ids ?? randomIds;
  // The webhook resources' names are keyed by the business's own secret, kept in its store.
  const webhookResourceUri = webhookResourceNamer(await loadWebhookResourceKey(store));
  const hub = new SessionHub(webhookResourceUri);
  const proxies = trustedProxies(opts.trustProxy);
  const known = () => [...new Set([publicUrl(), origin.listenedAt].filter((u): u is string => Boolean(u)))];
  const { policy, resolver, limits } = await buildAuthPolicy({
    keys: inputs.keys,
    sandbox: opts.sandbox,
    adminKeys: opts.adminKeys ?? [],
    store,
    clock,
    opts: opts.security ?? {},
    // Every URI the business is reachable at is an acceptable proof audience (spec 9.2.2).
    profileUris: () => known().map((u) => `${u}/.well-known/usp`),
    origins: known,
  });
  const keyring = await loadKeyring(store, clock.now(), opts.webhooks?.signingKey, opts.webhooks?.keyOverlapMs);
  const cacheBytes = opts.availabilityCacheBytes ?? DEFAULT_AVAILABILITY_CACHE_BYTES;
  const availabilityCache = cacheBytes > 0 && !opts.role ? new AvailabilityCache(cacheBytes) : undefined;
  // Each reads the other only at run time: the metrics count the pipeline's calls in flight when
  // scraped, the pipeline reports every answered call to them.
  const metricsDeps: MetricsDeps = {
    store,
    now: () => clock.now(),
    sessions: () => hub.size,
    inFlight: () => pipeline.inFlight,
    availabilityCache: availabilityCache ? () => availabilityCache.stats() : undefined,
  };
  // A hosted business reports into the process's registry, under its id (metrics.ts).
  const shared = opts.sharedMetrics;
  const metrics = shared ? shared.family.view(metricsDeps, shared.business) : createMetrics(metricsDeps);
  const pipeline = new Pipeline({ clock, ids, log, onCall: (call) => metrics.recordCall(call) });
  const allowLoopback = Boolean(opts.security?.allowLoopbackProfiles);
  const webhooks = wireWebhooks(polled(opts.webhooks ?? {}, opts.workerPollMs)!, {
    store,
    clock,
    keyring,
    resolver,
    allowLoopback,
    hub,
    log,
    metrics: () => metrics,
  });
  // Committed events go through the outbox: the dispatcher is nudged, expands them into signed
  // deliveries and hands each to the MCP sessions when it is due (reminders later, the rest at once).
  const listeners = opts.onEvents ? [opts.onEvents] : [];
  const announce = announcer([() => webhooks.dispatcher.nudge(), ...listeners], log);
  const tell = announcer(listeners, log);
  return Object.freeze({
    store,
    clock,
    ids,
    log,
    origin,
    publicUrl,
    baseUrlOf: (s: CallScope): string => s.business?.current().publicUrl ?? origin.get(),
    proxies,
    limitKey: (req: Request, env: unknown) => clientLimitKey(req, env, proxies),
    basePolicy: policy,
    resolver,
    rateLimits: limits,
    webhookResourceUri,
    hub,
    keyring,
    availabilityCache,
    metrics,
    pipeline,
    webhooks,
    announce,
    channels: () => new EventChannels(log).register(webhookChannel(webhooks.dispatcher, store, announce, tell)),
  });
}

/** Tell every listener, each on its own: one that throws is logged and the others still hear. */
function announcer(
  listeners: ReadonlyArray<(e: readonly OutboxEvent[]) => void>,
  log: Logger,
): (events: readonly OutboxEvent[]) => void {
  return (events) => {
    for (const l of listeners) {
      try {
        l(events);
      } catch (err) {
        log.error('event listener failed', { error: String(err) });
      }
    }
  };
}

/** A role's admin services: its signing keys, a nudge of the deliveries, the caches, the dashboard's sign-in. */
export function adminEnvOf(core: Core, opts: ComposeOptions, authPolicy: AuthPolicy): OperationEnv {
  return new RoleEnv(core, opts, authPolicy);
}

/**
 * A role's services (`OperationEnv`). The dashboard's sign-in row (its two backoff tables, its log
 * and counters) is built on the first sign-in: most hosted businesses never see one. Its getter is
 * the class's, so every business's env shares one hidden class.
 */
class RoleEnv implements OperationEnv {
  readonly admin: OperationEnv['admin'];
  readonly availability: OperationEnv['availability'];
  readonly calendarStaleMs: number;
  readonly webhookResourceUri: (principal: string) => string;
  #signIn: DashboardSignInEnv | undefined;
  readonly #core: Core;
  readonly #sandbox: boolean;
  readonly #adminKeyHashes: readonly string[];

  constructor(core: Core, opts: ComposeOptions, authPolicy: AuthPolicy) {
    const { keyring } = core;
    this.admin = {
      rotateSigningKey: (now) => keyring.rotate(now),
      signingKeys: () => keyring.list(),
      nudgeDeliveries: () => core.webhooks.dispatcher.nudge(),
    };
    this.availability = core.availabilityCache;
    this.calendarStaleMs = staleMsOf(opts.calendars);
    this.webhookResourceUri = core.webhookResourceUri;
    this.#core = core;
    this.#sandbox = Boolean(opts.sandbox);
    this.#adminKeyHashes = authPolicy.adminKeyHashes;
  }

  /** The dashboard's sign-in row: its backoff, log lines and counters. */
  get dashboardSignIn(): DashboardSignInEnv {
    const core = this.#core;
    this.#signIn ??= dashboardSignInEnv({
      sandbox: this.#sandbox,
      adminKeyHashes: this.#adminKeyHashes,
      log: core.log,
      onEvent: (e) => core.metrics.recordAccountEvent(e),
    });
    return this.#signIn;
  }
}

/** The doors every role has, over the pipeline and the role's scopes: REST and MCP (the role's operations, else the business's). */
export function callDoors(
  core: Core,
  opts: ComposeOptions,
  kit: { scopeOf: ScopeResolver; profile: (s: CallScope) => Record<string, unknown> },
) {
  const { pipeline, log, proxies } = core;
  const role = opts.role;
  const clientAddress = (c: Context): string | undefined => core.limitKey(c.req.raw, c.env);
  // One document per origin served (the origin is in it), built on first use; the map with the first.
  const openapiDocs: { byUrl?: Map<string, Record<string, unknown>> } = {};
  const openapi = (s: CallScope): Record<string, unknown> => {
    const baseUrl = core.baseUrlOf(s);
    const docs = (openapiDocs.byUrl ??= new Map());
    const doc = docs.get(baseUrl) ?? buildOpenApi(baseUrl, role?.operations);
    docs.set(baseUrl, doc);
    return doc;
  };
  const rest = createRestApp({
    pipeline,
    scopeOf: kit.scopeOf,
    profile: kit.profile,
    openapi,
    operations: role?.operations,
    viaProxy: (c) => viaTrustedProxy(c.env, proxies),
    clientAddress,
    rateLimits: core.rateLimits,
    log,
  });
  const mcpHttp = createMcpHttp(
    { pipeline, scopeOf: kit.scopeOf, operations: role?.operations, instructions: role?.instructions },
    core.hub,
    {
      clientAddress,
      log,
      ...(opts.mcpSessions ?? {}),
    },
  );
  return Object.freeze({ rest, mcpHttp });
}

/** The second phase: a role composed over the core (the business's, or another such as the registry); frozen. */
export interface ComposedRole<S extends CallScope = CallScope> {
  /** The policy every call of the role is checked against, frozen before any scope or door holds it. */
  readonly authPolicy: AuthPolicy;
  /** What the role's calls run against. */
  readonly scope: S;
  /** The role's doors, in the host's order (REST last, the fallback). */
  readonly doors: readonly Door[];
  /** The profile document of the role's scope. */
  readonly profile: () => Record<string, unknown>;
  /** The configured public origin, or undefined when it is the address listened on. */
  readonly configuredPublicUrl: string | undefined;
  readonly paymentWorker?: PaymentWorker;
  readonly mailWorker?: MailWorker;
  readonly mailDestination?: string;
  readonly calendars?: CalendarWiring;
  /** Told once the listener knows its address (the public origin is set by then). */
  readonly onListening: () => void;
  /** Stop the role's own workers (before the dispatcher stops). */
  readonly stopWorkers: () => Promise<void>;
  /** Close the role's doors' sessions (last). */
  readonly closeDoors: () => Promise<void>;
}

/** A worker's options with the deployment's poll interval over its own, when one is set (`workerPollMs`). */
export function polled<T extends { pollMs?: number }>(o: T | undefined, pollMs: number | undefined): T | undefined {
  return o && pollMs !== undefined ? { ...o, pollMs } : o;
}
