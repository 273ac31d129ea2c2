/**
 * What an idle MCP session costs the server (a thousand may be open at once): every session's
 * server instance of a door answers from the same tool list and fixed answers, built once per
 * process; a session holds no routing sets until it acts for someone. Structural, so that no
 * timing or heap figure decides the result (bench/mcp-memory.mjs measures the bytes).
 */
import { describe, expect, test } from 'vitest';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import {
  createMcpHttp,
  createMcpServer,
  SessionHub,
  type McpDoorDeps,
  type NotifiableSession,
} from '../../src/bindings/mcp/index.js';
import type { CallScope, Pipeline } from '../../src/operations/index.js';

/** Listing tools and resources never reaches the pipeline. */
const deps = (): McpDoorDeps => ({ pipeline: {} as Pipeline, scopeOf: () => ({}) as CallScope });

/** A transport that keeps what the server sends, objects as the server built them (no serialization). */
class CaptureTransport implements Transport {
  sent: JSONRPCMessage[] = [];
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  async start(): Promise<void> {}
  async send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message);
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
  /** Deliver one request and wait for the server's answer to it. */
  async request(id: number, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    this.onmessage!({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
    for (let i = 0; i < 100; i++) {
      const answer = this.sent.find((m) => (m as { id?: unknown }).id === id) as
        | { result?: Record<string, unknown>; error?: unknown }
        | undefined;
      if (answer) {
        if (!answer.result) throw new Error(`${method} failed: ${JSON.stringify(answer.error)}`);
        return answer.result;
      }
      await new Promise((r) => setImmediate(r));
    }
    throw new Error(`no answer to ${method}`);
  }
}

async function session(d: McpDoorDeps): Promise<CaptureTransport> {
  const t = new CaptureTransport();
  await createMcpServer(d, { catalogSubscriber: false }).connect(t);
  await t.request(1, 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'test', version: '1' },
  });
  t.onmessage!({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
  return t;
}

describe('sessions of one door share what does not depend on the session', () => {
  test('two sessions answer tools/list with the very same tool list, built once', async () => {
    const d = deps();
    const [a, b] = [await session(d), await session(d)];
    const listA = (await a.request(2, 'tools/list')).tools as unknown[];
    const listB = (await b.request(2, 'tools/list')).tools as unknown[];
    expect(listA.length).toBeGreaterThan(10);
    expect(listB).toBe(listA);
    // And another door over the same operations (another composition in the same process) too.
    const c = await session(deps());
    expect((await c.request(2, 'tools/list')).tools).toBe(listA);
  });

  test('two sessions answer resources/templates/list and resources/list with the same objects', async () => {
    const d = deps();
    const [a, b] = [await session(d), await session(d)];
    expect(await b.request(3, 'resources/templates/list')).toBe(await a.request(3, 'resources/templates/list'));
    expect(await b.request(4, 'resources/list')).toBe(await a.request(4, 'resources/list'));
  });
});

describe('an idle session holds no routing state until it acts', () => {
  test('a session opened over Streamable HTTP registers with the hub without principal, credential or subscription sets', async () => {
    const registered: NotifiableSession[] = [];
    const hub = new (class extends SessionHub {
      override register(s: NotifiableSession): () => void {
        registered.push(s);
        return super.register(s);
      }
    })((p: string) => `usp://webhooks/${p}`);
    const door = createMcpHttp(deps(), hub);
    try {
      for (let i = 0; i < 2; i++) {
        const res = await door.app.fetch(
          new Request('http://127.0.0.1/mcp', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'initialize',
              params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
            }),
          }),
        );
        expect(res.status).toBe(200);
        await res.text();
      }
      expect(door.sessionCount()).toBe(2);
      expect(registered).toHaveLength(2);
      for (const s of registered) {
        expect(s.principals).toBeUndefined();
        expect(s.resources).toBeUndefined();
        expect(s.subscriptions).toBeUndefined();
        expect(s.catalogSubscriber).toBe(false);
        // No per-session closures of ours: notify and close are shared methods.
        expect(Object.keys(s)).not.toContain('notify');
        expect(Object.keys(s)).not.toContain('close');
      }
      expect(registered[0]!.notify).toBe(registered[1]!.notify);
    } finally {
      await door.close();
    }
    expect(hub.size).toBe(0);
  });

  test('a subscription creates the session its subscription set; unsubscribing from what it never held answers {}', async () => {
    const state: NotifiableSession = { id: 's', catalogSubscriber: false, notify: () => undefined };
    const t = new CaptureTransport();
    await createMcpServer(deps(), state).connect(t);
    await t.request(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'test', version: '1' },
    });
    expect(await t.request(2, 'resources/unsubscribe', { uri: 'usp://webhooks/x' })).toEqual({});
    expect(state.subscriptions).toBeUndefined();
    expect(await t.request(3, 'resources/subscribe', { uri: 'usp://webhooks/x' })).toEqual({});
    expect([...state.subscriptions!]).toEqual(['usp://webhooks/x']);
  });
});
