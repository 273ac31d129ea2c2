/**
 * MCP over HTTP on the `serve` process:
 * - `/mcp`, Streamable HTTP. 2025-era clients (initialize handshake) get a session with its own
 *   server instance, a GET stream for notifications, and DELETE to end it. 2026-07-28 clients
 *   (per-request envelope, `server/discover`) are served statelessly; their webhook events travel
 *   as `notifications/resources/updated` on a `usp://webhooks/...` resource with the payload in params.
 * - `/sse` + `/messages`, the legacy HTTP+SSE transport, for clients that only speak it.
 * Host and Origin are checked against DNS rebinding before anything else.
 */
import { randomUUID } from 'node:crypto';
import { webhookResourceUri } from './webhook-resource.js';
import type { Hono } from 'hono';
import { cors } from 'hono/cors';
import {
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
  type AuthInfo,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/server';
import type { HttpEvidence } from '../../operations/index.js';
import type { NotifiableSession, SessionHub } from './hub.js';
import { createMcpServer, type McpDoorDeps } from './server.js';
import { guardSend, restoreInResponse } from './wire-fix.js';

export interface McpHttpOptions {
  /** Host header values accepted (host or host:port); empty means any (behind a trusted proxy). */
  allowedHosts: readonly string[];
  /** Origins accepted when a browser sends one (and answered CORS preflights); empty means none but same-host. */
  allowedOrigins: readonly string[];
  /** Sessions idle longer than this are closed (the SDK never expires them). */
  idleTimeoutMs?: number;
}

interface LiveSession extends NotifiableSession {
  transport: Transport & { close(): Promise<void> };
  lastSeen: number;
  /** Notifications wait here until the client's GET stream is open; sending earlier loses them. */
  queue: Array<{ method: string; params: Record<string, unknown> }> | null;
  close(): Promise<void>;
}

export function mountMcpHttp(app: Hono, deps: McpDoorDeps, hub: SessionHub, opts: McpHttpOptions): { close(): Promise<void>; sessionCount(): number } {
  const sessions = new Map<string, LiveSession>();
  const jsonError = (status: number, code: number, message: string) =>
    new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), { status, headers: { 'Content-Type': 'application/json' } });

  const originAllowed = (origin: string, host: string): boolean => {
    if (opts.allowedOrigins.includes(origin)) return true;
    try {
      return new URL(origin).host === host;
    } catch {
      return false;
    }
  };
  const guard = (req: Request): Response | null => {
    const host = req.headers.get('host') ?? '';
    if (opts.allowedHosts.length > 0 && !opts.allowedHosts.includes(host) && !opts.allowedHosts.includes(host.replace(/:\d+$/, ''))) {
      return jsonError(403, -32600, 'Host not allowed');
    }
    const origin = req.headers.get('origin');
    if (origin && !originAllowed(origin, host)) return jsonError(403, -32600, 'Origin not allowed');
    return null;
  };

  // Host and Origin first (preflights included: a refused origin gets 403, never a CORS answer);
  // then CORS for the origins allowed, so browser-based clients (the MCP Inspector) can connect.
  for (const path of ['/mcp', '/sse', '/messages']) {
    app.use(path, async (c, next) => {
      const refused = guard(c.req.raw);
      if (refused) return refused;
      await next();
    });
    app.use(
      path,
      cors({
        origin: (origin, c) => (origin && originAllowed(origin, c.req.header('host') ?? '') ? origin : null),
        allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
        // Request headers are echoed from the preflight; the MCP and USP response headers are exposed.
        exposeHeaders: ['Mcp-Session-Id', 'Mcp-Protocol-Version', 'USP-Correlation-Id', 'WWW-Authenticate', 'Retry-After', 'DPoP-Nonce'],
        maxAge: 600,
      }),
    );
  }

  // 2026-07-28 era: one server per request, events on a subscriptions/listen stream.
  const modern = createMcpHandler(() => createMcpServer(deps, null), { legacy: 'reject', onerror: () => undefined });
  const unsubscribeModern = hub.onEvent((principal, payload) => {
    if (!principal) return;
    modern.bus.publish({ kind: 'resource_updated', uri: webhookResourceUri(principal), params: { ...payload, _meta: { 'dev.usp-protocol/webhook': payload } } as never });
  });

  const newSession = async (): Promise<LiveSession> => {
    const id = randomUUID();
    const transport = guardSend(
      new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => id, onsessionclosed: () => void live.close() }),
    );
    const live: LiveSession = {
      id,
      principals: new Set(),
      resources: new Set(),
      catalogSubscriber: false,
      transport,
      lastSeen: Date.now(),
      queue: [],
      notify(method, params) {
        if (live.queue) live.queue.push({ method, params });
        else server.notification({ method, params } as never).catch(() => undefined);
      },
      async close() {
        if (!sessions.delete(id)) return;
        unregister();
        await server.close().catch(() => undefined);
      },
    };
    // The server records on `live` the principals it acts for, so events find their way back.
    const server = createMcpServer(deps, live);
    const unregister = hub.register(live);
    sessions.set(id, live);
    await server.connect(transport);
    return live;
  };

  app.all('/mcp', async (c) => {
    const req = c.req.raw;
    // The exact bytes and headers ride along so RFC 9421 signatures and bearer keys are checked
    // below the door, the same as on REST.
    const authInfo = await evidenceFor(req);
    if (!(await isLegacyRequest(req))) return restoreInResponse(await modern.fetch(req, { authInfo }));

    const sid = req.headers.get('mcp-session-id');
    if (sid) {
      const live = sessions.get(sid);
      if (!live) return jsonError(404, -32001, 'Session not found; initialize a new session.');
      live.lastSeen = Date.now();
      const res = await (live.transport as WebStandardStreamableHTTPServerTransport).handleRequest(req, { authInfo });
      if (req.method === 'GET' && res.ok && live.queue) {
        const pending = live.queue;
        live.queue = null;
        setImmediate(() => pending.forEach((n) => live.notify(n.method, n.params)));
      }
      return res;
    }
    if (req.method !== 'POST') return jsonError(400, -32600, 'Missing Mcp-Session-Id header.');
    const live = await newSession();
    const res = await (live.transport as WebStandardStreamableHTTPServerTransport).handleRequest(req, { authInfo });
    if (!res.ok) await live.close();
    return res;
  });

  // Legacy HTTP+SSE (2024-11-05 transport): GET /sse opens the stream, POST /messages?sessionId= carries requests.
  app.get('/sse', async (c) => {
    const transport = new SseTransport(`/messages`);
    const live: LiveSession = {
      id: transport.sessionId,
      principals: new Set(),
      resources: new Set(),
      catalogSubscriber: false,
      transport,
      lastSeen: Date.now(),
      queue: null,
      notify: (method, params) => void server.notification({ method, params } as never).catch(() => undefined),
      close: async () => {
        if (!sessions.delete(transport.sessionId)) return;
        unregister();
        await server.close().catch(() => undefined);
      },
    };
    const server = createMcpServer(deps, live);
    const unregister = hub.register(live);
    sessions.set(transport.sessionId, live);
    transport.onclose = () => void live.close();
    await server.connect(guardSend(transport));
    return transport.response();
  });

  app.post('/messages', async (c) => {
    const live = sessions.get(c.req.query('sessionId') ?? '');
    if (!live || !(live.transport instanceof SseTransport)) return jsonError(404, -32001, 'Unknown sessionId.');
    live.lastSeen = Date.now();
    const raw = new Uint8Array(await c.req.arrayBuffer());
    let message: JSONRPCMessage;
    try {
      message = JSON.parse(new TextDecoder().decode(raw)) as JSONRPCMessage;
    } catch {
      return jsonError(400, -32700, 'Parse error');
    }
    live.transport.receive(message, c.req.raw, authInfoFor(c.req.raw, raw));
    return new Response('Accepted', { status: 202 });
  });

  const idle = opts.idleTimeoutMs ?? 30 * 60_000;
  const reaper = setInterval(() => {
    const cutoff = Date.now() - idle;
    for (const s of sessions.values()) if (s.lastSeen < cutoff && !(s.transport instanceof SseTransport && s.transport.open)) void s.close();
  }, Math.min(idle, 60_000));
  reaper.unref();

  return {
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(reaper);
      unsubscribeModern();
      await Promise.all([...sessions.values()].map((s) => s.close()));
      await modern.close();
    },
  };
}

