/**
 * The HTTP host: one listener, the doors side by side. Each request belongs to exactly one door (the
 * first, in order, that claims it; the last door takes what no other claims), and everything that
 * answers it speaks that door's format: JSON-RPC for MCP, problem+json for REST, HTML for the
 * buyer's pages. The concerns every door shares live here once, and answer through the door:
 * plaintext refusal behind a TLS proxy, Host and Origin checks (DNS rebinding) and CORS for the
 * doors browsers' scripts call, the body size limit, the correlation id and `nosniff`.
 *
 * A new door (OAuth endpoints, the dashboard, the registry's own set) is one more `Door` in the list
 * a role's phase composes (src/server/compose-business.ts, compose-role.ts) and compose.ts hands to
 * createHost(): what it claims, its app, how it says no.
 */
import type { IncomingMessage } from 'node:http';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { ProtocolError, correlationIdOf } from '../operations/index.js';
import { viaTrustedProxy, type TrustedProxies } from '../security/index.js';
import { MalformedBody } from '../web/index.js';

/** What a door's app receives as its env: the Node request (client address) and the host's correlation id. */
export interface DoorEnv {
  incoming?: IncomingMessage;
  correlationId: string;
}

export interface Door {
  /** A name for logs and docs ("rest", "mcp", "pages"). */
  name: string;
  /** Whether this request is the door's: its paths, and on paths shared with another door, what the client asks for. */
  claims(req: Request, path: string): boolean;
  /** The door itself: a fetch handler (a Hono app's `fetch`). */
  fetch(req: Request, env: DoorEnv): Response | Promise<Response>;
  /** The host's refusals and faults in this door's format, with the HTTP status the host chose. */
  refuse(req: Request, status: number, err: ProtocolError): Response;
  /**
   * Set for doors that scripts in browsers call (MCP Inspector): Host and Origin are checked against
   * DNS rebinding before anything else, and CORS answers the allowed origins with these methods and
   * exposed headers. Doors without it are left to the browser's own same-origin rules.
   */
  browsers?: { allowMethods: string[]; exposeHeaders: string[] };
  /** CORS of a door that allows listed browser origins without refusing others (REST: src/bindings/rest/cors.ts). */
  cors?: MiddlewareHandler;
  /** The door's own body limit, when its protocol sets one (MCP: the SDK's 4 MiB); else the host's. */
  maxBodyBytes?: number;
}

export interface HostOptions {
  /** In order; the last one is the fallback for paths no other door claims. */
  doors: readonly Door[];
  /** Largest accepted request body in bytes on every door that sets none of its own (413 above it). */
  maxBodyBytes: number;
  /**
   * The TLS-terminating proxies in front: when any is named, requests a proxy did not mark https are
   * refused (spec 10.2.1).
   */
  proxies?: TrustedProxies;
  /**
   * Host header values accepted by `browsers` doors (host or host:port); empty means any. Read per
   * request, so it may be filled at listen time.
   */
  allowedHosts: readonly string[];
  /** Browser origins accepted by `browsers` doors besides the server's own. */
  allowedOrigins: readonly string[];
  log?: {
    error(msg: string, fields?: Record<string, unknown>): void;
    warn?(msg: string, fields?: Record<string, unknown>): void;
  };
}

/** `path` is `root` or below it: the claim of a door that owns whole paths. */
export function underPaths(...roots: readonly string[]): (req: Request, path: string) => boolean {
  return (_req, path) => roots.some((r) => path === r || path.startsWith(`${r}/`));
}

type HostEnv = { Bindings: { uspHost: HostState }; Variables: { door: Door; correlationId: string } };

/**
 * The host as an app: `app.fetch(Request, env)` answers for every door (`request` as Hono's, for
 * tests and in-process calls). Not a Hono app of its own: it hands each request, with its state, to
 * the host routes the process shares (one table, however many businesses a process hosts).
 */
export interface HostApp {
  fetch(req: Request, env?: unknown, ctx?: ExecutionContext): Response | Promise<Response>;
  request(input: string | Request | URL, init?: RequestInit, env?: unknown): Response | Promise<Response>;
}
type ExecutionContext = Parameters<Hono['fetch']>[2];

