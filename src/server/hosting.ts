/**
 * Many businesses in one process, one listener (`usp-server host serve`): the request's Host (port
 * dropped, lowercased) is looked up in the deployment's directory, and the business it names answers
 * through its own composed server (store, workers, keys, OAuth, dashboard: `createUspServer` whole),
 * composed on its first request and kept in a bounded pool (hosted-pool.ts). A host the directory
 * does not know gets a plain 404 that names no business. A business the operator suspended is still
 * served, suspended (`UspServer.setSuspended`): its profile, catalog and tools say so and why, and
 * nothing can be booked, while reads, cancellations and its dashboard keep working.
 * Each business's public origin is configuration: its first host name with the deployment's public
 * scheme and port, never what a request's headers say.
 *
 * Storage: SQLite, one file per business under `<data>/businesses/`; PostgreSQL, one schema per
 * business (`usp_<id>`) on the one database, each with a small pool.
 */
import { dashboardSetupPending, offerDashboardSetup, type Logger } from '../operations/index.js';
import type { DeploymentDirectory, HostedBusiness } from '../store/index.js';
import { trustedProxies } from '../security/index.js';
import { createUspServer, type ServerOptions, type UspServer } from './compose.js';
import { createListener, type Listener } from './listener.js';
import { BusinessPool } from './hosted-pool.js';
import { DEFAULT_WAKE_INTERVAL_MS, startWaker, type Waker } from './hosted-waker.js';
import { WorkHub } from './work-hub.js';
import { createOperatorDoor } from '../bindings/operator/index.js';
import { DEFAULT_SUSPENSION, operatorDesk } from './operator-desk.js';
import type { TxtResolver } from './operator-domains.js';
import { hostedProbes } from './hosted-probes.js';
import { createMetricsFamily, type MetricsFamily } from './metrics.js';
import { connectedPayments, connectWebhookDoor, type ConnectAnswer, type ConnectPlatform } from './hosted-connect.js';

import { seedSqliteFile } from './hosted-store-template.js';
import { hostedDefinition, storeOf } from './hosted-stores.js';

export { hostedDefinition, storeOf } from './hosted-stores.js';

/** What every hosted business is composed with (its own store, origin, hosts and log are the deployment's to set). */
export type HostedServerOptions = Omit<
  ServerOptions,
  | 'business'
  | 'db'
  | 'definition'
  | 'definitionOrigin'
  | 'allowedHosts'
  | 'resolveScope'
  | 'role'
  | 'log'
  | 'tls'
  | 'connections'
  | 'trustProxy'
  | 'sharedMetrics'
>;

/** The operator's host name (no port, lowercased) and the sha-256 hex digests of its keys. */
export interface OperatorOptions {
  host: string;
  keyHashes: readonly string[];
  /** Reads a custom domain's verification TXT record (default: node:dns/promises; tests inject one). */
  resolveTxt?: TxtResolver;
}

export interface HostingOptions {
  directory: DeploymentDirectory;
  /** The deployment's data folder: each business's SQLite file is under `businesses/`. */
  dataDir: string;
  /** A postgres:// URL: every business gets a schema of its own on this database instead of a file. */
  db?: string;
  /** The start of each business's PostgreSQL schema name (default `usp_`; then the id). */
  schemaPrefix?: string;
  /**
   * Every business in this one PostgreSQL schema instead, keyed by business under row-level security
   * (src/store/postgres/business-keyed.ts), on one pool shared by the process's businesses.
   */
  pgKeyed?: string;
  /** Connections each business's PostgreSQL pool holds (default 2). */
  poolSizePerBusiness?: number;
  server: HostedServerOptions;
  /** Per business, more of its options (tests: an admin key each). */
  serverFor?: (b: HostedBusiness) => Partial<HostedServerOptions>;
  log: Logger;
  /** Most businesses composed at once (default 200). */
  maxLoaded?: number;
  /** Close a business idle this long (ms; default 10 minutes; 0: never). */
  idleCloseMs?: number;
  /** The scheme and port of the businesses' public origins (default: the listener's). */
  publicScheme?: 'http' | 'https';
  publicPort?: number;
  tls?: ServerOptions['tls'];
  connections?: ServerOptions['connections'];
  trustProxy?: ServerOptions['trustProxy'];
  /**
   * Tests only, never set by the CLI: the host name a request is routed by, from its own name and
   * path. The isolation matrix's fault injection (test/server/isolation-matrix.test.ts) uses it to
   * misroute one door's paths to another business, Host and all, to show each row catches it.
   */
  route?: (name: string, path: string) => string;
  /** The operator's admin API at a host name of its own (src/bindings/operator); none when not given. */
  operator?: OperatorOptions;
  /** Most businesses labelled each on the deployment's /metrics (default hosted-probes.ts MAX_LABELLED). */
  metricsLabelled?: number;
  /**
   * Connected accounts (Stripe Connect): the platform's payment options. A business with an account in
   * the directory takes payments on it, and the deployment answers the provider's one endpoint for every
   * account's events (hosted-connect.ts) at any of its host names.
   */
  paymentConnect?: ConnectPlatform;
  /**
   * The waker (hosted-waker.ts): how often it wakes the businesses not loaded here whose background
   * work is due (ms; default 15 s; 0: none), how many at once (default 2), and for how long each at
   * most (ms; default 10 s). Absent: no waker (an embedder or test that steps the pool itself);
   * `host serve` always gives it.
   */
  wake?: { intervalMs?: number; concurrency?: number; boundMs?: number };
  /**
   * The process's work hub (work-hub.ts): the one scheduler of every loaded business's background
   * work, none of whose workers polls on its own. How long an idle business waits before it is asked
   * again (ms; default 5 s), a busy one (default 1 s), how many are asked at once (default 4). False:
   * each business's workers poll every second by themselves, as a single-business server's do.
   */
  workers?: { idleMs?: number; busyMs?: number; concurrency?: number } | false;
}

