/**
 * MCP test support: connect a real SDK client (v1 `@modelcontextprotocol/sdk` or v2
 * `@modelcontextprotocol/client`) to usp-server over stdio (the built `usp-server mcp` binary),
 * Streamable HTTP (`/mcp`), legacy HTTP+SSE (`/sse`), or in memory (the SDK's linked transport
 * pair, for tests whose subject is the tools rather than a transport: no socket, no child), collect the `usp_webhook` notifications it
 * receives, and poll for them with a bound instead of sleeping. Also a raw JSON-RPC line client for
 * stdio and a raw POST helper for an open Streamable HTTP session, for requests an SDK client
 * would refuse to send.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import {
  Client as ClientV2,
  InMemoryTransport,
  SSEClientTransport as SseV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { connectMcpSession } from '../../src/bindings/mcp/index.js';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport as SseV1 } from '@modelcontextprotocol/sdk/client/sse.js';
import { PLATFORM, startTestServer, type TestServer } from '../support/server.js';
import { TEST_NOW, waitFor } from '../support/time.js';
import { BIN, REPO_ROOT, ensureBuilt } from '../support/build.js';
import { inheritedEnv } from '../support/cli.js';

export const ZONE = 'America/New_York';

export type SdkLine = 'v1' | 'v2';
export type TransportKind = 'stdio' | 'http' | 'sse' | 'memory';

/** What a tools/call result looks like to the tests (both SDK lines return this shape). */
export interface ToolResult {
  structuredContent: any;
  content: Array<{ type: string; text: string }>;
  isError?: boolean;
  _meta?: any;
}

/** A JSON-RPC error as thrown by either client: numeric code, message, data. */
export interface RpcError {
  code: number;
  message: string;
  data: any;
}

export interface McpConn {
  line: SdkLine;
  kind: TransportKind;
  label: string;
  client: any;
  transport: any;
  call(tool: string, args?: Record<string, unknown>): Promise<ToolResult>;
  /** Calls a tool that must fail with a JSON-RPC error, and returns that error. */
  callError(tool: string, args?: unknown): Promise<RpcError>;
  /** `params` of every `usp_webhook` notification received, in arrival order. */
  notifications: Array<Record<string, any>>;
  /** The JSON-RPC method of every custom notification received (parallel to `notifications`). */
  notificationMethods: string[];
  /** The server process id (stdio only). */
  pid: number | null;
  /** What the server wrote to stderr so far (stdio only). */
  stderr(): string;
  close(): Promise<void>;
}

/** `{ _meta: { usp: { profile, ...extra } } }`, for spreading into tool arguments. */
export function meta(
  profile: string | null = PLATFORM,
  extra: Record<string, unknown> = {},
): { _meta: { usp: Record<string, unknown> } } {
  return { _meta: { usp: { ...(profile === null ? {} : { profile }), ...extra } } };
}

/** The New York calendar date `days` days after `fromMs` (YYYY-MM-DD). */
export function nyDate(fromMs: number, days = 0): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(fromMs + days * 86_400_000),
  );
}

/** The JSON-RPC error a call failed with, also when it came as the body of an HTTP 401. */
export function normalizeError(err: unknown): RpcError {
  const e = err as { code?: unknown; message?: unknown; data?: unknown };
  // A privileged call with no credential over HTTP is answered 401 (MCP authorization); the SDKs
  // raise it as an HTTP error whose text ends with the body, which is the USP JSON-RPC error.
  const body = typeof e?.code !== 'number' ? /(\{"jsonrpc".*\})\s*$/s.exec(String(e?.message ?? ''))?.[1] : undefined;
  if (body) {
    const rpc = JSON.parse(body) as { error?: { code: number; message: string; data?: unknown } };
    if (rpc.error) return { code: rpc.error.code, message: rpc.error.message, data: rpc.error.data };
  }
  if (typeof e?.code !== 'number') throw err;
  return { code: e.code, message: String(e.message ?? ''), data: e.data };
}

/** The argv that starts the stdio server on the demo business with an in-memory database. */
export { waitFor };

export const STDIO_ARGS = [BIN, 'mcp', '--demo', '--db', ':memory:'];

// ---------------------------------------------------------------------------
// SDK clients
// ---------------------------------------------------------------------------

/**
 * Connects a client of the given SDK line over the given transport. `target` is the server's base
 * URL for http and sse, the test server itself for memory (v2 only: a session on the server's own
 * pipeline and hub, as stdio has); stdio spawns `node bin/usp-server.js mcp --demo --db :memory:`
 * (call `ensureBuilt()` first).
 */
