/**
 * The MCP side of the suite, spoken as raw JSON-RPC so that every code and `data` member is seen
 * exactly as the server sent it (an SDK client would validate, rewrite or throw first). Two
 * transports: Streamable HTTP (a session opened with `initialize`; answers as JSON or as an SSE
 * stream) and stdio (a child process, newline-delimited messages).
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface RpcError {
  code: number;
  message: string;
  data?: any;
}

export interface RpcAnswer {
  result?: any;
  error?: RpcError;
  /** The HTTP status (Streamable HTTP only; 0 over stdio). */
  status: number;
}

export interface McpClient {
  readonly transport: 'http' | 'stdio';
  request(method: string, params?: unknown): Promise<RpcAnswer>;
  /** tools/call: the tool's structuredContent is `result.structuredContent`. */
  call(tool: string, args: Record<string, unknown>): Promise<RpcAnswer>;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: 'usp-server-client', version: '1' };
const PROTOCOL_VERSION = '2025-06-18';

/** The JSON-RPC messages of an SSE body (every `data:` event). */
function sseMessages(text: string): any[] {
  const out: any[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
    if (!data) continue;
    try {
      out.push(JSON.parse(data));
    } catch {
      /* not JSON: ignored */
    }
  }
  return out;
}

abstract class Base {
  private nextId = 1;
  abstract exchange(message: Record<string, unknown>): Promise<RpcAnswer>;
  abstract notify(method: string): Promise<void>;

  request(method: string, params?: unknown): Promise<RpcAnswer> {
    return this.exchange({ jsonrpc: '2.0', id: this.nextId++, method, ...(params === undefined ? {} : { params }) });
  }

  call(tool: string, args: Record<string, unknown>): Promise<RpcAnswer> {
    return this.request('tools/call', { name: tool, arguments: args });
  }

  async initialize(): Promise<void> {
    const a = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: CLIENT_INFO,
    });
    if (a.error || !a.result)
      throw new Error(`MCP initialize failed: ${a.error ? `${a.error.code} ${a.error.message}` : `HTTP ${a.status}`}`);
    await this.notify('notifications/initialized');
  }
}

class HttpMcp extends Base implements McpClient {
  readonly transport = 'http' as const;
  private session: string | null = null;

  constructor(
    private readonly endpoint: string,
    private readonly timeoutMs: number,
    private readonly fetch: typeof globalThis.fetch = globalThis.fetch,
  ) {
    super();
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': PROTOCOL_VERSION,
    };
    if (this.session) h['Mcp-Session-Id'] = this.session;
    return h;
  }

  async exchange(message: Record<string, unknown>): Promise<RpcAnswer> {
    const res = await this.fetch(this.endpoint, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify(message),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const sid = res.headers.get('mcp-session-id');
    if (sid) this.session = sid;
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    let messages: any[] = [];
    if (type.includes('text/event-stream')) messages = sseMessages(text);
    else {
      try {
        const parsed = JSON.parse(text);
        messages = Array.isArray(parsed) ? parsed : [parsed];
      } catch {
        messages = [];
      }
    }
    const answer = messages.find((m) => m && m.id === message.id) ?? messages.find((m) => m && (m.result || m.error));
    return { result: answer?.result, error: answer?.error, status: res.status };
  }

  async notify(method: string): Promise<void> {
    const res = await this.fetch(this.endpoint, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify({ jsonrpc: '2.0', method }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    await res.text();
  }

  async close(): Promise<void> {
    if (!this.session) return;
    await this.fetch(this.endpoint, {
      method: 'DELETE',
      headers: this.headers(),
      signal: AbortSignal.timeout(this.timeoutMs),
    }).then(
      (r) => r.text(),
      () => undefined,
    );
  }
}

class StdioMcp extends Base implements McpClient {
  readonly transport = 'stdio' as const;
  private buffer = '';
  private readonly waiting = new Map<unknown, (a: RpcAnswer) => void>();

  constructor(
    private readonly child: ChildProcess,
    private readonly timeoutMs: number,
  ) {
    super();
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      this.buffer += chunk;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl).trim();
        this.buffer = this.buffer.slice(nl + 1);
        if (!line) continue;
        try {
          const msg = JSON.parse(line);
          const done = this.waiting.get(msg.id);
          if (done) {
            this.waiting.delete(msg.id);
            done({ result: msg.result, error: msg.error, status: 0 });
          }
        } catch {
          /* a line that is not JSON-RPC is ignored */
        }
      }
    });
  }

  exchange(message: Record<string, unknown>): Promise<RpcAnswer> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(message.id);
        reject(new Error(`no answer over stdio to ${String(message.method)} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.waiting.set(message.id, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      this.child.stdin!.write(`${JSON.stringify(message)}\n`);
    });
  }

  async notify(method: string): Promise<void> {
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  async close(): Promise<void> {
    this.child.stdin!.end();
    if (this.child.exitCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r));
      const timer = setTimeout(() => this.child.kill('SIGTERM'), 2000);
      await exited;
      clearTimeout(timer);
    }
  }
}

export async function connectHttpMcp(
  endpoint: string,
  timeoutMs: number,
  fetcher: typeof globalThis.fetch = globalThis.fetch,
): Promise<McpClient> {
  const c = new HttpMcp(endpoint, timeoutMs, fetcher);
  await c.initialize();
  return c;
}

/** Start `command` through the shell and speak MCP on its stdin and stdout (stderr is discarded). */
export async function connectStdioMcp(command: string, timeoutMs: number): Promise<McpClient> {
  const child = spawn(command, { shell: true, stdio: ['pipe', 'pipe', 'ignore'] });
  const c = new StdioMcp(child, timeoutMs);
  try {
    await c.initialize();
  } catch (err) {
    child.kill('SIGTERM');
    throw err;
  }
  return c;
}