/** The request as evidence for authentication (its body read from a clone; the transport reads the original). */
async function evidenceFor(req: Request): Promise<AuthInfo> {
  const body = req.method === 'POST' ? new Uint8Array(await req.clone().arrayBuffer()) : new Uint8Array(0);
  return authInfoFor(req, body);
}

function authInfoFor(req: Request, body: Uint8Array): AuthInfo {
  const headers: Record<string, string> = {};
  req.headers.forEach((v, k) => (headers[k] = v));
  const evidence: HttpEvidence = { method: req.method, url: req.url, headers, body };
  return { token: '', clientId: '', scopes: [], extra: { evidence } };
}

/** The server side of the legacy HTTP+SSE transport, written against the SDK's Transport interface. */
export class SseTransport implements Transport {
  readonly sessionId = randomUUID();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: { request?: Request }) => void;
  open = false;
  private controller?: ReadableStreamDefaultController<Uint8Array>;
  private readonly encoder = new TextEncoder();
  private keepAlive?: NodeJS.Timeout;

  constructor(private readonly endpoint: string) {}

  response(): Response {
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
        this.open = true;
        this.write(`event: endpoint\ndata: ${this.endpoint}?sessionId=${this.sessionId}\n\n`);
        this.keepAlive = setInterval(() => this.write(': keep-alive\n\n'), 15_000);
        this.keepAlive.unref();
      },
      cancel: () => void this.close(),
    });
    return new Response(stream, { headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' } });
  }

  async start(): Promise<void> {}

  receive(message: JSONRPCMessage, request: Request, authInfo?: AuthInfo): void {
    this.onmessage?.(message, { request, authInfo } as never);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.open) throw new Error('SSE stream is closed');
    this.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  async close(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    if (this.keepAlive) clearInterval(this.keepAlive);
    try {
      this.controller?.close();
    } catch {
      /* already closed by the client */
    }
    this.onclose?.();
  }

  private write(s: string): void {
    try {
      this.controller?.enqueue(this.encoder.encode(s));
    } catch {
      void this.close();
    }
  }
}
