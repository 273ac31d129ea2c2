/**
 * A loopback HTTP receiver that plays the platform side of webhook delivery (spec §5.4, §10.1.1):
 * it records every request (method, path, headers, the raw body bytes, arrival time) and answers
 * each path from a script, e.g. 500, 500, then 200, or "hang" (never answer), so tests can drive
 * retries, ordering and isolation. Nothing here verifies signatures: tests do that independently.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { waitFor } from './time.js';

/** What the receiver answers one request with. */
export type Reply =
  | number
  | 'hang'
  | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number };

export interface ReceivedRequest {
  /** Arrival order across the whole receiver (0-based). */
  index: number;
  method: string;
  /** The path without the query string. */
  path: string;
  /** The request target as sent (path and query). */
  target: string;
  /** Header names in lower case, as node parses them. */
  headers: IncomingHttpHeaders;
  /** Raw header lines as received (name, value, name, value...). */
  rawHeaders: string[];
  /** The body bytes exactly as received. */
  body: Buffer;
  /** Wall-clock arrival time (ms since the epoch), taken when the whole body was in. */
  at: number;
  /** Monotonic arrival time (performance.now()), for measuring gaps between attempts. */
  mono: number;
  /** The status answered, or null while unanswered (hanging) or when the client went away first. */
  answered: number | null;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: any;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly port: number;
  /** The absolute URL of `path` on this receiver. */
  url(path: string): string;
  /**
   * Answer the next requests to `path` with these replies in turn; once they are used up, the
   * path's fallback (see `setDefault`, 200 unless changed) answers.
   */
  script(path: string, replies: readonly Reply[]): void;
  /** The answer for `path` once its script is used up (every path: 200 by default). */
  setDefault(path: string, reply: Reply): void;
  /**
   * Decide per request: consulted before the script; returning undefined falls through to the
   * script, then the default. Pass null to remove.
   */
  setResponder(path: string, fn: ((req: ReceivedRequest) => Reply | undefined) | null): void;
  /** Every request received, in arrival order (optionally only those for `path`). */
  requests(path?: string): ReceivedRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** Resolves true once `pred` holds of the requests received; throws after `timeoutMs` (default 5 s), naming `what`. */
  waitFor(
    pred: (reqs: ReceivedRequest[]) => boolean,
    timeoutMs?: number,
    what?: string | (() => string),
  ): Promise<true>;
  /** Forget the recorded requests (scripts and defaults stay). */
  clear(): void;
  /** Close, dropping any hanging requests. */
  close(): Promise<void>;
}

function normalize(
  reply: Reply,
): { status: number; body: string; headers: Record<string, string>; delayMs: number } | 'hang' {
  if (reply === 'hang') return 'hang';
  if (typeof reply === 'number') return { status: reply, body: '', headers: {}, delayMs: 0 };
  return { status: reply.status, body: reply.body ?? '', headers: reply.headers ?? {}, delayMs: reply.delayMs ?? 0 };
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const scripts = new Map<string, Reply[]>();
  const defaults = new Map<string, Reply>();
  const responders = new Map<string, (req: ReceivedRequest) => Reply | undefined>();
  const log: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  let conns = 0;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = req.url ?? '/';
      const path = new URL(target, 'http://receiver.invalid').pathname;
      const body = Buffer.concat(chunks);
      let json: any;
      try {
        json = body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined;
      } catch {
        json = undefined;
      }
      const rec: ReceivedRequest = {
        index: log.length,
        method: req.method ?? '',
        path,
        target,
        headers: req.headers,
        rawHeaders: [...req.rawHeaders],
        body,
        at: Date.now(),
        mono: performance.now(),
        answered: null,
        json,
      };
      log.push(rec);
      const chosen = responders.get(path)?.(rec);
      const queue = scripts.get(path);
      const reply = normalize(chosen ?? (queue && queue.length > 0 ? queue.shift()! : (defaults.get(path) ?? 200)));
      if (reply === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const answer = () => {
        rec.answered = reply.status;
        res.writeHead(reply.status, { 'Content-Type': 'text/plain', ...reply.headers });
        res.end(reply.body);
      };
      if (reply.delayMs > 0) {
        const t = setTimeout(() => {
          timers.delete(t);
          answer();
        }, reply.delayMs);
        timers.add(t);
      } else answer();
    });
  });
  // Keep hanging requests hanging: no server-side request timeout.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
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
  const origin = `http://127.0.0.1:${port}`;
  const norm = (p: string) => (p.startsWith('/') ? p : `/${p}`);

  return {
    origin,
    port,
    url: (p) => `${origin}${norm(p)}`,
    script(p, replies) {
      scripts.set(norm(p), [...replies]);
    },
    setDefault(p, reply) {
      defaults.set(norm(p), reply);
    },
    setResponder(p, fn) {
      if (fn) responders.set(norm(p), fn);
      else responders.delete(norm(p));
    },
    requests: (p) => (p === undefined ? [...log] : log.filter((r) => r.path === norm(p))),
    connections: () => conns,
    waitFor(
      pred,
      timeoutMs = 5000,
      what = () => `the requests received (${log.length}: ${log.map((r) => r.path).join(', ')})`,
    ) {
      return waitFor(() => pred([...log]), timeoutMs, what);
    },
    clear() {
      log.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.close(() => resolve());
        for (const r of hanging) r.destroy();
        for (const s of sockets) s.destroy();
      }),
  };
}