export interface Hosting {
  listen(port: number, host?: string): Promise<string>;
  /** The ids of the businesses composed now, least recently used first. */
  readonly loaded: string[];
  /** The composed server of a loaded business (tests, diagnostics). */
  pool: BusinessPool<UspServer>;
  /** The waker, once listening (unless turned off). */
  readonly waker: Waker | undefined;
  /** The work hub (unless turned off). */
  readonly hub: WorkHub | undefined;
  close(): Promise<void>;
  shutdown(timeoutMs: number): Promise<boolean>;
}

/** A hosted business's public origin: its name with the deployment's scheme and port (the scheme's default port left out). */
export function publicOrigin(scheme: string, name: string, port: string): string {
  const shownPort = (scheme === 'https' && port === '443') || (scheme === 'http' && port === '80') ? '' : `:${port}`;
  return `${scheme}://${name}${shownPort}`;
}

/** A Host header's name: the port dropped, lowercased, a trailing dot dropped. */
export function hostName(header: string | null): string {
  const h = (header ?? '').trim().toLowerCase();
  const name = h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.replace(/:\d*$/, '');
  return name.replace(/\.$/, '');
}

/** How far ahead a loaded business is held when the deployment runs no waker. */
const HOLD_WITHOUT_WAKER_MS = 60_000;

const plain = (status: number, text: string) =>
  new Response(`${text}\n`, {
    status,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' },
  });

export function createHosting(o: HostingOptions): Hosting {
  const proxies = trustedProxies(o.trustProxy);
  let origin: { scheme: string; port: string } | undefined;
  const originOf = (b: HostedBusiness) => publicOrigin(origin!.scheme, b.hosts[0]!, origin!.port);
  const now = () => o.server.clock?.now() ?? Date.now();
  let waker: Waker | undefined;
  // One metrics registry for every business of the process, each series labelled with its id (metrics.ts).
  const metrics = createMetricsFamily({ labelled: true });
  const hub = o.workers === false ? undefined : new WorkHub({ ...o.workers, log: o.log });
  const pool = businessPool(o, originOf, now, { waker: () => waker, hub, metrics });
  const operator = operatorDoorOf(o, pool, proxies);
  // /readyz and /metrics: a business's own at its host, the deployment's at any other name (hosted-probes.ts).
  const probes = hostedProbes({
    directory: o.directory,
    pool,
    metrics,
    proxies,
    operatorKeyHashes: o.operator?.keyHashes ?? [],
    shuttingDown: () => listener.shuttingDown,
    webhooksEnabled: (b) => ({ ...o.server, ...o.serverFor?.(b) }).webhooks?.enabled !== false,
    maxLabelled: o.metricsLabelled,
    stores: o,
  });
  const connect =
    o.paymentConnect &&
    connectWebhookDoor({
      platform: o.paymentConnect,
      directory: o.directory,
      originOf,
      now: () => o.server.clock?.now() ?? Date.now(),
      log: o.log,
      deliver: (b, req) => open(o, pool, b, req, undefined),
    });
  const fetch = hostedFetch(o, { operator, probes, pool, connect });
  const listener: Listener = createListener({
    app: { fetch } as never,
    proxies,
    log: o.log,
    early: (req) =>
      new URL(req.url).pathname === '/healthz'
        ? Promise.resolve(plain(listener.shuttingDown ? 503 : 200, 'ok'))
        : undefined,
    tls: o.tls,
    connections: o.connections,
    sandbox: Boolean(o.server.sandbox),
    // Off loopback, the businesses' origins must be https (the listener refuses to start otherwise, sandbox aside).
    configuredPublicUrl: o.publicScheme === 'https' ? "https://(each business's host name)" : undefined,
    allowLoopbackProfiles: Boolean(o.server.security?.allowLoopbackProfiles),
    allowedHosts: [],
    pipeline: { inFlight: 0, drain: async () => true },
    onListening: (url) => {
      const u = new URL(url);
      origin = { scheme: o.publicScheme ?? u.protocol.slice(0, -1), port: String(o.publicPort ?? u.port) };
      // Businesses are composed with their origins: the waker starts once they are known.
      if (o.wake && (o.wake.intervalMs ?? DEFAULT_WAKE_INTERVAL_MS) > 0)
        waker = startWaker({ ...o.wake, directory: o.directory, pool, now, log: o.log });
    },
    stopDeliveries: async () => undefined,
    stopServices: async () => {
      await waker?.stop();
      await pool.closeAll();
      await hub?.stop();
    },
    closeStore: async () => o.directory.close(),
  });
  return {
    listen: (port, host) => listener.listen(port, host),
    get loaded() {
      return pool.ids;
    },
    pool,
    get waker() {
      return waker;
    },
    hub,
    close: () => listener.close(),
    shutdown: (ms) => listener.shutdown(ms),
  };
}

