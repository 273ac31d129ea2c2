/**
 * The composition root: the one place that picks implementations (SQLite store, system clock,
 * random ids) and wires the business, the pipeline and the doors together. Composed in phases:
 * the store and the catalog; the auth policy (with the OAuth resource server's verifier), frozen;
 * the pipeline, workers and doors over it; then the listener (listener.ts), which serves them.
 * Each part that is more than a few lines has its own wiring file beside this one: the store and
 * the business (definition-wiring.ts), the auth policy (security-wiring.ts), webhooks and the sweep
 * (webhook-wiring.ts), payments, mail, calendars and the front desk's buyer data.
 */
import {
  Pipeline,
  buildBusinessProfile,
  randomIds,
  syncCatalog,
  systemClock,
  AvailabilityCache,
  DEFAULT_AVAILABILITY_CACHE_BYTES,
  type Logger,
  type OperationEnv,
  type BusinessScope,
  type CallScope,
  type ScopeResolver,
  type LiveBusiness,
  PublicOrigin,
  singleScope,
  dashboardSessionGate,
  dashboardSignInEnv,
  loadWebhookResourceKey,
  webhookResourceNamer,
} from '../operations/index.js';
import type { OutboxEvent, Store } from '../store/index.js';
import { openBusiness, openRoleStore } from './definition-wiring.js';
import { probeHandler } from './probes.js';
import { createMetrics, type ServerMetrics } from './metrics.js';
import { metricsHandler } from './metrics-endpoint.js';
import { createLogger } from './logging.js';
import { buildOpenApi, createRestApp } from '../bindings/rest/index.js';
import { buildAuthPolicy, freezePolicy } from './security-wiring.js';
import { clientLimitKey, popAlgorithms, trustedProxies, viaTrustedProxy, type AuthPolicy } from '../security/index.js';
import { loadKeyring, type WebhookDispatcher } from '../webhooks/index.js';
import { startSweeper, wireWebhooks } from './webhook-wiring.js';
import type { Context } from 'hono';
import { SessionHub, createMcpHttp } from '../bindings/mcp/index.js';
import { createHost, type Door } from './host.js';
import { dashboardDoor, mcpDoor, oauthDoor, pagesDoor, restDoor } from './doors.js';
import { mountOAuth, type OAuthDoor } from '../oauth/index.js';
import { buyerDataWiring } from './frontdesk-wiring.js';
import { checkPaymentOptions, wirePayments } from './payments-wiring.js';
import { checkMailOptions, wireMail, type MailWiring } from './mail-wiring.js';
import { staleMsOf, wireCalendars } from './calendar-wiring.js';
import { createListener } from './listener.js';
import type { RoleServer, RoleServerOptions, ServerOptions, UspServer } from './options.js';

