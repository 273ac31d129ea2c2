/**
 * The per-call path of MCP over Streamable HTTP: a session's POSTs are answered as one
 * application/json body (the spec lets the server choose it over an SSE stream), and the request
 * body is read once by the door, so the same answers come back whether or not the OAuth gate read
 * it first, and a body that is not JSON is still refused by the SDK as a parse error.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { demoBusiness } from '../support/server.js';

let server: UspServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const PLATFORM = 'https://platform.example/profiles/test-agent.json';
const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

async function start(oauth: boolean): Promise<string> {
  server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: true,
    log: silentLogger,
    sweepIntervalMs: 0,
    ...(oauth ? {} : { oauth: false as const }),
  });
  return server.listen(0, '127.0.0.1');
}

async function session(url: string): Promise<string> {
  const init = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  expect(init.status).toBe(200);
  await init.text();
  const sid = init.headers.get('mcp-session-id')!;
  const done = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...HEADERS, 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(done.status).toBe(202);
  return sid;
}

function post(url: string, sid: string, body: string): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...HEADERS, 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-11-25' },
    body,
  });
}

describe('MCP over Streamable HTTP answers each session call as one JSON body', () => {
  test('a tools/call in a session answers 200 application/json carrying the JSON-RPC result (no SSE stream)', async () => {
    const url = await start(false);
    const sid = await session(url);
    const res = await post(
      url,
      sid,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'usp_services_get',
          arguments: { service_id: 'svc_haircut', _meta: { usp: { profile: PLATFORM } } },
        },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).toBe(sid);
    const body = (await res.json()) as { id: number; result: { structuredContent: { service: { id: string } } } };
    expect(body.id).toBe(7);
    expect(body.result.structuredContent.service.id).toBe('svc_haircut');
  });

  test.each([false, true])(
    'with the OAuth gate %s in front, a body that is not JSON is still a -32700 parse error and the session keeps working',
    async (oauth) => {
      const url = await start(oauth);
      const sid = await session(url);
      const bad = await post(url, sid, '{"jsonrpc": "2.0", "id": 3, "method": ');
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
      const ok = await post(url, sid, JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} }));
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);
    },
  );
});
