/**
 * MCP over HTTP on the `serve` process:
 * - `/mcp`, Streamable HTTP. 2025-era clients (initialize handshake) get a session with its own
 *   server instance, a GET stream for notifications, and DELETE to end it. 2026-07-28 clients
 *   (per-request envelope, `server/discover`) are served statelessly; their webhook events travel
 *   as `notifications/resources/updated` on a `usp://webhooks/...` resource with the payload in params.
 * - `/sse` + `/messages`, the legacy HTTP+SSE transport, for clients that only speak it.
 * The door answers only in JSON-RPC; Host and Origin checks, CORS, HTTPS and body limits are the
 * host's (src/server/host.ts), which answers for this door in JSON-RPC too.
 */
import { randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import {
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
  type AuthInfo,
  type JSONRPCMessage,
} from '@modelcontextprotocol/server';
import { META_WEBHOOK, ProtocolError, type CallScope, type HttpEvidence, type Logger } from '../../operations/index.js';
import { faultText } from '../../web/index.js';
import { rateNoteOf, type RateNote } from './rate-note.js';
import { SseTransport } from './sse-transport.js';

export { SseTransport } from './sse-transport.js';

/** The notification's key until usp-server 0.2.0: it was in the spec's own namespace; ours is META_WEBHOOK. */
const FORMER_META_WEBHOOK = 'dev.usp-protocol/webhook';
import { JSON_RPC, SESSION_NOT_FOUND, toJsonRpcError } from './errors.js';
import type { SessionHub } from './hub.js';
import { createMcpServer, type McpDoorDeps } from './server.js';
import { finishPost, guardSend, withDataCode } from './wire-fix.js';
import { refusedListen } from './listen.js';
import { sessionToEvict } from './session-cap.js';
import { LiveSession } from './live-session.js';

export interface McpHttpOptions {
  /** Sessions idle longer than this are closed (the SDK never expires them). Default 30 min. */
  idleTimeoutMs?: number;
  /** A session the client never came back to after initialize is closed after this. Default 60 s. */
  unusedSessionTimeoutMs?: number;
  /** Most sessions open at once (Streamable HTTP and SSE); at it, a newcomer takes the place of the longest-idle session of the address holding the most. Default 1000. */
  maxSessions?: number;
  /** Most sessions open at once from one client address; over it, 429. Default 100. */
  maxSessionsPerAddress?: number;
  /** The client's address as the server sees it (socket, or the trusted proxy's X-Forwarded-For); absent in-process. */
  clientAddress?: (c: Context) => string | undefined;
  /** Where a fault the door lets escape is logged (the server's logger); absent in-process: not logged. */
  log?: Logger;
}

export const DEFAULT_SESSION_LIMITS = {
  maxSessions: 1000,
  maxSessionsPerAddress: 100,
  unusedSessionTimeoutMs: 60_000,
  idleTimeoutMs: 30 * 60_000,
};

/** The largest request body the MCP door reads: the SDK's own bound for its HTTP entry points (4 MiB). */
export const MCP_MAX_BODY_BYTES: number = DEFAULT_MAX_REQUEST_BODY_SIZE;

/** The paths the MCP door answers (and everything below them). */
export const MCP_HTTP_PATHS = ['/mcp', '/sse', '/messages'] as const;

/** Response headers a browser-based MCP client must be able to read (CORS). */
export const MCP_EXPOSED_HEADERS = [
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'USP-Correlation-Id',
  'WWW-Authenticate',
  'Retry-After',
  'DPoP-Nonce',
  'RateLimit',
  'RateLimit-Policy',
];

/**
 * A JSON-RPC error response (id null: the request's id is unknown or there was none) with an HTTP
 * status: how the MCP door, and the host on its behalf, says no. An MCP client never gets a
 * problem document or an HTML page.
 */
export function jsonRpcErrorResponse(
  status: number,
  err: ProtocolError | { code: number; message: string; data?: Record<string, unknown> },
): Response {
  const error = err instanceof ProtocolError ? toJsonRpcError(err) : withDataCode({ ...err });
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (err instanceof ProtocolError && err.retryAfter !== undefined) headers['Retry-After'] = String(err.retryAfter);
  return new Response(JSON.stringify({ jsonrpc: '2.0', error, id: null }), { status, headers });
}

/** What answers a request: the door's own `fetch` (the host hands it the request and its env). */
export interface McpHttpFetch {
  fetch(req: Request, env?: object): Promise<Response>;
}

export interface McpHttpDoor {
  /** The door's entry: /mcp, /sse and /messages; anything else under them is a JSON-RPC 404. */
  app: McpHttpFetch;
  sessionCount(): number;
  close(): Promise<void>;
}

type Limits = typeof DEFAULT_SESSION_LIMITS;

/**
 * One deployment's MCP door (a hosted business, or a role): its sessions, limits and dependencies,
 * read by the process's route table (`routes`) from the request's env. A class, so that a door no
 * client has used holds its fields and no closures; the stateless era's handler and the reaper
 * are made by the first request that needs them.
 */
class McpHttpState {
  #sessions: Map<string, LiveSession> | undefined;
  private modernHandler?: ReturnType<typeof createMcpHandler>;
  private unsubscribeModern?: () => void;
  private reaper?: NodeJS.Timeout;
  private closed = false;
  /** The transport's DELETE (or its own close) ends the session: one function for every session. */
  readonly onsessionclosed = (sid: string) => void this.session(sid)?.close();

  constructor(
    readonly deps: McpDoorDeps,
    readonly hub: SessionHub,
    readonly limits: Limits,
    readonly opts: McpHttpOptions,
  ) {}

  /** The open sessions, the table made with the first (each session removes itself from it). */
  get sessions(): Map<string, LiveSession> {
    return (this.#sessions ??= new Map());
  }

  /** The open session `id`, if any. */
  session(id: string): LiveSession | undefined {
    return this.#sessions?.get(id);
  }

  get sessionCount(): number {
    return this.#sessions?.size ?? 0;
  }

  addressOf(c: Context): string | undefined {
    return this.opts.clientAddress?.(c);
  }

  scopeOf(req: Request): CallScope {
    if (!this.deps.scopeOf) throw new Error('the MCP HTTP door needs a scope resolver');
    return this.deps.scopeOf(req);
  }

  /** 2026-07-28 era: one server per request, events on a subscriptions/listen stream (made on first use). */
  modern(): ReturnType<typeof createMcpHandler> {
    if (this.modernHandler) return this.modernHandler;
    const deps = this.deps;
    const modern = createMcpHandler(() => createMcpServer(deps, null), { legacy: 'reject', onerror: () => undefined });
    this.modernHandler = modern;
    const bus = modern.bus as { listenerCount?: number };
    this.unsubscribeModern = this.hub.onEvent(
      (principal, payload) => {
        if (!principal) return;
        modern.bus.publish({
          kind: 'resource_updated',
          uri: this.hub.resourceUriOf(principal),
          params: { ...payload, _meta: { [META_WEBHOOK]: payload, [FORMER_META_WEBHOOK]: payload } } as never,
        });
      },
      // The SDK's in-process bus counts its open subscriptions/listen streams; another bus: assume some.
      () => (typeof bus.listenerCount === 'number' ? bus.listenerCount > 0 : true),
    );
    return modern;
  }

  /**
   * Room for a new session from `address`: 429 when this address holds its most already; when the
   * server holds its most, the longest-idle session of the heaviest address is closed to make room
   * (./session-cap.ts), and 503 only if there is none to close (every one answering a request).
   */
  async admit(address: string | undefined): Promise<Response | null> {
    const { sessions, limits } = this;
    if (address !== undefined) {
      let mine = 0;
      for (const s of sessions.values()) if (s.address === address) mine++;
      if (mine >= limits.maxSessionsPerAddress) {
        return jsonRpcErrorResponse(
          429,
          new ProtocolError(
            'rate_limited',
            `Your address has the most MCP sessions one client may keep open (${limits.maxSessionsPerAddress}); reuse or end one (DELETE /mcp) before opening another.`,
            {
              detailCode: 'too_many_sessions_from_address',
              retryAfter: 60,
            },
          ),
        );
      }
    }
    while (sessions.size >= limits.maxSessions) {
      const victim = sessionToEvict(sessions.values());
      if (!victim) {
        return jsonRpcErrorResponse(
          503,
          new ProtocolError(
            'service_unavailable',
            `This server has the most MCP sessions it keeps open (${limits.maxSessions}), each answering a request; retry shortly.`,
            {
              detailCode: 'too_many_sessions',
              retryAfter: 60,
            },
          ),
        );
      }
      await victim.close();
    }
    return null;
  }

  /**
   * One session, either transport: its own server instance, registered with the hub so events find
   * their way back (the server records on it the principals it acts for), closed once.
   */
  async openSession(
    id: string,
    transport: LiveSession['transport'],
    address: string | undefined,
    messages: number,
    queue: LiveSession['queue'],
    scope: CallScope,
  ): Promise<LiveSession> {
    const live = new LiveSession(id, transport, address, messages, queue, this);
    // A session serves the business of the request that opened it, for its whole life.
    live.server = createMcpServer(this.deps, live, scope);
    this.hub.register(live);
    this.sessions.set(id, live);
    this.startReaper();
    // A Streamable HTTP session's errors are watched: a POST whose answer holds none is not rewritten (finishPost).
    const watch = transport instanceof WebStandardStreamableHTTPServerTransport ? live : undefined;
    await live.server.connect(guardSend(transport, watch));
    return live;
  }

  /** Idle and unused sessions closed on a timer, started with the first session (a door without any keeps none). */
  private startReaper(): void {
    if (this.reaper || this.closed) return;
    const idle = this.limits.idleTimeoutMs;
    const unused = this.limits.unusedSessionTimeoutMs;
    this.reaper = setInterval(
      () => {
        const now = Date.now();
        for (const s of this.sessions.values()) {
          // Opened and never come back to: closed after the short deadline, an open SSE stream included.
          if (!s.used && s.lastSeen < now - unused) void s.close();
          else if (s.lastSeen < now - idle && !(s.transport instanceof SseTransport && s.transport.open))
            void s.close();
        }
      },
      Math.max(10, Math.min(idle, unused, 60_000) / 2),
    );
    this.reaper.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reaper) clearInterval(this.reaper);
    this.unsubscribeModern?.();
    await Promise.all([...(this.#sessions?.values() ?? [])].map((s) => s.close()));
    await this.modernHandler?.close();
  }
}

/** Where a request carries its door's state into the process's route table. */
type McpEnv = { uspMcp: McpHttpState; mcpBody?: McpBody };
const stateOf = (c: Context): McpHttpState => (c.env as McpEnv).uspMcp;
const jsonError = (status: number, code: number, message: string, dataCode?: string) =>
  jsonRpcErrorResponse(status, { code, message, ...(dataCode ? { data: { code: dataCode } } : {}) });

/**
 * MCP over HTTP as a door of its own; the host in src/server mounts it beside REST and the pages.
 * Its routes are the process's (built once, as the REST door's are): a hosting process with many
 * businesses keeps one route table, and each door's state rides in the request's env.
 */
export function createMcpHttp(deps: McpDoorDeps, hub: SessionHub, opts: McpHttpOptions = {}): McpHttpDoor {
  const limits: Limits = {
    maxSessions: opts.maxSessions ?? DEFAULT_SESSION_LIMITS.maxSessions,
    maxSessionsPerAddress: opts.maxSessionsPerAddress ?? DEFAULT_SESSION_LIMITS.maxSessionsPerAddress,
    unusedSessionTimeoutMs: opts.unusedSessionTimeoutMs ?? DEFAULT_SESSION_LIMITS.unusedSessionTimeoutMs,
    idleTimeoutMs: opts.idleTimeoutMs ?? DEFAULT_SESSION_LIMITS.idleTimeoutMs,
  };
  const state = new McpHttpState(deps, hub, limits, opts);
  const table = routes();
  return {
    app: { fetch: async (req, env) => table.fetch(req, { ...(env as object | undefined), uspMcp: state }) },
    sessionCount: () => state.sessionCount,
    close: () => state.close(),
  };
}

let shared: Hono | undefined;

/** The MCP door's routes, built once per process. */
function routes(): Hono {
  if (shared) return shared;
  const app = new Hono();
  shared = app;

  app.all('/mcp', async (c) => {
    const door = stateOf(c);
    // The body is read once, here: its exact bytes ride along as evidence (RFC 9421 signatures and
    // bearer keys are checked below the door, the same as on REST), and its parse is handed to the
    // SDK, which would otherwise read it twice more (the era check and the transport).
    const { req, parsedBody, authInfo } = await readPost(c.req.raw, door.addressOf(c), (c.env as McpEnv).mcpBody);
    const scope = door.scopeOf(c.req.raw);
    if (!(await isLegacyRequest(req, parsedBody))) {
      // A listen naming a webhook resource is the pipeline's to allow first: the SDK would serve anyone.
      const note = rateNoteOf(authInfo);
      const refused = await refusedListen(
        door.deps,
        parsedBody,
        authInfo.extra?.evidence as HttpEvidence | undefined,
        scope,
        note,
      );
      if (refused) return finishPost(refused, note);
      // The stateless era's server reads the request's scope from its auth info (one server per request).
      authInfo.extra = { ...authInfo.extra, scope };
      return finishPost(await door.modern().fetch(req, { authInfo, parsedBody }), note);
    }

    const sid = req.headers.get('mcp-session-id');
    if (sid) {
      const live = door.session(sid);
      if (!live)
        return jsonError(404, SESSION_NOT_FOUND, 'Session not found; initialize a new session.', 'session_not_found');
      live.lastSeen = Date.now();
      live.used = true;
      // A POST is answered within this await (JSON responses): while it runs, the session is not idle.
      const post = req.method === 'POST';
      if (post) live.busy++;
      let res: Response;
      try {
        res = await (live.transport as WebStandardStreamableHTTPServerTransport).handleRequest(req, {
          authInfo,
          parsedBody,
        });
      } finally {
        if (post) live.busy--;
        live.lastSeen = Date.now();
      }
      if (req.method === 'GET' && res.ok && live.queue) {
        const pending = live.queue;
        live.queue = null;
        setImmediate(() => pending.forEach((n) => live.notify(n.method, n.params)));
      }
      return post ? finishPost(res, rateNoteOf(authInfo), !live.erredFor(parsedBody)) : res;
    }
    if (req.method !== 'POST') return jsonError(400, JSON_RPC.invalid_request, 'Missing Mcp-Session-Id header.');
    const address = door.addressOf(c);
    const full = await door.admit(address);
    if (full) return full;
    const id = randomUUID();
    // Responses to POSTs go out as one application/json body (the Streamable HTTP spec lets the
    // server choose it over an SSE stream): a tool call sends nothing before its result, and what a
    // session is told unasked (notifications) goes on its GET stream, never on a POST's response.
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessionclosed: door.onsessionclosed,
      enableJsonResponse: true,
    });
    const live = await door.openSession(id, transport, address, 1, [], scope);
    const res = await transport.handleRequest(req, { authInfo, parsedBody });
    if (!res.ok) await live.close();
    return finishPost(res, rateNoteOf(authInfo));
  });

  // Legacy HTTP+SSE (2024-11-05 transport): GET /sse opens the stream, POST /messages?sessionId= carries requests.
  app.get('/sse', async (c) => {
    const door = stateOf(c);
    const address = door.addressOf(c);
    const full = await door.admit(address);
    if (full) return full;
    const transport = new SseTransport(`/messages`);
    const live = await door.openSession(transport.sessionId, transport, address, 0, null, door.scopeOf(c.req.raw));
    transport.onclose = () => void live.close();
    return transport.response();
  });

  app.post('/messages', async (c) => {
    const door = stateOf(c);
    const live = door.session(c.req.query('sessionId') ?? '');
    if (!live || !(live.transport instanceof SseTransport))
      return jsonError(404, SESSION_NOT_FOUND, 'Unknown sessionId.', 'session_not_found');
    live.lastSeen = Date.now();
    // The first message is initialize; anything after it means the client came back.
    if (++live.messages > 1) live.used = true;
    const raw = new Uint8Array(await c.req.arrayBuffer());
    let message: JSONRPCMessage;
    try {
      message = JSON.parse(new TextDecoder().decode(raw)) as JSONRPCMessage;
    } catch {
      return jsonError(400, JSON_RPC.parse_error, 'Parse error');
    }
    live.transport.receive(message, c.req.raw, authInfoFor(c.req.raw, raw, door.addressOf(c)));
    return new Response('Accepted', { status: 202 });
  });

  // Everything else under the door's paths is still the MCP door's: JSON-RPC, never a problem document.
  app.notFound((c) =>
    jsonRpcErrorResponse(
      404,
      new ProtocolError(
        'not_found',
        `No MCP endpoint at ${c.req.method} ${c.req.path}; use POST /mcp (Streamable HTTP) or GET /sse (HTTP+SSE).`,
      ),
    ),
  );
  app.onError((err, c) => {
    stateOf(c).opts.log?.error('unexpected MCP HTTP failure', { path: c.req.path, error: faultText(err) });
    return jsonRpcErrorResponse(
      500,
      new ProtocolError('server_error', `The business could not process the request to ${c.req.path}.`),
    );
  });
  return app;
}

/** A POST body as the MCP door reads it: its exact bytes, and its JSON (undefined when empty or not JSON). */
export interface McpBody {
  bytes: Uint8Array;
  parsed: unknown;
}

/** Read a POST body once (the host's OAuth gate reads it here too, and hands it on in the door's env). */
export async function readMcpBody(req: Request): Promise<McpBody> {
  const bytes = new Uint8Array(await req.arrayBuffer());
  let parsed: unknown;
  try {
    parsed = bytes.byteLength === 0 ? undefined : JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    parsed = undefined;
  }
  return { bytes, parsed };
}

/**
 * A request's body, read once (or as already read, `pre`): its bytes as evidence for
 * authentication and its JSON for the SDK (`parsedBody`, so neither the era check nor the transport
 * reads it again). A body that is empty or not JSON is left to the SDK to refuse as it always has:
 * the request handed on then carries the same bytes.
 */
async function readPost(
  req: Request,
  clientAddress: string | undefined,
  pre?: McpBody,
): Promise<{ req: Request; parsedBody: unknown; authInfo: AuthInfo }> {
  if (req.method !== 'POST')
    return { req, parsedBody: undefined, authInfo: authInfoFor(req, new Uint8Array(0), clientAddress) };
  const { bytes, parsed } = pre ?? (await readMcpBody(req));
  const authInfo = authInfoFor(req, bytes, clientAddress);
  if (parsed !== undefined) return { req, parsedBody: parsed, authInfo };
  return {
    req: new Request(req.url, { method: 'POST', headers: req.headers, body: bytes }),
    parsedBody: undefined,
    authInfo,
  };
}

function authInfoFor(req: Request, body: Uint8Array, clientAddress: string | undefined): AuthInfo {
  const headers: Record<string, string> = {};
  req.headers.forEach((v, k) => (headers[k] = v));
  const evidence: HttpEvidence = { method: req.method, url: req.url, headers, body, clientAddress };
  const rateNote: RateNote = {};
  return { token: '', clientId: '', scopes: [], extra: { evidence, rateNote } };
}
