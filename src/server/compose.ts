/**
 * The composition root: the one place that picks implementations (SQLite store, system clock,
 * random ids) and wires the business, the pipeline and the doors together.
 */
import { serve, type ServerType } from '@hono/node-server';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { BusinessDef } from '../domain/index.js';
import {
  Pipeline,
  buildBusinessProfile,
  compileBusiness,
  randomIds,
  sweep,
  syncCatalog,
  systemClock,
  AvailabilityCache,
  DEFAULT_AVAILABILITY_CACHE_BYTES,
  type Business,
  type Clock,
  type IdSource,
  type Logger,
  type OperationDef,
  type OperationEnv,
} from '../operations/index.js';
import { StoreUnavailable, eventBody, openStore, type OutboxEvent, type Store, type StoreTimeouts } from '../store/index.js';
import { probeHandler } from './probes.js';
import { createMetrics, type ServerMetrics } from './metrics.js';
import { createLogger } from './logging.js';
import { buildOpenApi, createRestApp } from '../bindings/rest/index.js';
import { buildAuthPolicy, freezePolicy, type SecurityOptions } from './security-wiring.js';
import {
  LOOPBACK_HOSTS,
  apiKeyMatches,
  clientAddress as addressOf,
  clientAddressKey,
  isLoopbackAddress,
  isLoopbackHost,
  popAlgorithms,
  trustedProxies,
  viaTrustedProxy,
  type AuthPolicy,
  type ProfileResolver,
  type TrustedProxies,
} from '../security/index.js';
import {
  DEFAULT_RETRY,
  WebhookDispatcher,
  httpWebhookSender,
  loadKeyring,
  type RetryPolicy,
  type SigningKeyring,
  type WebhookSender,
} from '../webhooks/index.js';
import type { Context } from 'hono';
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import { guardConnections } from './connection-guard.js';
import { SessionHub, createMcpHttp } from '../bindings/mcp/index.js';
import { createHost, type Door, type HostApp } from './host.js';
import { dashboardDoor, mcpDoor, oauthDoor, pagesDoor, restDoor } from './doors.js';
import { dashboardSessions } from './admin-sessions.js';
import { mountOAuth, type OAuthDoor, type OAuthDoorOptions } from '../oauth/index.js';
import type { PaymentWorker } from '../payments/index.js';
import { checkPaymentOptions, wirePayments, type PaymentOptions } from './payments-wiring.js';
import { wireCalendars, type CalendarOptions, type CalendarWiring } from './calendar-wiring.js';

export interface ServerOptions {
  business: BusinessDef;
  /** SQLite file path, ':memory:', or a postgres:// URL. */
  db: string;
  /** Bounds on waiting for the database (connect, statement or lock wait). */
  dbTimeouts?: StoreTimeouts;
  sandbox: boolean;
  clock?: Clock;
  ids?: IdSource;
  log?: Logger;
  /** Extra admin API keys in clear (hashed at start), e.g. from --admin-key. */
  adminKeys?: string[];
  maxBodyBytes?: number;
  /** Run the housekeeping sweep this often (ms); 0 disables it. */
  sweepIntervalMs?: number;
  /** Keep dispatched webhook events in the outbox this long after they were due (default 7 days; --event-retention-days). */
  eventRetentionMs?: number;
  /** Host header values accepted on the doors browsers' scripts call, MCP (DNS-rebinding defence); empty = loopback names when listening on loopback. */
  allowedHosts?: string[];
  /** Browser origins accepted on the MCP endpoints. */
  allowedOrigins?: string[];
  /** Authentication settings (mechanisms, profile fetching, nonces, rate limits). */
  security?: SecurityOptions;
  /**
   * The TLS-terminating proxies in front of the server (addresses or CIDRs; `true`: loopback only).
   * Their X-Forwarded-For/Proto/Host are believed, nobody else's; plain-http requests a proxy did
   * not mark https are refused.
   */
  trustProxy?: boolean | string | readonly string[];
  /** Connection limits of the HTTP listener (slow clients, idle keep-alive, too many sockets). */
  connections?: Partial<ConnectionLimits>;
  /** MCP sessions: caps (global, per client address) and how soon unused and idle ones are closed. */
  mcpSessions?: { maxSessions?: number; maxSessionsPerAddress?: number; unusedSessionTimeoutMs?: number; idleTimeoutMs?: number };
  /** Serve HTTPS directly with this PEM certificate chain and key. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Webhook delivery: retry schedule, timeout, signing key, or a replacement sender (tests). */
  webhooks?: {
    enabled?: boolean;
    retry?: Partial<RetryPolicy>;
    timeoutMs?: number;
    pollMs?: number;
    sender?: WebhookSender;
    signingKey?: { kid: string; pem: string };
  };
  /** Receives events after their transaction commits. */
  onEvents?: (events: readonly OutboxEvent[]) => void;
  /** The OAuth authorization server and buyer account pages (on by default); false turns them off. */
  oauth?: false | Pick<OAuthDoorOptions, 'loginLimits' | 'deliverCode' | 'registration'>;
  /** The role served instead of the business's (the discovery registry). */
  role?: ServerRole;
  /** Bytes of computed availability answers kept for reuse (default 32 MiB); 0 turns the cache off. */
  availabilityCacheBytes?: number;
  /** Who takes online payments (default: the checkout URL template if set, else the sandbox page in a sandbox, else none). */
  payments?: PaymentOptions;
  /** Calendar sync: busy times from the resources' calendars, bookings pushed to writable CalDAV ones. */
  calendars?: CalendarOptions;
}

