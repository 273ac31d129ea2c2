/**
 * /readyz and /metrics of a hosting deployment (`usp-server host serve`), answered by host name before
 * the business's doors (/healthz, the process being up, is answered at every name by the listener):
 *
 * - At a business's host: its own readiness, without composing it: loaded, its store answers and takes
 *   writes, its webhook dispatcher runs, the process is not shutting down; not loaded, what its first
 *   request needs, read cheaply (its SQLite file, when it has one yet, opens and reads; on PostgreSQL
 *   the database answers through the directory's connection), so that a monitor polling every business
 *   keeps none loaded (docs/DECISIONS.md). At /metrics its own figures only, composing it first if it
 *   is not loaded, as any request to it would, every sample labelled `business="<id>"`,
 *   without the process's (which are every business's together). Open to a loopback client, or to
 *   that business's admin API key: another business's key opens nothing here.
 * - At the operator's host, and at any name no business has (a load balancer probing by address):
 *   the deployment's readiness (its directory answers, the process is not shutting down; it names no
 *   business), and at /metrics the deployment's figures: businesses hosted by status and loaded, the
 *   process's, and each loaded business's labelled by business; open to a loopback client or the
 *   operator's key. The labels are bounded: the MAX_LABELLED most recently used loaded businesses
 *   have a label each, the others are added up under `business="_other"` (docs/DECISIONS.md).
 */
import { AggregatorRegistry, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { TrustedProxies } from '../security/index.js';
import type { DeploymentDirectory, HostedBusiness } from '../store/index.js';
import type { BusinessPool } from './hosted-pool.js';
import { dispatcherState, probeHandler } from './probes.js';
import { metricsAllowed, metricsRefused } from './metrics-endpoint.js';
import type { UspServer } from './compose.js';
import { storeOf, type HostedStoreOptions } from './hosted-stores.js';
import type { MetricSeries, MetricsFamily } from './metrics.js';

/** Most businesses with a `business` label of their own on the deployment's /metrics; the rest are `_other`. */
export const MAX_LABELLED = 100;
export const OTHER_BUSINESSES = '_other';
const READY_TIMEOUT_MS = 2000;

export interface HostedProbeDeps {
  directory: DeploymentDirectory;
  pool: BusinessPool<UspServer>;
  /** The process's one registry of every loaded business's series, labelled by business. */
  metrics: MetricsFamily;
  proxies: TrustedProxies;
  /** The operator's key digests (none: the deployment's /metrics is open on loopback only). */
  operatorKeyHashes: readonly string[];
  shuttingDown: () => boolean;
  /** Whether a business runs a webhook dispatcher (false: turned off on purpose, not a failure). */
  webhooksEnabled: (b: HostedBusiness) => boolean;
  maxLabelled?: number;
  /** Where each business's store is (a business not loaded is checked there, not composed). */
  stores: HostedStoreOptions;
}

export interface HostedProbes {
  /** At a business's host: its /readyz or /metrics, or undefined for any other request. */
  business(req: Request, env: unknown, b: HostedBusiness): Promise<Response> | undefined;
  /** At the operator's host or a name no business has: the deployment's /readyz or /metrics, or undefined. */
  deployment(req: Request, env: unknown): Promise<Response> | undefined;
}

export function hostedProbes(d: HostedProbeDeps): HostedProbes {
  const own = deploymentRegistry(d);
  const probe = (req: Request): 'readyz' | 'metrics' | undefined => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
    // Most requests name neither: no URL parsed for them.
    if (!req.url.includes('/readyz') && !req.url.includes('/metrics')) return undefined;
    const path = new URL(req.url).pathname;
    return path === '/readyz' ? 'readyz' : path === '/metrics' ? 'metrics' : undefined;
  };
  return {
    business(req, env, b) {
      const what = probe(req);
      if (what === 'readyz') {
        if (d.shuttingDown()) return Promise.resolve(reply(503, { status: 'shutting_down' }, { 'Retry-After': '2' }));
        return d.pool
          .peek(b.id, async (server) => {
            const dispatcher = server.dispatcher;
            const handler = probeHandler(server.store, {
              dispatcher: () => dispatcherState(dispatcher, d.webhooksEnabled(b)),
              shuttingDown: d.shuttingDown,
            });
            return (await handler(req))!;
          })
          .then((loaded) => loaded ?? unloadedReady(d, b))
          .catch(() =>
            reply(503, { status: 'unavailable', reason: 'the business cannot be opened' }, { 'Retry-After': '2' }),
          );
      }
      if (what === 'metrics')
        return d.pool
          .use(b.id, async (server) => {
            if (!metricsAllowed(req, env, d.proxies, server.adminKeyHashes)) return metricsRefused('its admin API key');
            return text(req, await AggregatorRegistry.aggregate([summed(await server.metrics.own())]).metrics());
          })
          .catch(() =>
            reply(503, { status: 'unavailable', reason: 'the business cannot be opened' }, { 'Retry-After': '2' }),
          );
      return undefined;
    },
    deployment(req, env) {
      const what = probe(req);
      if (what === 'readyz') return deploymentReady(d);
      if (what !== 'metrics') return undefined;
      if (!metricsAllowed(req, env, d.proxies, d.operatorKeyHashes))
        return Promise.resolve(metricsRefused("the operator's key"));
      return deploymentMetrics(d, own).then((body) => text(req, body));
    },
  };
}