export async function connectMcp(line: SdkLine, kind: TransportKind, target?: string | TestServer): Promise<McpConn> {
  const url = typeof target === 'string' ? target : target?.url;
  if (kind !== 'stdio' && !target) throw new Error(`${kind} needs the server`);
  if (kind === 'memory' && (line !== 'v2' || typeof target !== 'object'))
    throw new Error('in memory: a v2 client and the test server');
  const notifications: Array<Record<string, any>> = [];
  const notificationMethods: string[] = [];
  const info = { name: `usp-test-${line}-${kind}`, version: '1.0.0' };
  let stderrText = '';
  let client: any;
  let transport: any;

  if (line === 'v2') {
    client = new ClientV2(info);
    client.setNotificationHandler(
      'usp_webhook',
      { params: z.looseObject({}) },
      (params: Record<string, any>, n: { method: string }) => {
        notifications.push(params);
        notificationMethods.push(n?.method ?? 'usp_webhook');
      },
    );
    if (kind === 'stdio')
      transport = new StdioV2({
        command: process.execPath,
        args: STDIO_ARGS,
        cwd: REPO_ROOT,
        env: inheritedEnv(),
        stderr: 'pipe',
      });
    else if (kind === 'memory') {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const { server } = target as TestServer;
      await connectMcpSession(
        { pipeline: server.pipeline, scope: server.scope },
        server.hub,
        serverSide as never,
        'memory',
      );
      transport = clientSide;
    } else if (kind === 'http') transport = new HttpV2(new URL('/mcp', url));
    else transport = new SseV2(new URL('/sse', url));
  } else {
    client = new ClientV1(info);
    client.setNotificationHandler(
      z3.object({ method: z3.literal('usp_webhook'), params: z3.object({}).passthrough() }),
      (n: { method: string; params: Record<string, any> }) => {
        notifications.push(n.params);
        notificationMethods.push(n.method);
      },
    );
    if (kind === 'stdio')
      transport = new StdioV1({
        command: process.execPath,
        args: STDIO_ARGS,
        cwd: REPO_ROOT,
        env: inheritedEnv(),
        stderr: 'pipe',
      });
    else if (kind === 'http') transport = new HttpV1(new URL('/mcp', url));
    else transport = new SseV1(new URL('/sse', url));
  }
  if (kind === 'stdio') {
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderrText = (stderrText + chunk.toString('utf8')).slice(-20_000);
    });
  }
  try {
    await client.connect(transport);
  } catch (err) {
    await new Promise((r) => setTimeout(r, 100)); // let the last stderr lines arrive
    throw new Error(
      `${line} client could not connect over ${kind}: ${(err as Error).message}${stderrText ? `\nserver stderr:\n${stderrText.slice(-2000)}` : ''}`,
    );
  }

  const call = async (tool: string, args: Record<string, unknown> = {}): Promise<ToolResult> =>
    (await client.callTool({ name: tool, arguments: args })) as ToolResult;
  return {
    line,
    kind,
    label: `${line} over ${kind}`,
    client,
    transport,
    call,
    async callError(tool, args = {}) {
      let result: unknown;
      try {
        result = await client.callTool({ name: tool, arguments: args });
      } catch (err) {
        return normalizeError(err);
      }
      throw new Error(
        `${tool} was expected to fail with a JSON-RPC error but returned ${JSON.stringify(result).slice(0, 800)}`,
      );
    },
    notifications,
    notificationMethods,
    pid: kind === 'stdio' ? (transport.pid ?? null) : null,
    stderr: () => stderrText,
    async close() {
      await client.close().catch(() => undefined);
    },
  };
}

// ---------------------------------------------------------------------------
// One place to run a scenario: a test server on loopback (http, sse) or a stdio child process
// ---------------------------------------------------------------------------

export interface McpEnv {
  conn: McpConn;
  /** The REST/HTTP server (http, sse and memory). */
  server: TestServer | null;
  /** The New York date `n` days after the server's "now" (TEST_NOW for the test server, the real clock on stdio). */
  day(n: number): string;
  /** The server's notion of now, in ms. */
  now(): number;
  close(): Promise<void>;
}

export async function openEnv(line: SdkLine, kind: TransportKind): Promise<McpEnv> {
  if (kind === 'stdio') {
    ensureBuilt();
    const conn = await connectMcp(line, 'stdio');
    return { conn, server: null, day: (n) => nyDate(Date.now(), n), now: () => Date.now(), close: () => conn.close() };
  }
  const server = await startTestServer();
  try {
    const conn = await connectMcp(line, kind, kind === 'memory' ? server : server.url);
    return {
      conn,
      server,
      day: (n) => nyDate(server.clock.now(), n),
      now: () => server.clock.now(),
      async close() {
        await conn.close();
        await server.close();
      },
    };
  } catch (err) {
    await server.close();
    throw err;
  }
}