/** A server role other than the business: its operations, its profile document, its outbound services. */
export interface ServerRole {
  operations: readonly OperationDef[];
  /** The document served at /.well-known/usp. */
  profile(ctx: { baseUrl: string; mechanisms: readonly string[]; popAlgorithms: readonly string[] }): Record<string, unknown>;
  env?: OperationEnv;
  /** What MCP `initialize` tells the model this server is. */
  instructions?: string;
  /** The role's own doors besides MCP and REST (before REST, which takes what no other claims). */
  doors?: Door[];
}

/** How long a client may take and how many may be connected at once; every one has a safe default. */
export interface ConnectionLimits {
  /** A request's headers must arrive within this (slow-loris defence). Default 10 s. */
  headersTimeoutMs: number;
  /** The whole request (headers and body) must arrive within this; long responses (SSE) are not cut. Default 30 s. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. Default 5 s. */
  keepAliveTimeoutMs: number;
  /** Most sockets at once; at it, a newcomer replaces the socket idle the longest, or is closed when all are busy. Default 1000. */
  maxConnections: number;
  /** Most sockets one client address holds (a trusted proxy is not counted as one client). Default 100. */
  maxConnectionsPerAddress: number;
  /** Near the cap (90 %), sockets idle this long are closed as new ones arrive. Default 1 s. */
  pressureIdleMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1000,
  maxConnectionsPerAddress: 100,
  pressureIdleMs: 1_000,
};

export interface UspServer {
  biz: Business;
  store: Store;
  pipeline: Pipeline;
  /** Computed availability answers kept for reuse; undefined when turned off. */
  availabilityCache?: AvailabilityCache;
  /** The HTTP host: every door (REST, MCP, the buyer's pages) side by side, as one fetch handler. */
  app: HostApp;
  /** The webhook dispatcher (outbox to signed deliveries and MCP notifications). */
  dispatcher: WebhookDispatcher;
  /** Calls the payment provider for committed payment jobs (Stripe only). */
  paymentWorker?: PaymentWorker;
  /** The calendar poller and push worker (present when the business file lists calendars). */
  calendars?: CalendarWiring;
  /** The business's webhook signing keys. */
  keyring: SigningKeyring;
  /** Platform profile resolver (SSRF-safe fetch and cache). */
  profiles: ProfileResolver;
  /** MCP sessions (stdio and HTTP) that receive usp_webhook notifications. */
  hub: SessionHub;
  clock: Clock;
  ids: IdSource;
  profile(): Record<string, unknown>;
  /** Prometheus metrics (served at /metrics by the HTTP host). */
  metrics: ServerMetrics;
  /** Listen on host:port (port 0 picks a free one); resolves with the base URL. */
  listen(port: number, host?: string): Promise<string>;
  /** Stop at once: in-flight HTTP requests are cut (tests, failed starts). */
  close(): Promise<void>;
  /**
   * Stop gracefully within `timeoutMs`: refuse new connections and turn /readyz 503, let in-flight
   * calls finish, release delivery leases, close the database. Resolves true when every call in
   * flight finished in time, false when some were cut at the bound.
   */
  shutdown(timeoutMs: number): Promise<boolean>;
}

