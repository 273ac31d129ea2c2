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
import { ServerResponse, type IncomingMessage } from 'node:http';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getPath } from 'hono/utils/url';
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
  /**
   * Set for a door that answers some requests by writing the Node response itself (OAuth's library):
   * the host's headers then go on the Response the door returns only, never on the socket's answer.
   */
  writesNodeResponse?: boolean;
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
  // Asked on every request: the prefixes are made once.
  const below = roots.map((r) => `${r}/`);
  return (_req, path) => roots.some((r, i) => path === r || path.startsWith(below[i]));
}

type HostEnv = { Bindings: { uspHost: HostState; uspDoor?: Door }; Variables: { door: Door; correlationId: string } };

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
  /** Made on the first request with a body. */
  private limits: Map<Door, MiddlewareHandler> | undefined;
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
    const limits = (this.limits ??= new Map());
    let limit = limits.get(d);
    if (!limit) limits.set(d, (limit = bodyLimitOf(d, d.maxBodyBytes ?? this.opts.maxBodyBytes)));
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
  const fetch = (req: Request, env?: unknown, ctx?: ExecutionContext): Response | Promise<Response> => {
    const path = getPath(req);
    const door = state.pick(req, path);
    // A door browsers' scripts call (Host, Origin, CORS) or a body whose length is not declared takes
    // the host's Hono routes, with their middlewares; anything else is answered the same way directly.
    if (door.cors || door.browsers || !declaredBody(req)) {
      return app.fetch(req, { ...(env as object | undefined), uspHost: state, uspDoor: door }, ctx);
    }
    return direct(state, door, req, path, env);
  };
  return {
    fetch,
    // As Hono's `app.request`: a path is on http://localhost.
    request: (input, init, env) => {
      if (input instanceof Request) return fetch(init ? new Request(input, init) : input, env);
      const url = input.toString();
      return fetch(
        new Request(/^https?:\/\//.test(url) ? url : `http://localhost${url.startsWith('/') ? '' : '/'}${url}`, init),
        env,
      );
    },
  };
}

/** No body, or one of a declared length (the body limit needs no counting stream). */
function declaredBody(req: Request): boolean {
  const method = req.method;
  if (method === 'GET' || method === 'HEAD') return true;
  return req.headers.get('content-length') !== null && !req.headers.has('transfer-encoding');
}

/**
 * A request answered without a Hono context of the host's (the door has its own): the very steps of
 * the host's routes below for a door without browser checks and a body of declared length, in their
 * order (HTTPS refusal, body limit, the door), with the same headers on the answer and the same
 * answer to a fault. One context and one chain of middlewares less per request (docs/DECISIONS.md,
 * "REST door cost per request").
 */
async function direct(state: HostState, door: Door, req: Request, path: string, env: unknown): Promise<Response> {
  const correlationId = correlationIdOf(req.headers.get('usp-correlation-id') ?? undefined);
  const proxies = state.opts.proxies;
  // Behind a listener, the host's headers go on the Node response before the door runs: Node merges
  // them into the answer's, so the door's Response keeps its plain header record (no `Headers` made
  // and copied again by the adapter; docs/DECISIONS.md, "REST door over HTTP").
  const outgoing = door.writesNodeResponse ? undefined : nodeResponseOf(env);
  if (outgoing) hostHeaders(req, env, proxies, correlationId, (name, value) => outgoing.setHeader(name, value));
  let res: Response;
  try {
    const max = door.maxBodyBytes ?? state.opts.maxBodyBytes;
    const length = req.method === 'GET' || req.method === 'HEAD' ? null : req.headers.get('content-length');
    if (plaintextRefused(req, env, proxies)) res = door.refuse(req, 400, httpsRequired());
    else if (length !== null && parseInt(length || '0', 10) > max) res = door.refuse(req, 413, payloadTooLarge(max));
    else res = await door.fetch(req, { ...(env as object | undefined), correlationId });
  } catch (err) {
    res = hostFault(state, door, req, path, err);
  }
  if (outgoing) return res;
  try {
    answered(res, req, env, proxies, correlationId);
  } catch (err) {
    return hostFault(state, door, req, path, err);
  }
  return res;
}