/** One host's doors and options, read by the shared routes from the request's env. */
class HostState {
  readonly fallback: Door;
  private readonly limits = new Map<Door, MiddlewareHandler>();
  private checks?: MiddlewareHandler<HostEnv>;

  constructor(readonly opts: HostOptions) {
    this.fallback = opts.doors[opts.doors.length - 1];
  }

  pick(req: Request, path: string): Door {
    const fallback = this.fallback;
    return this.opts.doors.find((d) => d !== fallback && d.claims(req, path)) ?? fallback;
  }

  /** A door's body limit, made on its first request. */
  limitOf(d: Door): MiddlewareHandler {
    let limit = this.limits.get(d);
    if (!limit) this.limits.set(d, (limit = bodyLimitOf(d, d.maxBodyBytes ?? this.opts.maxBodyBytes)));
    return limit;
  }

  /** Host, Origin and CORS checks, made on the first request. */
  browserChecks(): MiddlewareHandler<HostEnv> {
    this.checks ??= browserChecks(this.opts);
    return this.checks;
  }
}

let shared: Hono<HostEnv> | undefined;

export function createHost(opts: HostOptions): HostApp {
  if (opts.doors.length === 0) throw new Error('the host needs at least one door');
  const state = new HostState(opts);
  const app = hostRoutes();
  return {
    fetch: (req, env, ctx) => app.fetch(req, { ...(env as object | undefined), uspHost: state }, ctx),
    request: (input, init, env) => app.request(input, init, { ...(env as object | undefined), uspHost: state }),
  };
}

/** The host's routes: every door's shared concerns, built once per process. */
function hostRoutes(): Hono<HostEnv> {
  if (shared) return shared;
  const app = new Hono<HostEnv>();
  shared = app;
  app.use('*', async (c, next) => {
    const door = c.env.uspHost.pick(c.req.raw, c.req.path);
    // The caller's id (or a fresh one) answers every response, whichever door gave it.
    const correlationId = correlationIdOf(c.req.header('usp-correlation-id'));
    c.set('door', door);
    c.set('correlationId', correlationId);
    await next();
    c.res.headers.set('X-Content-Type-Options', 'nosniff');
    c.res.headers.set('USP-Correlation-Id', correlationId);
    // Over https (served directly, or by a trusted proxy that says so), browsers are told to stay on
    // https (RFC 6797; spec 10.2.1 transport security). Never on plain http, where it means nothing.
    if (new URL(c.req.url).protocol === 'https:' || forwardedHttps(c, c.env.uspHost.opts.proxies)) {
      c.res.headers.set('Strict-Transport-Security', 'max-age=31536000');
    }
  });
  // Plaintext only where nobody can listen in: behind --trust-proxy, a trusted proxy must say it was
  // https (anyone else's X-Forwarded-Proto is not believed).
  app.use('*', async (c, next) => {
    const proxies = c.env.uspHost.opts.proxies;
    if (proxies?.any && !forwardedHttps(c, proxies) && new URL(c.req.url).protocol !== 'https:') {
      const https = new ProtocolError(
        'invalid_request',
        'Use HTTPS: this business does not accept plaintext requests.',
        {
          detailCode: 'https_required',
        },
      );
      return c.get('door').refuse(c.req.raw, 400, https);
    }
    await next();
  });
  app.use('*', (c, next) => c.env.uspHost.browserChecks()(c, next));
  app.use('*', (c, next) => c.env.uspHost.limitOf(c.get('door'))(c, next));
  app.all('*', (c) => {
    const { uspHost: _, ...env } = c.env as HostEnv['Bindings'] & Record<string, unknown>;
    return c.get('door').fetch(c.req.raw, { ...(env as object), correlationId: c.get('correlationId') });
  });
  app.onError((err, c) => {
    const host = c.env.uspHost;
    const door = c.get('door') ?? host.fallback;
    const log = host.opts.log;
    // A form that does not parse is the sender's mistake: 400 in the door's format, and a line for the operator.
    if (err instanceof MalformedBody) {
      const fields = { door: door.name, path: c.req.path, error: String(err.cause) };
      (log?.warn ?? log?.error)?.call(log, 'malformed request body', fields);
      const malformed = new ProtocolError('invalid_request', 'The form could not be read. Go back and send it again.', {
        detailCode: 'malformed_body',
      });
      return door.refuse(c.req.raw, 400, malformed);
    }
    log?.error('unexpected HTTP failure', { error: String(err), path: c.req.path });
    return door.refuse(
      c.req.raw,
      500,
      new ProtocolError('server_error', 'The business could not process the request.'),
    );
  });
  return app;
}