/** The default sink: pino on stderr at info, JSON lines (readable lines on a terminal), buyer data redacted. */
export const consoleLogger: Logger = createLogger();

export async function createUspServer(opts: ServerOptions): Promise<UspServer> {
  const clock = opts.clock ?? systemClock;
  const ids = opts.ids ?? randomIds;
  const log = opts.log ?? consoleLogger;
  checkPaymentOptions(opts.payments, opts.sandbox);
  const biz = compileBusiness(opts.business, { sandbox: opts.sandbox, allowLoopbackUrls: opts.security?.allowLoopbackProfiles, payments: opts.payments?.provider });
  // A connection that breaks (a database restart) is logged here and replaced; calls meanwhile answer 503.
  const store = await openStore(opts.db, opts.dbTimeouts, (err) =>
    log.warn('database connection error', { error: err.message, code: (err as { code?: string }).code }),
  );
  const hub = new SessionHub();
  // Committed events go through the outbox: the dispatcher is nudged, expands them into signed
  // deliveries and hands each to the MCP sessions when it is due (reminders later, the rest at once).
  let dispatcher: WebhookDispatcher | undefined;
  const listeners: Array<(e: readonly OutboxEvent[]) => void> = [() => dispatcher?.nudge()];
  if (opts.onEvents) listeners.push(opts.onEvents);
  const announce = (events: readonly OutboxEvent[]) => {
    for (const l of listeners) {
      try {
        l(events);
      } catch (err) {
        log.error('event listener failed', { error: String(err) });
      }
    }
  };
  announce(await syncCatalog(store, biz, clock, ids));

  // The public origin: the configured one (--public-url, else the business file's settings.public_url),
  // else the address listened on, known after listen(); until then (stdio) where `serve` listens by default.
  const configuredPublicUrl = opts.business.settings.public_url?.replace(/\/$/, '');
  let baseUrl = biz.publicUrl;
  let listenUrl: string | undefined;
  const proxies = trustedProxies(opts.trustProxy);
  const { policy: basePolicy, resolver } = await buildAuthPolicy({
    business: opts.business,
    sandbox: opts.sandbox,
    adminKeys: opts.adminKeys ?? [],
    store,
    clock,
    opts: opts.security ?? {},
    // Every URI the business is reachable at is an acceptable proof audience (spec 9.2.2).
    profileUris: () => [...new Set([baseUrl, listenUrl].filter((u): u is string => Boolean(u)).map((u) => `${u}/.well-known/usp`))],
    origins: () => [...new Set([baseUrl, listenUrl].filter((u): u is string => Boolean(u)))],
  });
  const role = opts.role;
  // OAuth 2.0 (spec 10.2.3, 10.2.4): a door of the business role (buyer accounts are a business's), with a gate on MCP.
  // Composed in phases: the authorization server and its resource server first, then the policy
  // that takes its token verifier, frozen before anything (the pipeline, a door) can hold it.
  const oauth: OAuthDoor | undefined = opts.oauth === false || role ? undefined : await mountOAuth({
    store, log, sandbox: opts.sandbox, trustProxy: proxies.any, clientAddress: (req, env) => addressOf(req, env, proxies), baseUrl: () => baseUrl, businessName: biz.def.business.name,
    capabilities: (): string[] => Object.keys((profile().usp as { capabilities: Record<string, unknown> }).capabilities),
    accepted: () => authPolicy.accepted,
    allowLoopback: Boolean(opts.security?.allowLoopbackProfiles), now: () => clock.now(), onAccountEvent: (e) => metrics?.recordAccountEvent(e), profiles: resolver,
    onRegistration: (outcome) => metrics?.recordRegistration(outcome), ...(opts.oauth ?? {}),
  });
  const authPolicy: AuthPolicy = freezePolicy(
    oauth
      ? {
          ...basePolicy,
          verifyAccessToken: oauth.resourceServer.verifyAccessToken,
          resourceMetadata: oauth.resourceServer.resourceMetadata,
          accepted: basePolicy.accepted.includes(oauth.resourceServer.mechanism) ? basePolicy.accepted : [...basePolicy.accepted, oauth.resourceServer.mechanism],
        }
      : basePolicy,
  );

  // One list for what the proof check accepts, the profile publishes and the DPoP challenge names.
  const popAlgs = popAlgorithms(authPolicy.allowEs256);
  const keyring = await loadKeyring(store, clock.now(), opts.webhooks?.signingKey);
  // The business's admin operations drive its signing keys and wake the dispatcher.
  const cacheBytes = opts.availabilityCacheBytes ?? DEFAULT_AVAILABILITY_CACHE_BYTES;
  const adminEnv: OperationEnv = {
    admin: { rotateSigningKey: (now) => keyring.rotate(now), signingKeys: () => keyring.list(), nudgeDeliveries: () => dispatcher?.nudge() },
    availability: cacheBytes > 0 && !opts.role ? new AvailabilityCache(cacheBytes) : undefined,
  };
  let metrics: ServerMetrics | undefined;
  const pipeline = new Pipeline({ store, biz, clock, ids, log, authPolicy, onCommitted: announce, env: opts.role?.env ?? adminEnv, onCall: (call) => {
    metrics?.recordCall(call);
    // A committed call may have written a payment job: the worker looks soon rather than at its next poll.
    if (call.ok) payments.worker?.nudge();
    if (call.ok) calendars?.pusher?.nudge();
  } });
  const payments = opts.role ? {} : wirePayments(opts.payments, { biz, store, pipeline, now: () => clock.now(), log });
  if (opts.payments?.startWorker !== false) payments.worker?.start();
  const calendars = opts.role ? undefined : wireCalendars(opts.calendars, { biz, store, now: () => clock.now(), log, allowLoopback: Boolean(opts.security?.allowLoopbackProfiles) });
  await calendars?.start();
  const availabilityCache = adminEnv.availability;
  metrics = createMetrics({
    store,
    now: () => clock.now(),
    sessions: () => hub.size,
    inFlight: () => pipeline.inFlight,
    availabilityCache: availabilityCache ? () => availabilityCache.stats() : undefined,
  });
  calendars?.registerMetrics(metrics.registry);

  const allowLoopback = Boolean(opts.security?.allowLoopbackProfiles);
  const wh = opts.webhooks ?? {};
  dispatcher = new WebhookDispatcher({
    store,
    now: () => clock.now(),
    keyring,
    sender: wh.sender ?? httpWebhookSender({ timeoutMs: wh.timeoutMs ?? 10_000, allowLoopback }),
    retry: { ...DEFAULT_RETRY, ...(wh.retry ?? {}) },
    resolveProfile: (url) => resolver.resolve(url),
    allowLoopback,
    // One process: hand due events straight to its MCP sessions. Several processes on one database:
    // announce them on the store's channel, and every process (this one included) fans them out.
    onDue: store.channel ? undefined : (e) => hub.deliver([{ ...e, body: eventBody(e) }]),
    onAnnounce: store.channel ? (seqs) => store.channel!.publish(seqs) : undefined,
    log,
    pollMs: wh.pollMs,
    // A lease outlasts one attempt (in this process a busy target is never claimed twice anyway);
    // kept short so the deliveries of a server killed mid-attempt resume soon after a restart.
    leaseMs: 2 * (wh.timeoutMs ?? 10_000) + 5_000,
    onAttempt: (result) => metrics?.recordAttempt(result),
  });
  if (wh.enabled !== false) dispatcher.start();
  const unsubscribeChannel = store.channel?.subscribe(function fanOut(seqs, tries = 0) {
    store.read((tx) => tx.outbox.bySeq(seqs)).then(
      (events) => hub.deliver(events.map((e) => ({ ...e, body: eventBody(e) }))),
      (err) => {
        // Announced just as the database went away: try again for a while rather than drop them.
        if (err instanceof StoreUnavailable && tries < 10) setTimeout(() => fanOut(seqs, tries + 1), 1000).unref();
        else log.warn('could not read announced events', { error: String(err) });
      },
    );
  });
  const profile = (): Record<string, unknown> =>
    role ? role.profile({ baseUrl, mechanisms: authPolicy.accepted, popAlgorithms: popAlgs }) : buildBusinessProfile(biz, {
      baseUrl,
      mcpEndpoint: `${baseUrl}/mcp`,
      sandbox: opts.sandbox,
      mechanisms: authPolicy.accepted,
      popAlgorithms: popAlgs,
      keys: keyring.published(clock.now()),
      tokenEndpoint: oauth ? `${baseUrl}/oauth/token` : undefined,
    });
  /** Who is on the other end (limits, lockouts, logs, /metrics): src/security/client-address.ts; IPv6 counted per /64. */
  const clientAddress = (c: Context): string | undefined => {
    const a = addressOf(c.req.raw, c.env, proxies);
    return a ? clientAddressKey(a) : undefined;
  };
  let openapiDoc: Record<string, unknown> | undefined;
  const rest = createRestApp({
    pipeline,
    profile,
    openapi: () => (openapiDoc ??= buildOpenApi(baseUrl, role?.operations)),
    operations: role?.operations,
    viaProxy: (c) => viaTrustedProxy(c.env, proxies),
    clientAddress: (c) => clientAddress(c),
  });
  const mcpHttp = createMcpHttp({ pipeline, operations: role?.operations, instructions: role?.instructions }, hub, { clientAddress, ...(opts.mcpSessions ?? {}) });
  // Filled at listen time with loopback names when listening on loopback and none were given.
  const allowedHosts: string[] = [...(opts.allowedHosts ?? [])];
  // A new door (OAuth, the dashboard) goes in this list; REST stays last, the fallback. The buyer
  // pages belong to the business role only.
  const sessions = dashboardSessions({ store, now: () => clock.now(), sandbox: opts.sandbox, adminKeyHashes: authPolicy.adminKeyHashes, log, onEvent: (e) => metrics?.recordAccountEvent(e) });
  const doors: Door[] = role
    ? [mcpDoor(mcpHttp.app), ...(role.doors ?? []), restDoor(rest)]
    : [mcpDoor(mcpHttp.app, oauth), ...(oauth ? [oauthDoor(oauth)] : []), dashboardDoor(pipeline, sessions, (req, env) => {
        const a = addressOf(req, env, proxies);
        return a ? clientAddressKey(a) : undefined;
      }), ...(payments.door ? [payments.door] : []), pagesDoor(pipeline), restDoor(rest)];
  const app = createHost({
    doors,
    maxBodyBytes: opts.maxBodyBytes ?? 64 * 1024,
    proxies,
    allowedHosts,
    allowedOrigins: opts.allowedOrigins ?? [],
    log,
  });

  let timer: NodeJS.Timeout | undefined;
  const interval = opts.sweepIntervalMs ?? 30_000;
  if (interval > 0) {
    timer = setInterval(() => {
      sweep(store, biz, clock, ids, { eventRetentionMs: opts.eventRetentionMs }).then(announce, (err) =>
        err instanceof StoreUnavailable ? log.warn('sweep skipped: database unavailable', { reason: err.reason }) : log.error('sweep failed', { error: String(err) }),
      );
    }, interval);
    timer.unref();
  }

  let http: ServerType | undefined;
  let shuttingDown = false;
  // /healthz, /readyz and /metrics are answered before any door, so no door's rules apply to them.
  const probes = probeHandler(store, {
    dispatcher: () => (wh.enabled === false ? 'disabled' : !dispatcher!.isRunning ? 'stopped' : dispatcher!.isPaused ? 'paused' : 'running'),
    shuttingDown: () => shuttingDown,
  });
  const metricsEndpoint = metricsHandler(metrics, { proxies, adminKeyHashes: authPolicy.adminKeyHashes });
  // Requests being answered by the host (a shutdown waits for them).
  let hostInFlight = 0;
  const hostIdle = new Set<() => void>();
  const hostFetch = app.fetch as (r: Request, ...a: unknown[]) => Response | Promise<Response>;
  const fetch = async (req: Request, ...rest: unknown[]): Promise<Response> => {
    forgetForwarding(rest[0], proxies);
    const early = probes(req) ?? metricsEndpoint(req, rest[0]);
    if (early) return early;
    hostInFlight++;
    try {
      const res = await hostFetch(req, ...rest);
      // Shutting down: no keep-alive, so each client's next request opens a connection the closed listener refuses.
      if (shuttingDown) return withHeader(res, 'Connection', 'close');
      return res;
    } finally {
      if (--hostInFlight === 0) for (const f of [...hostIdle]) f();
    }
  };
  const close = async () => {
    if (timer) clearInterval(timer);
    await payments.worker?.stop();
    await calendars?.stop();
    await dispatcher?.stop();
    unsubscribeChannel?.();
    await mcpHttp.close();
    if (http) {
      const h = http as ServerType & { closeAllConnections?: () => void };
      await new Promise<void>((resolve) => {
        h.close(() => resolve());
        h.closeAllConnections?.();
      });
    }
    await store.close();
  };
  return {
    metrics,
    biz,
    store,
    availabilityCache: adminEnv.availability,
    pipeline,
    app,
    profiles: resolver,
    dispatcher,
    paymentWorker: payments.worker,
    calendars,
    keyring,
    hub,
    clock,
    ids,
    profile,
    async listen(port, host = '127.0.0.1') {
      const loopback = isLoopbackHost(host);
      // Plaintext only where nobody can listen in: loopback, or a proxy that terminated TLS (spec 10.2.1).
      if (!opts.tls && !loopback && !proxies.any) {
        throw new Error(`refusing to serve plain HTTP on ${host}: give --tls-cert/--tls-key, listen on loopback, or run behind a TLS proxy with --trust-proxy`);
      }
      const limits = { ...DEFAULT_CONNECTION_LIMITS, ...(opts.connections ?? {}) };
      if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
        throw new Error(`the header deadline (${limits.headersTimeoutMs / 1000} s) must not exceed the request deadline (${limits.requestTimeoutMs / 1000} s): adjust --headers-timeout or --request-timeout`);
      }
      // Node checks the header and request deadlines on this interval (30 s by default): keep it a
      // fraction of the shortest deadline so a slow client is cut close to its deadline.
      const timing = {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4))),
      };
      // Reachable from elsewhere: checkout links and profile endpoints must name the https origin
      // platforms and buyers reach, which the listening address does not tell.
      if (!loopback && !opts.sandbox && !configuredPublicUrl?.startsWith('https://')) {
        throw new Error(
          `refusing to start on ${host} without an https public URL${configuredPublicUrl ? ` (got ${configuredPublicUrl})` : ''}: give --public-url https://<the address platforms and buyers reach>`,
        );
      }
      await new Promise<void>((resolve, reject) => {
        http = opts.tls
          ? serve({ fetch, port, hostname: host, createServer: createHttpsServer, serverOptions: { cert: opts.tls.cert, key: opts.tls.key, ...timing } }, () => resolve())
          : serve({ fetch, port, hostname: host, serverOptions: timing }, () => resolve());
        http.once('error', reject);
        const server = http as HttpServer;
        server.headersTimeout = limits.headersTimeoutMs;
        server.requestTimeout = limits.requestTimeoutMs;
        server.keepAliveTimeout = limits.keepAliveTimeoutMs;
        guardConnections(server, { ...limits, maxConnectionsPerAddress: Math.min(limits.maxConnectionsPerAddress, limits.maxConnections) }, proxies);
      });
      const addr = http!.address() as AddressInfo;
      const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
      // The address listened on is a name clients use too (127.0.0.2 is not among the usual ones).
      if (allowedHosts.length === 0 && loopback) allowedHosts.push(...new Set([...LOOPBACK_HOSTS, shownHost]));
      const url = `${opts.tls ? 'https' : 'http'}://${shownHost}:${addr.port}`;
      listenUrl = url;
      if (opts.security?.allowLoopbackProfiles && !loopback) {
        throw new Error('--allow-loopback-profiles is only allowed when the server itself listens on loopback');
      }
      payments.announce?.();
      // When no public URL was configured, advertise the address actually listened on.
      if (!configuredPublicUrl) {
        baseUrl = url;
        biz.publicUrl = url;
        openapiDoc = undefined;
      }
      return url;
    },
    close,
    async shutdown(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      shuttingDown = true;
      log.info('shutting down', { timeout_ms: timeoutMs, in_flight: Math.max(hostInFlight, pipeline.inFlight) });
      // Stop accepting: the listener closes, idle keep-alive connections with it; busy ones finish their request.
      const h = http as (ServerType & { closeIdleConnections?: () => void }) | undefined;
      h?.close();
      h?.closeIdleConnections?.();
      const hostDrained =
        hostInFlight === 0 ||
        (await new Promise<boolean>((resolve) => {
          const t = setTimeout(() => {
            hostIdle.delete(done);
            resolve(false);
          }, Math.max(0, deadline - Date.now()));
          const done = () => {
            clearTimeout(t);
            hostIdle.delete(done);
            resolve(true);
          };
          hostIdle.add(done);
        }));
      // Calls from other doors (stdio MCP) finish too.
      const drained = hostDrained && (await pipeline.drain(Math.max(0, deadline - Date.now())));
      if (!drained) log.warn('shutdown deadline reached with calls in flight; cutting them', { in_flight: Math.max(hostInFlight, pipeline.inFlight) });
      if (timer) clearInterval(timer);
      // Deliveries in flight get what is left of the bound (at most a second); the leases of the rest are released.
      await dispatcher?.stop(Math.max(0, Math.min(1000, deadline - Date.now())));
      await close();
      return drained;
    },
  };
}