/** The Node response a listener handed over in the env, while its headers can still be set. */
function nodeResponseOf(env: unknown): ServerResponse | undefined {
  const outgoing = (env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing instanceof ServerResponse && !outgoing.headersSent ? outgoing : undefined;
}

/** What every answer carries, whichever door gave it. */
function answered(
  res: Response,
  req: Request,
  env: unknown,
  proxies: TrustedProxies | undefined,
  correlationId: string,
): void {
  hostHeaders(req, env, proxies, correlationId, (name, value) => res.headers.set(name, value));
}

/** The headers the host puts on every answer, each handed to `set`. */
function hostHeaders(
  req: Request,
  env: unknown,
  proxies: TrustedProxies | undefined,
  correlationId: string,
  set: (name: string, value: string) => void,
): void {
  set('X-Content-Type-Options', 'nosniff');
  set('USP-Correlation-Id', correlationId);
  // Over https (served directly, or by a trusted proxy that says so), browsers are told to stay on
  // https (RFC 6797; spec 10.2.1 transport security). Never on plain http, where it means nothing.
  if (isHttps(req.url) || forwardedHttps(req, env, proxies)) set('Strict-Transport-Security', 'max-age=31536000');
}

/** A request URL (absolute, its scheme lower-cased by the Request) is https. */
const isHttps = (url: string): boolean => url.startsWith('https:');

const httpsRequired = () =>
  new ProtocolError('invalid_request', 'Use HTTPS: this business does not accept plaintext requests.', {
    detailCode: 'https_required',
  });

const payloadTooLarge = (max: number) =>
  new ProtocolError('payload_too_large', `Request bodies are limited to ${max} bytes.`);

/** A fault no door answered: a form that does not parse is the sender's (400), anything else a 500, in the door's format. */
function hostFault(state: HostState, door: Door, req: Request, path: string, err: unknown): Response {
  const log = state.opts.log;
  if (err instanceof MalformedBody) {
    const fields = { door: door.name, path, error: String(err.cause) };
    (log?.warn ?? log?.error)?.call(log, 'malformed request body', fields);
    const malformed = new ProtocolError('invalid_request', 'The form could not be read. Go back and send it again.', {
      detailCode: 'malformed_body',
    });
    return door.refuse(req, 400, malformed);
  }
  log?.error('unexpected HTTP failure', { error: String(err), path });
  return door.refuse(req, 500, new ProtocolError('server_error', 'The business could not process the request.'));
}

/** The host's routes: every door's shared concerns, built once per process. */
function hostRoutes(): Hono<HostEnv> {
  if (shared) return shared;
  const app = new Hono<HostEnv>();
  shared = app;
  app.use('*', async (c, next) => {
    const door = c.env.uspDoor ?? c.env.uspHost.pick(c.req.raw, c.req.path);
    // The caller's id (or a fresh one) answers every response, whichever door gave it.
    const correlationId = correlationIdOf(c.req.header('usp-correlation-id'));
    c.set('door', door);
    c.set('correlationId', correlationId);
    await next();
    answered(c.res, c.req.raw, c.env, c.env.uspHost.opts.proxies, correlationId);
  });
  // Plaintext only where nobody can listen in: behind --trust-proxy, a trusted proxy must say it was
  // https (anyone else's X-Forwarded-Proto is not believed).
  app.use('*', async (c, next) => {
    if (plaintextRefused(c.req.raw, c.env, c.env.uspHost.opts.proxies)) {
      return c.get('door').refuse(c.req.raw, 400, httpsRequired());
    }
    await next();
  });
  app.use('*', (c, next) => c.env.uspHost.browserChecks()(c, next));
  app.use('*', (c, next) => c.env.uspHost.limitOf(c.get('door'))(c, next));
  app.all('*', (c) => {
    const { uspHost: _, uspDoor: __, ...env } = c.env as HostEnv['Bindings'] & Record<string, unknown>;
    return c.get('door').fetch(c.req.raw, { ...(env as object), correlationId: c.get('correlationId') });
  });
  app.onError((err, c) =>
    hostFault(c.env.uspHost, c.get('door') ?? c.env.uspHost.fallback, c.req.raw, c.req.path, err),
  );
  return app;
}

/** Behind trusted proxies, a request that is neither https nor forwarded as https by one of them. */
function plaintextRefused(req: Request, env: unknown, proxies: TrustedProxies | undefined): boolean {
  return Boolean(proxies?.any) && !forwardedHttps(req, env, proxies) && !isHttps(req.url);
}

/** A trusted proxy forwarded the request and says it came over https. */
function forwardedHttps(req: Request, env: unknown, proxies: TrustedProxies | undefined): boolean {
  return proxies ? viaTrustedProxy(env, proxies) && req.headers.get('x-forwarded-proto') === 'https' : false;
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
    if (c.req.method === 'OPTIONS') return corsFor.get(door)!(c, next);
    // Any other request: the headers Hono's cors gives it, set on the door's own answer once it is made.
    // Set before it (as Hono's cors does), they made Hono copy each answer twice, its body into a
    // stream the listener then read back: about a tenth of an MCP call over HTTP (docs/DECISIONS.md,
    // "The MCP door's answer leaves the host as the door made it").
    const origin = c.req.header('origin');
    const allowOrigin = origin && originAllowed(origin, c.req.header('host') ?? '') ? origin : null;
    await next();
    const headers = c.res.headers;
    if (allowOrigin) headers.set('Access-Control-Allow-Origin', allowOrigin);
    if (door.browsers.exposeHeaders.length > 0)
      headers.set('Access-Control-Expose-Headers', door.browsers.exposeHeaders.join(','));
    headers.append('Vary', 'Origin');
  };
}

/** A door's body limit: `max` bytes, 413 in the door's format above it. */
function bodyLimitOf(d: Door, max: number): MiddlewareHandler {
  const tooLarge = (c: Context) => d.refuse(c.req.raw, 413, payloadTooLarge(max));
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
