/**
 * The HTTP listener apart from composition: the fetch handler in front of the host (probes and
 * /metrics first, forwarding headers forgotten for untrusted peers, requests counted for the
 * shutdown), listening with the connection limits and the refusals of unsafe starts, and stopping
 * at once or gracefully.
 */
import { serve, type ServerType } from '@hono/node-server';
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../operations/index.js';
import { LOOPBACK_HOSTS, isLoopbackHost, viaTrustedProxy, type TrustedProxies } from '../security/index.js';
import { guardConnections } from './connection-guard.js';
import type { HostApp } from './host.js';

/** How long a client may take and how many may be connected at once; every one has a safe default. */
export interface ConnectionLimits {
  /** A request's headers must arrive within this (slow-loris defence). Default 10 s. */
  headersTimeoutMs: number;
  /** The whole request (headers and body) must arrive within this; long responses (SSE) are not cut. Default 30 s. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. Default 5 s. */
  keepAliveTimeoutMs: number;
  /**
   * Most sockets at once; at it, a newcomer replaces the socket idle the longest, or is closed when
   * all are busy. Default 1000.
   */
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

export interface ListenerOptions {
  app: HostApp;
  proxies: TrustedProxies;
  log: Logger;
  /** Answers before any door (/healthz, /readyz, /metrics), or undefined to go on to the host. */
  early(req: Request, env: unknown): Promise<Response> | undefined;
  tls?: { cert: string | Buffer; key: string | Buffer };
  connections?: Partial<ConnectionLimits>;
  sandbox: boolean;
  /** --public-url (or the business file's), without its trailing slash. */
  configuredPublicUrl?: string;
  allowLoopbackProfiles: boolean;
  /** Host names the host accepts; filled here with loopback names when listening on loopback and none were given. */
  allowedHosts: string[];
  /** The server listens at `url` (told before listen() resolves). */
  onListening(url: string): void;
  /** Calls still running in other doors (stdio MCP), and a wait for them. */
  pipeline: { readonly inFlight: number; drain(timeoutMs: number): Promise<boolean> };
  /** Stop what runs beside the listener (sweep, workers, MCP sessions), before the listener closes. */
  stopServices(): Promise<void>;
  /** Release delivery leases within `boundMs` (the graceful path, before stopServices). */
  stopDeliveries(boundMs: number): Promise<void>;
  /** Close the database, last. */
  closeStore(): Promise<void>;
}

export interface Listener {
  readonly shuttingDown: boolean;
  listen(port: number, host?: string): Promise<string>;
  close(): Promise<void>;
  shutdown(timeoutMs: number): Promise<boolean>;
}

export function createListener(o: ListenerOptions): Listener {
  let http: ServerType | undefined;
  // Requests being answered by the host (a shutdown waits for them).
  const host = new InFlight();
  const hostFetch = o.app.fetch as (r: Request, ...a: unknown[]) => Response | Promise<Response>;
  const fetch = async (req: Request, ...rest: unknown[]): Promise<Response> => {
    forgetForwarding(rest[0], o.proxies);
    const early = o.early(req, rest[0]);
    if (early) return early;
    host.enter();
    try {
      const res = await hostFetch(req, ...rest);
      // Shutting down: no keep-alive, so each client's next request opens a connection the closed listener refuses.
      if (listener.shuttingDown) return withHeader(res, 'Connection', 'close');
      return res;
    } finally {
      host.leave();
    }
  };
  const close = async () => {
    await o.stopServices();
    if (http) {
      const h = http as ServerType & { closeAllConnections?: () => void };
      await new Promise<void>((resolve) => {
        h.close(() => resolve());
        h.closeAllConnections?.();
      });
    }
    await o.closeStore();
  };
  // A data property set by the shutdown: a getter closing over this call would give each server's
  // listener a property dictionary of its own (about 0.5 KB a hosted business).
  const listener: { -readonly [K in keyof Listener]: Listener[K] } = {
    shuttingDown: false,
    async listen(port, hostname = '127.0.0.1') {
      const loopback = isLoopbackHost(hostname);
      const limits = startLimits(o, hostname, loopback);
      await new Promise<void>((resolve, reject) => {
        http = startServer(o, fetch, { port, hostname, limits }, resolve);
        http.once('error', reject);
      });
      const addr = http!.address() as AddressInfo;
      const shownHost = hostname.includes(':') ? `[${hostname}]` : hostname === '0.0.0.0' ? '127.0.0.1' : hostname;
      // The address listened on is a name clients use too (127.0.0.2 is not among the usual ones).
      if (o.allowedHosts.length === 0 && loopback) o.allowedHosts.push(...new Set([...LOOPBACK_HOSTS, shownHost]));
      const url = `${o.tls ? 'https' : 'http'}://${shownHost}:${addr.port}`;
      if (o.allowLoopbackProfiles && !loopback) {
        throw new Error('--allow-loopback-profiles is only allowed when the server itself listens on loopback');
      }
      o.onListening(url);
      return url;
    },
    close,
    async shutdown(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      const left = () => Math.max(0, deadline - Date.now());
      listener.shuttingDown = true;
      o.log.info('shutting down', { timeout_ms: timeoutMs, in_flight: Math.max(host.count, o.pipeline.inFlight) });
      // Stop accepting: the listener closes, idle keep-alive connections with it; busy ones finish their request.
      const h = http as (ServerType & { closeIdleConnections?: () => void }) | undefined;
      h?.close();
      h?.closeIdleConnections?.();
      const hostDrained = await host.idle(left());
      // Calls from other doors (stdio MCP) finish too.
      const drained = hostDrained && (await o.pipeline.drain(left()));
      if (!drained) {
        const inFlightNow = Math.max(host.count, o.pipeline.inFlight);
        o.log.warn('shutdown deadline reached with calls in flight; cutting them', { in_flight: inFlightNow });
      }
      // Deliveries in flight get what is left of the bound (at most a second); the leases of the rest are released.
      await o.stopDeliveries(Math.min(1000, left()));
      await close();
      return drained;
    },
  };
  return listener;
}

/**
 * A count of calls in flight, and a wait (bounded) for it to reach zero. A class: a literal with a
 * getter closing over its count took a property dictionary of its own per server (a hosted business
 * is one), about 0.8 KB.
 */
class InFlight {
  count = 0;
  // Made by the first wait (a shutdown with calls in flight).
  private waiting: Set<() => void> | undefined;