/** TEST_NOW's New York date plus `n` days, for tests on a test server. */
export const testDay = (n: number): string => nyDate(TEST_NOW, n);

// ---------------------------------------------------------------------------
// Raw JSON-RPC
// ---------------------------------------------------------------------------

export interface RawRpcResponse {
  jsonrpc?: string;
  id?: unknown;
  result?: any;
  error?: { code: unknown; message?: unknown; data?: unknown };
}

/** Parses a Streamable HTTP response body (JSON or an SSE stream) into its JSON-RPC messages. */
export function parseHttpRpcBody(contentType: string, text: string): RawRpcResponse[] {
  if (contentType.includes('text/event-stream')) {
    const out: RawRpcResponse[] = [];
    for (const block of text.split(/\r?\n\r?\n/)) {
      const data = block
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) out.push(JSON.parse(data));
    }
    return out;
  }
  if (!text) return [];
  const body = JSON.parse(text);
  return Array.isArray(body) ? body : [body];
}

/** POSTs raw JSON-RPC text into an open Streamable HTTP session (the one a connected SDK client holds). */
export async function postRaw(
  url: string,
  session: { sessionId: string; protocolVersion?: string },
  body: string,
): Promise<{ status: number; messages: RawRpcResponse[]; text: string }> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'mcp-session-id': session.sessionId,
  };
  if (session.protocolVersion) headers['mcp-protocol-version'] = session.protocolVersion;
  const res = await fetch(new URL('/mcp', url), { method: 'POST', headers, body });
  const text = await res.text();
  let messages: RawRpcResponse[] = [];
  try {
    messages = parseHttpRpcBody(res.headers.get('content-type') ?? '', text);
  } catch {
    messages = [];
  }
  return { status: res.status, messages, text };
}

/**
 * A bare stdio JSON-RPC client: spawns the server, does the initialize handshake and sends any
 * line it is given, matching responses to ids.
 */
export class RawStdioSession {
  readonly child: ChildProcessWithoutNullStreams;
  private buffer = '';
  private stderrText = '';
  private readonly pending = new Map<string, (m: RawRpcResponse) => void>();
  readonly notifications: Array<{ method: string; params?: any }> = [];
  /** Responses whose id is null (the server could not read the request's id). */
  readonly orphans: RawRpcResponse[] = [];
  readonly unparsable: string[] = [];
  private exitCode: number | null | undefined;

  constructor() {
    this.child = spawn(process.execPath, STDIO_ARGS, { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.onData(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderrText = (this.stderrText + chunk.toString('utf8')).slice(-20_000);
    });
    this.child.on('exit', (code) => {
      this.exitCode = code;
    });
  }

  get alive(): boolean {
    return this.exitCode === undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  get stderr(): string {
    return this.stderrText;
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      if (!line.trim()) continue;
      let msg: any;
      try {
        msg = JSON.parse(line);
      } catch {
        this.unparsable.push(line.slice(0, 300));
        continue;
      }
      if (msg && msg.id === null && msg.error !== undefined) {
        this.orphans.push(msg);
      } else if (msg && msg.id !== undefined && (msg.result !== undefined || msg.error !== undefined)) {
        const key = JSON.stringify(msg.id);
        const resolveFn = this.pending.get(key);
        if (resolveFn) {
          this.pending.delete(key);
          resolveFn(msg);
        }
      } else if (msg && typeof msg.method === 'string') {
        this.notifications.push(msg);
      }
    }
  }

  /** Writes one line (already serialized) that carries request id `id`, and waits for its response. */
  sendLine(line: string, id: string | number, timeoutMs = 10_000): Promise<RawRpcResponse> {
    const key = JSON.stringify(id);
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(key);
        reject(
          new Error(
            `no response to id ${key} within ${timeoutMs} ms (server alive: ${this.alive}); stderr: ${this.stderrText.slice(-1000)}`,
          ),
        );
      }, timeoutMs);
      this.pending.set(key, (m) => {
        clearTimeout(timer);
        resolvePromise(m);
      });
      this.child.stdin.write(line + '\n');
    });
  }

  request(id: string | number, method: string, params?: unknown): Promise<RawRpcResponse> {
    return this.sendLine(
      JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
      id,
    );
  }

  async initialize(): Promise<RawRpcResponse> {
    const res = await this.request('init', 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'usp-raw-stdio', version: '1.0.0' },
    });
    this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    return res;
  }

  async close(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGTERM'), 3000);
    await exited;
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------
// Result checks shared by the test files
// ---------------------------------------------------------------------------

/** Error-typed message codes of a result. */
export function errorCodes(r: ToolResult): string[] {
  return ((r.structuredContent?.messages ?? []) as any[]).filter((m) => m.type === 'error').map((m) => m.code);
}
