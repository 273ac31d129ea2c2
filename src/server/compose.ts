/**
 * The composition root: the one place that picks implementations (SQLite store, system clock,
 * random ids) and wires a server together, in three phases, each a function that returns a frozen
 * record and assigns nothing twice: the core, the same for every role (compose-core.ts: the store,
 * clock, ids, log, the base auth policy, keyring, metrics, pipeline and webhook dispatcher); then the
 * role over it, the business's (compose-business.ts: catalog, mail, OAuth and the frozen policy, the
 * scope, payments, calendars, its doors) or another's such as the registry (compose-role.ts: a scope
 * with no business); then the host and the listener over both (`serve` below, listener.ts). Each
 * part that is more than a few lines has its own wiring file beside these: the store and the
 * business (definition-wiring.ts), the auth policy (security-wiring.ts), webhooks and the sweep
 * (webhook-wiring.ts), payments, mail, calendars and the front desk's buyer data.
 */
import { shareEqualHours } from '../domain/index.js';
import { PublicOrigin, syncCatalog, type LiveBusiness, type Logger } from '../operations/index.js';
import { openBusiness, openRoleStore } from './definition-wiring.js';
import { dispatcherState, probeHandler } from './probes.js';
import { metricsHandler } from './metrics-endpoint.js';
import { createLogger } from './logging.js';
import { startSweeper, sweepOnce, type SweeperDeps } from './webhook-wiring.js';
import { nextDueAt, runDue, type DueParts } from './due-work.js';
import { createHost } from './host.js';
import { checkPaymentOptions } from './payments-wiring.js';
import { checkMailOptions } from './mail-wiring.js';
import { createListener } from './listener.js';
import { composeCore, type ComposeOptions, type ComposedRole, type Core } from './compose-core.js';
import { composeBusiness } from './compose-business.js';
import { composeRole } from './compose-role.js';
import type { RoleServer, RoleServerOptions, ServerOptions, UspServer } from './options.js';

