/**
 * The SDK's Streamable HTTP client transport hands one connection-long abort signal to every
 * request; undici (Node 20) adds an abort listener to it per request and drops it only when the
 * request is garbage collected. `perRequestAbortFetch` (usp-server/client) bridges that signal to a
 * signal per request and removes the bridge when the response ends, so the listeners stay bounded
 * by the requests in flight, and closing the connection still ends its streams.
 */
import { getEventListeners } from 'node:events';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perRequestAbortFetch } from '../../src/client/index.js';
import { PLATFORM, startTestServer, type TestServer } from '../support/server.js';

/** A client whose every request goes through `perRequestAbortFetch`; `signals` collects the signals the SDK passed. */
async function connect(url: string) {
  const signals = new Set<AbortSignal>();
  const isolated = perRequestAbortFetch();
  const fetchSpy: typeof fetch = (input, init) => {
    if (init?.signal) signals.add(init.signal);
    return isolated(input, init);
  };
  const client = new Client({ name: 'abort-listeners-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { fetch: fetchSpy }));
  const listeners = () => [...signals].reduce((n, s) => n + getEventListeners(s, 'abort').length, 0);
  return { client, signals, listeners };
}

describe('MCP over Streamable HTTP: abort listeners per connection stay bounded', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('300 sequential tool calls on one session leave at most the open streams listening on its signal', async () => {
    const { client, signals, listeners } = await connect(t.url);
    try {
      const args = { service_id: 'svc_haircut', _meta: { usp: { profile: PLATFORM } } };
      for (let i = 0; i < 300; i++) {
        const r: any = await client.callTool({ name: 'usp_services_get', arguments: args });
        expect(r.isError).toBeFalsy();
      }
      expect(signals.size).toBe(1);
      // The standalone GET stream, open for the session's life, is the one request still in flight.
      expect(listeners()).toBeLessThanOrEqual(2);
    } finally {
      await client.close();
    }
  });

  it('an answer through the bridge keeps its status, headers, body and URL, and leaves no listener once read', async () => {
    const parent = new AbortController();
    const res = await perRequestAbortFetch()(`${t.url}/.well-known/usp`, { signal: parent.signal });
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${t.url}/.well-known/usp`);
    expect(res.headers.get('content-type')).toMatch(/json/);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    expect(((await res.json()) as { usp?: unknown }).usp).toBeDefined();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });

  it('closing the client aborts its open GET stream through the bridge and leaves no listener', async () => {
    const { client, signals, listeners } = await connect(t.url);
    await client.callTool({ name: 'usp_services_get', arguments: { service_id: 'svc_haircut' } });
    const [signal] = [...signals];
    await client.close();
    expect(signal?.aborted).toBe(true);
    expect(listeners()).toBe(0);
  });
});