  enter(): void {
    this.count++;
  }

  leave(): void {
    if (--this.count === 0 && this.waiting) for (const f of [...this.waiting]) f();
  }

  async idle(ms: number): Promise<boolean> {
    if (this.count === 0) return true;
    const waiting = (this.waiting ??= new Set());
    return new Promise<boolean>((resolve) => {
      const t = setTimeout(() => {
        waiting.delete(done);
        resolve(false);
      }, ms);
      const done = () => {
        clearTimeout(t);
        waiting.delete(done);
        resolve(true);
      };
      waiting.add(done);
    });
  }
}

/** The connection limits to listen with, after the refusals of unsafe or contradictory starts. */
function startLimits(o: ListenerOptions, host: string, loopback: boolean): ConnectionLimits {
  // Plaintext only where nobody can listen in: loopback, or a proxy that terminated TLS (spec 10.2.1).
  if (!o.tls && !loopback && !o.proxies.any) {
    throw new Error(
      `refusing to serve plain HTTP on ${host}: give --tls-cert/--tls-key, listen on loopback, ` +
        'or run behind a TLS proxy with --trust-proxy',
    );
  }
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...(o.connections ?? {}) };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new Error(
      `the header deadline (${limits.headersTimeoutMs / 1000} s) must not exceed the request deadline ` +
        `(${limits.requestTimeoutMs / 1000} s): adjust --headers-timeout or --request-timeout`,
    );
  }
  // Reachable from elsewhere: checkout links and profile endpoints must name the https origin
  // platforms and buyers reach, which the listening address does not tell.
  if (!loopback && !o.sandbox && !o.configuredPublicUrl?.startsWith('https://')) {
    const got = o.configuredPublicUrl ? ` (got ${o.configuredPublicUrl})` : '';
    throw new Error(
      `refusing to start on ${host} without an https public URL${got}: ` +
        'give --public-url https://<the address platforms and buyers reach>',
    );
  }
  return limits;
}

/** The Node server (HTTPS with the certificate given), its deadlines set and its connections guarded. */
function startServer(
  o: ListenerOptions,
  fetch: (req: Request, ...rest: unknown[]) => Promise<Response>,
  at: { port: number; hostname: string; limits: ConnectionLimits },
  listening: () => void,
): ServerType {
  const { port, hostname, limits } = at;
  // Node checks the header and request deadlines on this interval (30 s by default): keep it a
  // fraction of the shortest deadline so a slow client is cut close to its deadline.
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  const timing = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(shortest / 4))),
  };
  const http = o.tls
    ? serve(
        {
          fetch,
          port,
          hostname,
          createServer: createHttpsServer,
          serverOptions: { cert: o.tls.cert, key: o.tls.key, ...timing },
        },
        listening,
      )
    : serve({ fetch, port, hostname, serverOptions: timing }, listening);
  const server = http as HttpServer;
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  const perAddress = Math.min(limits.maxConnectionsPerAddress, limits.maxConnections);
  guardConnections(server, { ...limits, maxConnectionsPerAddress: perAddress }, o.proxies);
  return http;
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
 * A request from a peer that is not a trusted proxy: its X-Forwarded-* headers are dropped from the
 * Node request, so the OAuth library (which reads them from there) believes none of them either.
 */
function forgetForwarding(env: unknown, proxies: TrustedProxies): void {
  const incoming = (env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming || !proxies.any || viaTrustedProxy(env, proxies)) return;
  for (const name of Object.keys(incoming.headers)) if (name.startsWith('x-forwarded-')) delete incoming.headers[name];
}