/** `res` with one more header (a Response's headers may be immutable: copy it then). */
function withHeader(res: Response, name: string, value: string): Response {
  try {
    res.headers.set(name, value);
    return res;
  } catch {
    const headers = new Headers(res.headers);
    headers.set(name, value);
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }
}

/**
 * `GET /metrics`: open to a loopback client (a Prometheus on the same host or a sidecar); from any
 * other address it needs an admin API key as a Bearer token. The client is the one clientAddress
 * names: behind a trusted proxy on loopback, the address the proxy forwarded for, so such a proxy
 * does not open it to the world; from anyone else, X-Forwarded-For is ignored.
 */
function metricsHandler(
  metrics: ServerMetrics,
  o: { proxies: TrustedProxies; adminKeyHashes: readonly string[] },
): (req: Request, env: unknown) => Promise<Response> | undefined {
  return (req, env) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
    if (new URL(req.url).pathname !== '/metrics') return undefined;
    const client = addressOf(req, env, o.proxies);
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.get('authorization') ?? '')?.[1];
    if (!(client && isLoopbackAddress(client)) && !(bearer && apiKeyMatches(bearer, o.adminKeyHashes))) {
      return Promise.resolve(
        new Response(JSON.stringify({ error: 'metrics are open on loopback; from elsewhere send an admin API key as a Bearer token' }), {
          status: 401,
          headers: { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer', 'Cache-Control': 'no-store' },
        }),
      );
    }
    return metrics.scrape().then(
      (text) => new Response(req.method === 'HEAD' ? null : text, { status: 200, headers: { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' } }),
    );
  };
}

/**
 * A request from a peer that is not a trusted proxy: its X-Forwarded-* headers are dropped from the
 * Node request, so the OAuth library (which reads them from there) believes none of them either.
 */
function forgetForwarding(env: unknown, proxies: TrustedProxies): void {
  const incoming = (env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming || !proxies.any || viaTrustedProxy(env, proxies)) return;
  for (const name of Object.keys(incoming.headers)) if (name.startsWith('x-forwarded-')) delete incoming.headers[name];
}