async function deploymentReady(d: HostedProbeDeps): Promise<Response> {
  if (d.shuttingDown()) return reply(503, { status: 'shutting_down' }, { 'Retry-After': '2' });
  try {
    const ok = await withinTimeout(Promise.resolve(d.directory.ready()));
    return ok
      ? reply(200, { status: 'ready', directory: 'ready' })
      : reply(
          503,
          { status: 'unavailable', reason: "the deployment's directory does not answer" },
          { 'Retry-After': '2' },
        );
  } catch {
    return reply(
      503,
      { status: 'unavailable', reason: "the deployment's directory does not answer" },
      { 'Retry-After': '2' },
    );
  }
}

/**
 * A business not loaded: ready when what its first request opens answers (the pool is left alone). On
 * SQLite its file, when it has one (a business never requested has none until then), opens read-only and
 * reads its schema, or else the folder its file will be made in is writable; on PostgreSQL its schema is
 * in the database the directory reads, so the directory's readiness is the database's.
 */
async function unloadedReady(d: HostedProbeDeps, b: HostedBusiness): Promise<Response> {
  const database = d.stores.db ? 'postgres' : 'sqlite';
  const unavailable = (reason: string) =>
    reply(503, { status: 'unavailable', database, loaded: false, reason }, { 'Retry-After': '2' });
  if (d.stores.db) {
    const ok = await withinTimeout(Promise.resolve(d.directory.ready())).catch(() => false);
    return ok ? reply(200, { status: 'ready', database, loaded: false }) : unavailable('the database does not answer');
  }
  const file = storeOf(d.stores, b.id);
  try {
    if (existsSync(file)) {
      // A short wait only: the driver waits synchronously, on the event loop every business shares.
      const db = new Database(file, { readonly: true, fileMustExist: true, timeout: 100 });
      try {
        db.prepare('SELECT count(*) FROM sqlite_master').get();
      } finally {
        db.close();
      }
    } else accessSync(existsSync(dirname(file)) ? dirname(file) : d.stores.dataDir, constants.W_OK);
  } catch {
    return unavailable("the business's store cannot be opened");
  }
  return reply(200, { status: 'ready', database, loaded: false });
}

/** `check`'s answer, or false when it takes longer than READY_TIMEOUT_MS. */
async function withinTimeout(check: Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      check,
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The deployment's own figures: businesses by status, businesses loaded, and the process's. */
function deploymentRegistry(d: HostedProbeDeps): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'usp_' });
  new Gauge({
    name: 'usp_hosting_businesses',
    help: "Businesses in the deployment's directory, by status (active, suspended).",
    labelNames: ['status'],
    registers: [registry],
    collect() {
      this.reset();
      const all = d.directory.list();
      for (const status of ['active', 'suspended'] as const)
        this.set({ status }, all.filter((b) => b.status === status).length);
    },
  });
  new Gauge({
    name: 'usp_hosting_businesses_loaded',
    help: 'Businesses composed in this process now (the others open on their first request).',
    registers: [registry],
    collect() {
      this.set(d.pool.ids.length);
    },
  });
  return registry;
}

/** Loaded businesses, most recently used first: the first MAX_LABELLED by id, the rest as one. */
async function deploymentMetrics(d: HostedProbeDeps, own: Registry): Promise<string> {
  const max = d.maxLabelled ?? MAX_LABELLED;
  const ids = [...d.pool.ids].reverse();
  const labelOf = new Map<string, string>();
  // The figures read at scrape time (each business's database gauges), then the registry read once.
  for (const [i, id] of ids.entries()) {
    const refreshed = await d.pool.peek(id, async (server) => {
      await server.metrics.refresh();
      return true;
    });
    if (refreshed) labelOf.set(id, i < max ? id : OTHER_BUSINESSES);
  }
  const parts: MetricSeries[][] = [
    (await own.getMetricsAsJSON()) as MetricSeries[],
    summed(await d.metrics.series((id) => labelOf.get(id))),
  ];
  return AggregatorRegistry.aggregate(parts).metrics();
}

/** Figures added up across businesses whatever their own aggregators say (the process's are per process). */
function summed(series: MetricSeries[]): MetricSeries[] {
  return series.map((m) => ({ ...m, aggregator: /_timestamp_seconds$|_stale$/.test(m.name) ? 'max' : 'sum' }));
}

function text(req: Request, body: string): Response {
  return new Response(req.method === 'HEAD' ? null : body, {
    status: 200,
    headers: { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': 'no-store' },
  });
}

function reply(status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers },
  });
}
