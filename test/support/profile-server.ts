/**
 * A tiny loopback HTTP server that plays the platform side of profile hosting (spec §8.2.2): it
 * serves platform profiles at chosen paths and counts what reaches it, per path and per TCP
 * connection, so a test can prove that a business did (or never did) fetch a profile.
 *
 * A profile is `{ usp: { version, capabilities: PLATFORM_CAPABILITIES }, keys: [...] }`; the business reaches it only
 * when it runs with `security.allowLoopbackProfiles` (plain http on 127.0.0.1).
 */
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { JsonWebKey } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';

export const PLATFORM_USP_VERSION = '2026-08-20';

/**
 * What a test platform declares by default: every capability of the protocol, so negotiation
 * (spec 8.3) never restricts it unless a test says otherwise (a platform declaring `{}` shares none).
 */
export const PLATFORM_CAPABILITIES: Record<string, Array<{ version: string }>> = Object.fromEntries(
  [
    'dev.usp-protocol.services.catalog',
    'dev.usp-protocol.services.catalog.subscriptions',
    'dev.usp-protocol.services.availability',
    'dev.usp-protocol.services.bookings',
    'dev.usp-protocol.services.waitlist',
    'dev.usp-protocol.discovery.registry',
    'dev.usp-server.services.bookings',
  ].map((k) => [k, [{ version: PLATFORM_USP_VERSION }]]),
);

export interface ProfileOptions {
  /** Published verification keys (UCP-canonical `keys`). */
  keys?: JsonWebKey[];
  /** The transition alias `signing_keys`. */
  signing_keys?: JsonWebKey[];
  webhook_url?: string;
  /** Further top-level members, merged last. */
  extra?: Record<string, unknown>;
}

export interface ProfileServer {
  /** `http://127.0.0.1:<port>` (https with `tls`) */
  readonly origin: string;
  readonly port: number;
  /** The absolute URL of `path` on this server (no registration). */
  urlFor(path: string): string;
  /** Serve a platform profile at `path` (replacing any earlier one); returns its URL. */
  addProfile(path: string, opts?: ProfileOptions): string;
  /** Serve arbitrary bytes at `path` (malformed profiles, error statuses, redirects). */
  setRaw(path: string, body: string, status?: number, headers?: Record<string, string>): string;
  /** Add a key to the profile at `path` (which must exist and have been added with addProfile). */
  addKey(path: string, jwk: JsonWebKey): void;
  /** Stop serving `path` (later requests get 404). */
  remove(path: string): void;
  /** HTTP requests received for `path` (any method, any status). */
  requests(path: string): number;
  /** HTTP requests received for every path. */
  totalRequests(): number;
  /** TCP connections accepted (counts attempts that never became an HTTP request, e.g. TLS). */
  connections(): number;
  close(): Promise<void>;
}

interface Entry {
  status: number;
  headers: Record<string, string>;
  body: () => string;
}

/** `tls`: serve https with this certificate (test/support/tls) instead of plain http. */
export async function startProfileServer(opts: { tls?: { key: string; cert: string } } = {}): Promise<ProfileServer> {
  const entries = new Map<string, Entry>();
  const profiles = new Map<
    string,
    { usp: { version: string; capabilities: Record<string, unknown> } } & Record<string, unknown>
  >();
  const counts = new Map<string, number>();
  let total = 0;
  let conns = 0;
  const sockets = new Set<Socket>();

  const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    total += 1;
    const e = entries.get(path);
    if (!e) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    res.writeHead(e.status, e.headers);
    res.end(req.method === 'HEAD' ? undefined : e.body());
  };
  const server: Server = opts.tls
    ? createHttpsServer({ key: opts.tls.key, cert: opts.tls.cert }, handler)
    : createServer(handler);
  server.on('connection', (s: Socket) => {
    conns += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const norm = (path: string) => (path.startsWith('/') ? path : `/${path}`);
  const urlFor = (path: string) => `${origin}${norm(path)}`;

  return {
    origin,
    port,
    urlFor,
    addProfile(path, opts = {}) {
      const p = norm(path);
      const doc: { usp: { version: string; capabilities: Record<string, unknown> } } & Record<string, unknown> = {
        usp: { version: PLATFORM_USP_VERSION, capabilities: PLATFORM_CAPABILITIES },
        keys: [...(opts.keys ?? [])],
        ...(opts.signing_keys ? { signing_keys: [...opts.signing_keys] } : {}),
        ...(opts.webhook_url ? { webhook_url: opts.webhook_url } : {}),
        ...(opts.extra ?? {}),
      };
      profiles.set(p, doc);
      entries.set(p, {
        status: 200,
        headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=60' },
        body: () => JSON.stringify(profiles.get(p)),
      });
      return urlFor(p);
    },
    setRaw(path, body, status = 200, headers = { 'Content-Type': 'application/json' }) {
      const p = norm(path);
      profiles.delete(p);
      entries.set(p, { status, headers, body: () => body });
      return urlFor(p);
    },
    addKey(path, jwk) {
      const doc = profiles.get(norm(path));
      if (!doc) throw new Error(`no profile at ${path}`);
      (doc.keys as JsonWebKey[]).push(jwk);
    },
    remove(path) {
      entries.delete(norm(path));
      profiles.delete(norm(path));
    },
    requests: (path) => counts.get(norm(path)) ?? 0,
    totalRequests: () => total,
    connections: () => conns,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
