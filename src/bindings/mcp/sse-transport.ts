/**
 * The server side of the legacy HTTP+SSE transport (2024-11-05): GET /sse opens the stream, POST
 * /messages?sessionId= carries the requests (src/bindings/mcp/http.ts routes both).
 */
import { randomUUID } from 'node:crypto';
import type { AuthInfo, JSONRPCMessage, Transport } from '@modelcontextprotocol/server';

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
    return new Response(stream, {
      headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' },
    });
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