export type { RoleServer, RoleServerOptions, ServerOptions, ServerRole, UspServer } from './options.js';
export { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './listener.js';

/** The default sink: pino on stderr at info, JSON lines (readable lines on a terminal), buyer data redacted. */
export const consoleLogger: Logger = createLogger();

/** A business's server: its store opened and its business chosen, then composed around them. */
export async function createUspServer(opts: ServerOptions): Promise<UspServer> {
  checkPaymentOptions(opts.payments, opts.sandbox);
  checkMailOptions(opts.mail);
  const { store, live, origin, source } = await openBusiness(opts, opts.log ?? consoleLogger);
  const { server, businessScope } = await composeServer(opts, { store, live, origin });
  return Object.defineProperties(server, {
    biz: { get: () => live.current(), enumerable: true },
    scope: { value: businessScope, enumerable: true, writable: true },
    definitionSource: { value: source, enumerable: true, writable: true },
  }) as UspServer;
}

/** A server of another role (the discovery registry): its store, and no business at all. */
export async function createRoleServer(opts: RoleServerOptions): Promise<RoleServer> {
  const log = opts.log ?? consoleLogger;
  const store = await openRoleStore(opts, log);
  return (await composeServer(opts, { store, origin: new PublicOrigin() })).server;
}

/** What a server is composed around: its store, its business (none for another role), its public origin. */
interface Opened {
  store: Store;
  live?: LiveBusiness;
  origin: PublicOrigin;
}

async function composeServer(opts: Omit<ServerOptions, 'business'>, { store, live, origin }: Opened): Promise<{ server: RoleServer; businessScope?: BusinessScope }> {
  const clock = opts.clock ?? systemClock;
  const ids = opts.ids ?? randomIds;
  const log = opts.log ?? consoleLogger;
  /** The public origin now: the business's latest snapshot's, else the role's. */
  const publicUrl = (): string => live?.current().publicUrl ?? origin.get();
  // The webhook resources' names are keyed by the business's own secret, kept in its store.
  const webhookResourceUri = webhookResourceNamer(await loadWebhookResourceKey(store));
  const hub = new SessionHub(webhookResourceUri);
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
  if (live) announce(await syncCatalog(store, live.current(), clock, ids));

  // The public origin: the configured one (--public-url, else the business file's settings.public_url),
  // else the address listened on, known after listen() (`origin`, set once then); until then (stdio)
  // where `serve` listens by default. Read from the business's latest snapshot each time.
  const configuredPublicUrl = live?.current().publicUrlConfigured ?? origin.configured;
  const baseUrlOf = (s: CallScope): string => s.business?.current().publicUrl ?? origin.get();
  const proxies = trustedProxies(opts.trustProxy);
  /** Who is on the other end (limits, lockouts, logs): the one resolver, trusted proxies honoured, IPv6 counted per /64. */
  const limitKey = (req: Request, env: unknown): string | undefined => clientLimitKey(req, env, proxies);
  const {
    policy: basePolicy,
    resolver,
    limits: rateLimits,
  } = await buildAuthPolicy({
    keys: live?.current().def ?? {},
    sandbox: opts.sandbox,
    adminKeys: opts.adminKeys ?? [],
    store,
    clock,
    opts: opts.security ?? {},
    // Every URI the business is reachable at is an acceptable proof audience (spec 9.2.2).
    profileUris: () => [...new Set([publicUrl(), origin.listenedAt].filter((u): u is string => Boolean(u)).map((u) => `${u}/.well-known/usp`))],
    origins: () => [...new Set([publicUrl(), origin.listenedAt].filter((u): u is string => Boolean(u)))],
  });
  const role = opts.role;
  const mail: MailWiring = !live ? {} : wireMail(opts.mail, { business: () => live.current(), store, now: () => clock.now(), log });
  // OAuth 2.0 (spec 10.2.3, 10.2.4): a door of the business role (buyer accounts are a business's), with a gate on MCP.
  // Composed in phases: the authorization server and its resource server first, then the policy
  // that takes its token verifier, frozen before anything (the pipeline, a door) can hold it.
  const buyerData = buyerDataWiring();
  const oauth: OAuthDoor | undefined =
    opts.oauth === false || !live
      ? undefined
      : await mountOAuth({
          store,
          log,
          sandbox: opts.sandbox,
          trustProxy: proxies.any,
          clientAddress: limitKey,
          baseUrl: publicUrl,
          businessName: live.current().def.business.name,
          capabilities: (): string[] => Object.keys((profile(businessScope!).usp as { capabilities: Record<string, unknown> }).capabilities),
          accepted: () => authPolicy.accepted,
          allowLoopback: Boolean(opts.security?.allowLoopbackProfiles),
          now: () => clock.now(),
          onAccountEvent: (e) => metrics?.recordAccountEvent(e),
          profiles: resolver,
          onRegistration: (outcome) => metrics?.recordRegistration(outcome),
          buyerData: buyerData.port,
          ...(mail.deliverCode ? { deliverCode: mail.deliverCode, deliverReset: mail.deliverReset } : {}),
          ...(opts.oauth ?? {}),
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
  const keyring = await loadKeyring(store, clock.now(), opts.webhooks?.signingKey, opts.webhooks?.keyOverlapMs);
  // The business's admin operations drive its signing keys and wake the dispatcher.
  const cacheBytes = opts.availabilityCacheBytes ?? DEFAULT_AVAILABILITY_CACHE_BYTES;
  const adminEnv: OperationEnv = {
    admin: { rotateSigningKey: (now) => keyring.rotate(now), signingKeys: () => keyring.list(), nudgeDeliveries: () => dispatcher?.nudge() },
    availability: cacheBytes > 0 && !opts.role ? new AvailabilityCache(cacheBytes) : undefined,
    calendarStaleMs: staleMsOf(opts.calendars),
    webhookResourceUri,
    // The dashboard's sign-in row: its backoff, log lines and counters.
    dashboardSignIn: dashboardSignInEnv({ sandbox: opts.sandbox, adminKeyHashes: authPolicy.adminKeyHashes, log, onEvent: (e) => metrics?.recordAccountEvent(e) }),
  };
  let metrics: ServerMetrics | undefined;
  // The scope: what each call runs against (the business's snapshot, its store, policy, services, workers).
  const common: CallScope = {
    store,
    authPolicy,
    env: opts.role?.env ?? adminEnv,
    webhookResourceUri,
    onCommitted: announce,
    // A committed call may have written a payment job, a message or a calendar push: its worker looks soon rather than at its next poll.
    afterCall: () => {
      payments.worker?.nudge();
      mail.worker?.nudge();
      calendars?.pusher?.nudge();
    },
    origin,
  };
  // A role with no business (the registry) has a scope without one: its operations get no `biz`.
  const businessScope: BusinessScope | undefined = live ? Object.freeze({ ...common, business: live, origin, mailSent: Boolean(mail.worker) }) : undefined;
  const scope: CallScope = businessScope ?? Object.freeze(common);
  // One business per deployment: every request is this business's, unless the embedder resolves otherwise.
  const resolveScope = opts.resolveScope;
  const businessScopeOf: ScopeResolver<BusinessScope> | undefined = businessScope && (resolveScope ? (req) => resolveScope(req, businessScope) : singleScope(businessScope));
  const scopeOf: ScopeResolver = businessScopeOf ?? singleScope(scope);
  const pipeline = new Pipeline({ clock, ids, log, onCall: (call) => metrics?.recordCall(call) });
  buyerData.bind(pipeline, scope);
  const payments = !businessScope ? {} : wirePayments(opts.payments, { scope: businessScope, scopeOf, pipeline, now: () => clock.now(), log });
  if (opts.payments?.startWorker !== false) payments.worker?.start();
  // Mail is written with the public origin (its links, From and Message-ID): it is sent only once the
  // origin is final, at once when configured, else when the listener knows its address. A message left
  // queued by a crash and sent before that would carry the default origin, and a second Message-ID.
  const startMail = () => {
    if (opts.mail?.startWorker !== false) mail.worker?.start();
  };
  if (configuredPublicUrl) startMail();
  const calendars = !live
    ? undefined
    : wireCalendars(opts.calendars, {
        business: () => live.current(),
        store,
        now: () => clock.now(),
        log,
        allowLoopback: Boolean(opts.security?.allowLoopbackProfiles),
        refresh: () => live.refresh(),
      });
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
  const webhooks = wireWebhooks(wh, { store, clock, keyring, resolver, allowLoopback, hub, log, metrics: () => metrics });
  dispatcher = webhooks.dispatcher;
  // The profile of the scope a request is for, from its business's latest snapshot.
  const profile = (s: CallScope): Record<string, unknown> => {
    const baseUrl = baseUrlOf(s);
    return role || !s.business
      ? role!.profile({ baseUrl, mechanisms: authPolicy.accepted, popAlgorithms: popAlgs })
      : buildBusinessProfile(s.business.current(), {
          baseUrl,
          mcpEndpoint: `${baseUrl}/mcp`,
          sandbox: opts.sandbox,
          mechanisms: s.authPolicy.accepted,
          popAlgorithms: popAlgs,
          keys: keyring.published(clock.now()),
          tokenEndpoint: oauth ? `${baseUrl}/oauth/token` : undefined,
          health: calendars ? () => calendars.health() : undefined,
        });
  };
  const clientAddress = (c: Context): string | undefined => limitKey(c.req.raw, c.env);
  // One document per origin served (the origin is in it), built on first use.
  const openapiDocs = new Map<string, Record<string, unknown>>();
  const openapi = (s: CallScope): Record<string, unknown> => {
    const baseUrl = baseUrlOf(s);
    let doc = openapiDocs.get(baseUrl);
    if (!doc) openapiDocs.set(baseUrl, (doc = buildOpenApi(baseUrl, role?.operations)));
    return doc;
  };
  const rest = createRestApp({
    pipeline,
    scopeOf,
    profile,
    openapi,
    operations: role?.operations,
    viaProxy: (c) => viaTrustedProxy(c.env, proxies),
    clientAddress: (c) => clientAddress(c),
    rateLimits,
    log,
  });
  const mcpHttp = createMcpHttp({ pipeline, scopeOf, operations: role?.operations, instructions: role?.instructions }, hub, { clientAddress, log, ...(opts.mcpSessions ?? {}) });
  // Filled at listen time with loopback names when listening on loopback and none were given.
  const allowedHosts: string[] = [...(opts.allowedHosts ?? [])];
  // A new door (OAuth, the dashboard) goes in this list; REST stays last, the fallback. The buyer
  // pages belong to the business role only.
  const sessions = dashboardSessionGate({ store, now: () => clock.now(), sandbox: opts.sandbox });
  const doors: Door[] = !businessScopeOf
    ? [mcpDoor(mcpHttp.app), ...(role?.doors?.({ pipeline, scopeOf, clientAddress: limitKey }) ?? []), restDoor(rest)]
    : [
        mcpDoor(mcpHttp.app, oauth),
        ...(oauth ? [oauthDoor(oauth)] : []),
        dashboardDoor(pipeline, businessScopeOf, sessions, limitKey, mail.preview),
        ...(payments.door ? [payments.door] : []),
        pagesDoor(pipeline, scopeOf),
        restDoor(rest, opts.corsOrigins),
      ];
  const app = createHost({
    doors,
    maxBodyBytes: opts.maxBodyBytes ?? 64 * 1024,
    proxies,
    allowedHosts,
    allowedOrigins: opts.allowedOrigins ?? [],
    log,
  });

  const stopSweeper = startSweeper(opts.sweepIntervalMs ?? 30_000, {
    store,
    business: () => live?.current(),
    clock,
    ids,
    log,
    announce,
    retention: { eventRetentionMs: opts.eventRetentionMs, personalDataRetentionMs: opts.personalDataRetentionMs },
  });

  // /healthz, /readyz and /metrics are answered before any door, so no door's rules apply to them.
  const probes = probeHandler(store, {
    dispatcher: () => (wh.enabled === false ? 'disabled' : !dispatcher!.isRunning ? 'stopped' : dispatcher!.isPaused ? 'paused' : 'running'),
    shuttingDown: () => listener.shuttingDown,
  });
  const metricsEndpoint = metricsHandler(metrics, { proxies, adminKeyHashes: authPolicy.adminKeyHashes });
  const listener = createListener({
    app,
    proxies,
    log,
    early: (req, env) => probes(req) ?? metricsEndpoint(req, env),
    tls: opts.tls,
    connections: opts.connections,
    sandbox: opts.sandbox,
    configuredPublicUrl: configuredPublicUrl ? publicUrl() : undefined,
    allowLoopbackProfiles: allowLoopback,
    allowedHosts,
    pipeline,
    onListening: (url) => {
      // The address listened on: the public origin when none was configured (set once, here).
      origin.set(url);
      payments.announce?.();
      if (!configuredPublicUrl) startMail();
    },
    stopDeliveries: async (boundMs) => {
      stopSweeper();
      await dispatcher?.stop(boundMs);
    },
    stopServices: async () => {
      stopSweeper();
      await payments.worker?.stop();
      await mail.worker?.stop();
      await calendars?.stop();
      await dispatcher?.stop();
      webhooks.unsubscribe();
      await mcpHttp.close();
    },
    closeStore: () => store.close(),
  });
  const server: RoleServer = {
    metrics,
    origin,
    scope,
    store,
    availabilityCache: adminEnv.availability,
    pipeline,
    app,
    profiles: resolver,
    dispatcher,
    paymentWorker: payments.worker,
    mailWorker: mail.worker,
    mailDestination: mail.describe,
    calendars,
    keyring,
    hub,
    clock,
    ids,
    profile: () => profile(scope),
    listen: (port, host) => listener.listen(port, host),
    close: () => listener.close(),
    shutdown: (timeoutMs) => listener.shutdown(timeoutMs),
  };
  return { server, businessScope };
}
