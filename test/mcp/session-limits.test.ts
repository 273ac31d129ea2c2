/**
 * MCP sessions are bounded (Streamable HTTP and legacy SSE): a cap per client address (429 over it,
 * with Retry-After and a JSON-RPC error body), and a global cap at which a newcomer takes the place
 * of the longest-idle session of the address holding the most, so that a few addresses cannot lock
 * everyone else out; and a session the client never came back to after initialize is closed after
 * a short deadline, while one in use stays. Small limits are configured so the test runs in a second.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/operations/index.js';
import { createUspServer, type ServerOptions, type UspServer } from '../../src/server/compose.js';
import { demoBusiness } from '../support/server.js';

let server: UspServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(mcpSessions: ServerOptions['mcpSessions'], trustProxy = false): Promise<string> {
  server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: true,
    log: silentLogger,
    sweepIntervalMs: 0,
    mcpSessions,
    trustProxy,
  });
  return server.listen(0, '127.0.0.1');
}

const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
});

async function initialize(url: string, headers: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(`${url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: INIT });
  await res.text();
  return res;
}

async function listTools(url: string, sid: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...headers, 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
  });
  await res.text();
  return res.status;
}

describe('session caps', () => {
  test('addresses that fill the global cap do not lock others out: a newcomer gets a session and the heaviest address loses its longest-idle one', async () => {
    const url = await start({ maxSessions: 10, maxSessionsPerAddress: 5 }, true);
    const from = (a: string) => ({ 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': a });
    const open = async (a: string) => {
      const res = await initialize(url, from(a));
      expect(res.status).toBe(200);
      await new Promise((r) => setTimeout(r, 5));
      return res.headers.get('mcp-session-id')!;
    };
    const heavy: string[] = [];
    for (let i = 0; i < 5; i++) heavy.push(await open('198.51.100.1'));
    const middle: string[] = [];
    for (let i = 0; i < 3; i++) middle.push(await open('198.51.100.2'));
    const light = [await open('198.51.100.3'), await open('198.51.100.3')];
    // The heavy address's first session is used again: its second is now the one idle the longest.
    expect(await listTools(url, heavy[0], from('198.51.100.1'))).toBe(200);
    for (const newcomer of ['198.51.100.4', '203.0.113.9']) {
      const res = await initialize(url, from(newcomer));
      expect(res.status, `a newcomer from ${newcomer} when the server is full`).toBe(200);
      expect(await listTools(url, res.headers.get('mcp-session-id')!, from(newcomer))).toBe(200);
    }
    // The heavy address (5, then 4, still the heaviest) gave way twice, its idlest sessions first.
    expect(await listTools(url, heavy[1], from('198.51.100.1'))).toBe(404);
    expect(await listTools(url, heavy[2], from('198.51.100.1'))).toBe(404);
    for (const sid of [heavy[0], heavy[3], heavy[4], ...middle, ...light])
      expect(await listTools(url, sid, from('198.51.100.9'))).toBe(200);
  });

  test('without client addresses (in-process) the longest-idle session gives way at the cap', async () => {
    const url = await start({ maxSessions: 3, maxSessionsPerAddress: 10 });
    const sids: string[] = [];
    for (let i = 0; i < 3; i++) {
      sids.push((await initialize(url)).headers.get('mcp-session-id')!);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await listTools(url, sids[0])).toBe(200);
    const res = await fetch(`${url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: INIT });
    expect(res.status).toBe(200);
    expect(await listTools(url, sids[1])).toBe(404);
    expect(await listTools(url, sids[0])).toBe(200);
    expect(await listTools(url, sids[2])).toBe(200);
  });

  test('over the per-address cap, initialize answers 429 (rate_limited, -32007); another address still gets a session', async () => {
    const url = await start({ maxSessions: 10, maxSessionsPerAddress: 2 }, true);
    const from = (a: string) => ({ 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': a });
    for (let i = 0; i < 2; i++) expect((await initialize(url, from('198.51.100.1'))).status).toBe(200);
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...from('198.51.100.1') },
      body: INIT,
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body: any = await res.json();
    expect(body.error.code).toBe(-32007);
    expect(body.error.data.code).toBe('too_many_sessions_from_address');
    expect((await initialize(url, from('198.51.100.2'))).status).toBe(200);
  });

  test('the legacy SSE endpoint counts against the same cap: a full server closes an idle SSE session for a newcomer', async () => {
    const url = await start({ maxSessions: 1, maxSessionsPerAddress: 10 });
    const ctrl = new AbortController();
    const sse = await fetch(`${url}/sse`, { signal: ctrl.signal });
    expect(sse.status).toBe(200);
    const reader = sse.body!.getReader();
    await reader.read(); // the endpoint event
    await new Promise((r) => setTimeout(r, 5));
    expect((await initialize(url)).status).toBe(200);
    // The SSE session gave way: its stream ends.
    let done = false;
    while (!done) done = (await reader.read()).done;
    ctrl.abort();
  });
});

describe('sessions never used after initialize are reaped', () => {
  test('a session the client never came back to is gone after the 200 ms deadline; one that made a call stays', async () => {
    const url = await start({ unusedSessionTimeoutMs: 200 });
    const idle = (await initialize(url)).headers.get('mcp-session-id')!;
    const busy = (await initialize(url)).headers.get('mcp-session-id')!;
    expect(await listTools(url, busy)).toBe(200);
    await new Promise((r) => setTimeout(r, 700));
    expect(await listTools(url, idle)).toBe(404);
    expect(await listTools(url, busy)).toBe(200);
  });

  test('reaped sessions free their place under the cap', async () => {
    const url = await start({ maxSessions: 2, unusedSessionTimeoutMs: 200 });
    expect((await initialize(url)).status).toBe(200);
    expect((await initialize(url)).status).toBe(200);
    expect(server!.hub.size).toBe(2);
    await new Promise((r) => setTimeout(r, 700));
    expect(server!.hub.size).toBe(0);
    expect((await initialize(url)).status).toBe(200);
  });
});