export type { RoleServer, RoleServerOptions, ServerOptions, ServerRole, UspServer } from './options.js';
export { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './listener.js';

/** The default sink: pino on stderr at info, JSON lines (readable lines on a terminal), buyer data redacted. */
export const consoleLogger: Logger = createLogger();

/** A business's server: its store opened and its business chosen, then composed around them. */
export async function createUspServer(given: ServerOptions): Promise<UspServer> {
  // The definition with equal weekly schedules held once, here: the options live as long as the
  // server (its parts keep them), so the snapshot compiled from them shares the same one.
  const opts = { ...given, business: shareEqualHours(given.business) };
  checkPaymentOptions(opts.payments, opts.sandbox);
  checkMailOptions(opts.mail);
  const log = opts.log ?? consoleLogger;
  const { store, live, origin, source } = await openBusiness(opts, log);
  const core = await composeCore(opts, {
    store,
    log,
    origin,
    publicUrl: () => live.current().publicUrl,
    keys: live.current().def,
  });
  const business = await composeBusiness(core, opts, live);
  return Object.defineProperties(serve(opts, core, business), {
    [LIVE]: { value: live },
    biz: { get: currentBiz, enumerable: true },
    definitionSource: { value: source, enumerable: true, writable: true },
    setSuspended: { value: suspender(core, live), enumerable: true },
  }) as UspServer;
}

/** Where a server keeps its live business, for the getter every server shares. */
const LIVE = Symbol('live business');

/**
 * `UspServer.biz`: one getter for every server, reading the server's own live business. A getter of
 * its own per server (a closure) would give each server a hidden class of its own (V8 shares one only
 * between objects whose accessors are the same functions): about 1.5 KB per hosted business.
 */
function currentBiz(this: { [LIVE]: LiveBusiness }) {
  return this[LIVE].current();
}

/**
 * The operator's switch (`UspServer.setSuspended`): a new snapshot at once, then the stored catalog
 * republished from it, so the feed and the catalog events (`service.suspended`, then
 * `service.updated` when it opens again) say what the services say.
 */
function suspender(core: Core, live: LiveBusiness): UspServer['setSuspended'] {
  return async (reason) => {
    live.setSuspended(reason === undefined ? undefined : { reason });
    core.announce(await syncCatalog(core.store, () => live.current(), core.clock, core.ids));
  };
}

/** A server of another role (the discovery registry): its store, and no business at all. */
export async function createRoleServer(opts: RoleServerOptions): Promise<RoleServer> {
  const log = opts.log ?? consoleLogger;
  const store = await openRoleStore(opts, log);
  const origin = new PublicOrigin();
  const core = await composeCore(opts, { store, log, origin, publicUrl: () => origin.get(), keys: {} });
  return serve(opts, core, composeRole(core, opts, opts.role));
}

/** The last phase: the host over the role's doors, the sweep, the probes and the listener; the server it gives. */
function serve(opts: ComposeOptions, core: Core, role: ComposedRole): RoleServer {
  const { store, log, proxies, origin, metrics } = core;
  const { dispatcher } = core.webhooks;
  // Filled at listen time with loopback names when listening on loopback and none were given.
  const allowedHosts: string[] = [...(opts.allowedHosts ?? [])];
  const app = createHost({
    doors: role.doors,
    maxBodyBytes: opts.maxBodyBytes ?? 64 * 1024,
    proxies,
    allowedHosts,
    allowedOrigins: opts.allowedOrigins ?? [],
    log,
  });
  const sweeper: SweeperDeps = {
    scope: role.scope,
    clock: core.clock,
    ids: core.ids,
    log,
    retention: { eventRetentionMs: opts.eventRetentionMs, personalDataRetentionMs: opts.personalDataRetentionMs },
  };
  // Asked by a work hub (workerPollMs 0), the business is swept when its hub finds an expiry due.
  const asked = opts.workerPollMs === 0;
  const sweepMs = asked ? 0 : (opts.sweepIntervalMs ?? 30_000);
  const stopSweeper = startSweeper(sweepMs, sweeper);
  // /healthz, /readyz and /metrics are answered before any door, so no door's rules apply to them.
  const probes = probeHandler(store, {
    dispatcher: () => dispatcherState(dispatcher, opts.webhooks?.enabled !== false),
    shuttingDown: () => listener.shuttingDown,
  });
  const metricsEndpoint = metricsHandler(metrics, { proxies, adminKeyHashes: role.authPolicy.adminKeyHashes });
  const listener = createListener({
    app,
    proxies,
    log,
    early: (req, env) => probes(req) ?? metricsEndpoint(req, env),
    tls: opts.tls,
    connections: opts.connections,
    sandbox: opts.sandbox,
    configuredPublicUrl: role.configuredPublicUrl,
    allowLoopbackProfiles: Boolean(opts.security?.allowLoopbackProfiles),
    allowedHosts,
    pipeline: core.pipeline,
    onListening: (url) => {
      // The address listened on: the public origin when none was configured (set once, here).
      origin.set(url);
      role.onListening();
    },
    stopDeliveries: async (boundMs) => {
      stopSweeper();
      await dispatcher.stop(boundMs);
    },
    stopServices: async () => {
      stopSweeper();
      await role.stopWorkers();
      await dispatcher.stop();
      core.webhooks.unsubscribe();
      await role.closeDoors();
    },
    closeStore: async () => {
      // Last: nothing reports any more. A hosted business's series leave the process's registry.
      metrics.close();
      await store.close();
    },
  });
  const due = dueParts(core, role, asked || sweepMs > 0);
  const hubSweep = { lastMs: core.clock.now(), run: () => sweepOnce(sweeper) };
  // Added one by one: a copy spread from another object took a hidden class of its own per server.
  return Object.assign(roleServer(core, role, app, listener), {
    nextDueAt: () => nextDueAt(due),
    runDue: () => runDue(due, hubSweep),
    sweepNow: () => sweepOnce(sweeper),
  });
}

/** What the composed server offers its embedder: its parts, and the listener's listen, close and shutdown. */
function roleServer(
  core: Core,
  role: ComposedRole,
  app: RoleServer['app'],
  listener: ReturnType<typeof createListener>,
): Omit<RoleServer, 'nextDueAt' | 'sweepNow' | 'runDue'> {
  const { store, metrics, origin } = core;
  const { dispatcher } = core.webhooks;
  return {
    metrics,
    adminKeyHashes: role.authPolicy.adminKeyHashes,
    origin,
    scope: role.scope,
    store,
    availabilityCache: core.availabilityCache,
    pipeline: core.pipeline,
    app,
    profiles: core.resolver,
    dispatcher,
    paymentWorker: role.paymentWorker,
    mailWorker: role.mailWorker,
    mailDestination: role.mailDestination,
    calendars: role.calendars,
    keyring: core.keyring,
    hub: core.hub,
    clock: core.clock,
    ids: core.ids,
    profile: role.profile,
    listen: (port, host) => listener.listen(port, host),
    close: () => listener.close(),
    shutdown: (timeoutMs) => listener.shutdown(timeoutMs),
  };
}

/** What `nextDueAt` and `runDue` read of a composed server: its store, clock and workers. */
function dueParts(core: Core, role: ComposedRole, sweeps: boolean): DueParts {
  return {
    store: core.store,
    clock: core.clock,
    dispatcher: core.webhooks.dispatcher,
    mailWorker: role.mailWorker,
    paymentWorker: role.paymentWorker,
    calendars: role.calendars,
    sweeps,
  };
}