/** A trusted proxy forwarded the request and says it came over https. */
function forwardedHttps(c: Context<HostEnv>, proxies: TrustedProxies | undefined): boolean {
  return proxies ? viaTrustedProxy(c.env, proxies) && c.req.header('x-forwarded-proto') === 'https' : false;
}

/**
 * Host and Origin first (preflights included: a refused origin gets 403, never a CORS answer);
 * then CORS for the origins allowed, so browser-based clients can connect. A door with its own
 * CORS runs it instead.
 */
function browserChecks(opts: HostOptions): MiddlewareHandler<HostEnv> {
  const originAllowed = (origin: string, host: string): boolean => {
    if (opts.allowedOrigins.includes(origin)) return true;
    try {
      return new URL(origin).host === host;
    } catch {
      return false;
    }
  };
  /** The DNS-rebinding check: a foreign Host or Origin, as the refusal to give (or null). */
  const foreign = (req: Request): ProtocolError | null => {
    const host = req.headers.get('host') ?? '';
    const hosts = opts.allowedHosts;
    if (hosts.length > 0 && !hosts.includes(host) && !hosts.includes(host.replace(/:\d+$/, ''))) {
      return new ProtocolError('invalid_request', 'Host not allowed', { detailCode: 'host_not_allowed' });
    }
    const origin = req.headers.get('origin');
    if (origin && !originAllowed(origin, host)) {
      return new ProtocolError('invalid_request', 'Origin not allowed', { detailCode: 'origin_not_allowed' });
    }
    return null;
  };
  const corsFor = new Map<Door, MiddlewareHandler>();
  for (const d of opts.doors) {
    if (!d.browsers) continue;
    corsFor.set(
      d,
      cors({
        origin: (origin, c) => (origin && originAllowed(origin, c.req.header('host') ?? '') ? origin : null),
        allowMethods: d.browsers.allowMethods,
        // Request headers are echoed from the preflight.
        exposeHeaders: d.browsers.exposeHeaders,
        maxAge: 600,
      }),
    );
  }
  return async (c, next) => {
    const door = c.get('door');
    if (door.cors) return door.cors(c, next);
    if (!door.browsers) return next();
    const refused = foreign(c.req.raw);
    if (refused) return door.refuse(c.req.raw, 403, refused);
    return corsFor.get(door)!(c, next);
  };
}

/** A door's body limit: `max` bytes, 413 in the door's format above it. */
function bodyLimitOf(d: Door, max: number): MiddlewareHandler {
  const tooLarge = (c: Context) =>
    d.refuse(c.req.raw, 413, new ProtocolError('payload_too_large', `Request bodies are limited to ${max} bytes.`));
  const counted = bodyLimit({ maxSize: max, onError: tooLarge });
  return async (c, next) => {
    // Hono's bodyLimit asks for `req.body` first, which makes @hono/node-server build a whole
    // WHATWG Request (abort signal, body stream) even for a GET, and takes away its fast path
    // for reading the body: ~12% of a GET's CPU, and a Request that an open SSE stream (MCP's GET)
    // then keeps for its whole life (~3.5 KB per idle session). GET and HEAD carry no body; a declared
    // length is checked as bodyLimit checks it; only chunked bodies are counted by bodyLimit itself.
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    const length = c.req.raw.headers.get('content-length');
    if (length !== null && !c.req.raw.headers.has('transfer-encoding')) {
      return parseInt(length || '0', 10) > max ? tooLarge(c) : next();
    }
    return counted(c, next);
  };
}