/**
 * The businesses composed at once (hosted-pool.ts), each recorded in the directory: held ahead of now
 * while loaded (a process that dies holding it leaves it due soon after), due when its work is once
 * closed (hosted-waker.ts).
 */
function businessPool(
  o: HostingOptions,
  originOf: (b: HostedBusiness) => string,
  now: () => number,
  { waker, hub, metrics }: { waker: () => Waker | undefined; hub: WorkHub | undefined; metrics: MetricsFamily },
): BusinessPool<UspServer> {
  return new BusinessPool<UspServer>({
    open: async (id) => {
      const server = await composeHosted(o, o.directory.get(id)!, originOf, metrics);
      hub?.attach(id, server);
      // The request that opened it does not wait on (nor fail with) the directory's write.
      Promise.resolve()
        .then(() => o.directory.wake.set([id], now() + (waker()?.holdMs ?? HOLD_WITHOUT_WAKER_MS)))
        .catch((err) =>
          o.log.warn('could not hold a loaded business in the directory', { business: id, error: String(err) }),
        );
      return server;
    },
    maxLoaded: o.maxLoaded ?? 200,
    idleCloseMs: o.idleCloseMs ?? 600_000,
    now: () => performance.now(),
    log: o.log,
    // Closed (idle, evicted, woken and done, shut down): due again when its work is.
    closing: async (id, server) => {
      hub?.detach(id, server);
      const w = waker();
      await o.directory.wake.set([id], await (w ? w.dueAt(id, server) : server.nextDueAt()));
    },
  });
}

/** The operator's door at its own host name, when the deployment has an operator. */
function operatorDoorOf(o: HostingOptions, pool: BusinessPool<UspServer>, proxies: ReturnType<typeof trustedProxies>) {
  if (!o.operator) return undefined;
  return createOperatorDoor({
    desk: operatorDesk({
      operatorHost: o.operator.host,
      directory: o.directory,
      pool,
      dataDir: o.dataDir,
      db: o.db,
      schemaPrefix: o.schemaPrefix,
      pgKeyed: o.pgKeyed,
      log: o.log,
      resolveTxt: o.operator.resolveTxt,
    }),
    keyHashes: o.operator.keyHashes,
    proxies,
    log: o.log,
    now: () => Date.now(),
  });
}

/** The deployment's one fetch: the operator's host, a business's probes, then the business itself (opened on first use). */
function hostedFetch(
  o: HostingOptions,
  p: {
    operator: ReturnType<typeof createOperatorDoor> | undefined;
    probes: ReturnType<typeof hostedProbes>;
    pool: BusinessPool<UspServer>;
    connect: ReturnType<typeof connectWebhookDoor> | undefined;
  },
): (sent: Request, env: unknown) => Promise<Response> {
  const { operator, probes, pool, connect } = p;
  return async (sent, env) => {
    const req = o.route ? rerouted(sent, o.route) : sent;
    const connected = connect?.(req);
    if (connected) return framed(await connected);
    const name = hostName(req.headers.get('host'));
    if (operator && name === o.operator!.host) return (await probes.deployment(req, env)) ?? operator(req, env);
    const b = o.directory.byHost(name);
    if (!b) return (await probes.deployment(req, env)) ?? plain(404, 'No business is served at this address.');
    const probed = probes.business(req, env, b);
    if (probed) return probed;
    return open(o, pool, b, req, env);
  };
}

/** A request answered by business `b`, opened first if it is not loaded. */
async function open(
  o: HostingOptions,
  pool: BusinessPool<UspServer>,
  b: HostedBusiness,
  req: Request,
  env: unknown,
): Promise<Response> {
  try {
    // Names or account changed since it was composed (another process may have changed them): composed again.
    const stale = await pool.peek(b.id, async (server) =>
      composedWith.get(server) === composedKey(b) ? undefined : server,
    );
    if (stale) pool.retire(b.id, stale);
    return await pool.use(b.id, async (server) => {
      await followStatus(server, b);
      return server.app.fetch(req, env);
    });
  } catch (err) {
    o.log.error('could not open a hosted business', { business: b.id, error: String(err) });
    return plain(503, 'This business cannot be reached at the moment. Try again later.');
  }
}

/** The request as the test seam `route` sends it on: to the host name it names, in its Host header too. */
function rerouted(req: Request, route: (name: string, path: string) => string): Request {
  const name = hostName(req.headers.get('host'));
  const to = route(name, new URL(req.url).pathname);
  if (to === name) return req;
  const headers = new Headers(req.headers);
  headers.set('host', to);
  return new Request(req, { headers, duplex: 'half' } as RequestInit);
}

/** The directory's word on suspension, taken up by a loaded business (another process may have changed it). */
async function followStatus(server: UspServer, b: HostedBusiness): Promise<void> {
  const wanted = b.status === 'suspended' ? suspensionReason(b) : undefined;
  if (server.biz.suspended?.reason !== wanted) await server.setSuspended(wanted);
}

const suspensionReason = (b: HostedBusiness) => b.reason ?? DEFAULT_SUSPENSION;

/** What a business is composed with from the directory, beyond its status: its names and its connected account. */
const composedWith = new WeakMap<UspServer, string>();
const composedKey = (b: HostedBusiness) => JSON.stringify([b.hosts, b.paymentAccount ?? null]);

/** One business composed whole, at its own origin, on its own store, logging under its id. */
async function composeHosted(
  o: HostingOptions,
  b: HostedBusiness,
  originOf: (b: HostedBusiness) => string,
  metrics: MetricsFamily,
): Promise<UspServer> {
  const own = o.serverFor?.(b) ?? {};
  const log = withFields(o.log, { business: b.id });
  const db = storeOf(o, b.id);
  // A new business's file starts as a copy of the migrated schema (./hosted-store-template.ts).
  if (!o.db) await seedSqliteFile(db);
  const server = await createUspServer({
    ...o.server,
    ...own,
    business: await hostedDefinition(b, o.directory),
    definition: 'stored_first',
    definitionOrigin: b.origin === 'demo' ? { kind: 'demo' } : { kind: 'file', file: b.origin },
    db,
    // Keyed, the pool is the process's, shared by every business (postgres-store.ts, keyedPools).
    dbTimeouts: { ...o.server.dbTimeouts, poolSize: o.pgKeyed ? 10 : (o.poolSizePerBusiness ?? 2) },
    payments: connectedPayments(o.paymentConnect, b, own.payments ?? o.server.payments),
    settingsOverride: { ...o.server.settingsOverride, ...own.settingsOverride, public_url: originOf(b) },
    allowedHosts: b.hosts,
    // Asked by the process's work hub: no worker of its own polls (work-hub.ts).
    ...(o.workers === false ? {} : { workerPollMs: 0 }),
    ...(b.status === 'suspended' ? { suspended: { reason: suspensionReason(b) } } : {}),
    log,
    sharedMetrics: { family: metrics, business: b.id },
  });
  composedWith.set(server, composedKey(b));
  await offerSetup(server, log);
  return server;
}

/** The Connect endpoint's plain answers, framed as the router's own. */
function framed(a: ConnectAnswer): Response {
  if (a instanceof Response) return a;
  const r = plain(a.status, a.text);
  if (a.allow) r.headers.set('Allow', a.allow);
  return r;
}

/** A business with no dashboard user yet: the one-time link to create the owner's account, as `serve` gives it. */
async function offerSetup(server: UspServer, log: Logger): Promise<void> {
  try {
    // A link offered before (logged, or mailed to the owner by the operator) keeps working across reloads.
    if (await dashboardSetupPending(server.store, server.clock.now())) return;
    const offer = await offerDashboardSetup(server.store, server.clock.now());
    if (offer)
      log.info(
        `dashboard: no account yet. Create the owner's account in the browser (the link works once, for 24 hours): ${server.biz.publicUrl}/admin/setup?token=${offer.token}`,
      );
  } catch (err) {
    log.warn('could not offer the dashboard setup link', { error: (err as Error).message });
  }
}

function withFields(log: Logger, fields: Record<string, unknown>): Logger {
  return {
    debug: (m, f) => log.debug?.(m, { ...fields, ...f }),
    info: (m, f) => log.info(m, { ...fields, ...f }),
    warn: (m, f) => log.warn(m, { ...fields, ...f }),
    error: (m, f) => log.error(m, { ...fields, ...f }),
  };
}
