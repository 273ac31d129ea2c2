/**
 * A Streamable HTTP session's answer to a POST leaves the MCP door as the SDK made it when none of
 * its messages is an error: the door's guardSend saw every message go out, so there is nothing for
 * `finishPost` to repair, and reading the body back (the whole Response made from it, its stream
 * decoded) and writing it again cost a tenth of a 30 KB availability answer. An answer with an
 * error is still rewritten once (codes, token status, rate fields: test/mcp/one-rewrite.test.ts).
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { finishPost } from '../../src/bindings/mcp/wire-fix.js';
import { demoBusiness } from '../support/server.js';

let server: UspServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

const PLATFORM = 'https://platform.example/profiles/test-agent.json';
const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

async function session(): Promise<(body: unknown) => Promise<Response>> {
  server = await createUspServer({ business: demoBusiness(), db: ':memory:', sandbox: true, log: silentLogger });
  const app = server.app;
  const init = await app.request('/mcp', {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  await init.text();
  const sid = init.headers.get('mcp-session-id')!;
  const headers = { ...HEADERS, 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-11-25' };
  const post = async (body: unknown) => app.request('/mcp', { method: 'POST', headers, body: JSON.stringify(body) });
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  return post;
}

const call = (id: number, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: { service_id: 'svc_haircut', _meta: { usp: { profile: PLATFORM } } } },
});

/** Bodies of answers read back (Response#text) while `fn` runs, before the caller reads its own. */
async function readsDuring(fn: () => Promise<Response>): Promise<{ reads: number; res: Response }> {
  const text = vi.spyOn(Response.prototype, 'text');
  const res = await fn();
  const reads = text.mock.calls.length;
  text.mockRestore();
  return { reads, res };
}

describe("a session's answer without an error is not read back and written again", () => {
  test('a tools/call result: its body is not read by the door, and the answer is the same JSON with the same headers', async () => {
    const post = await session();
    const { reads, res } = await readsDuring(() => post(call(7, 'usp_services_get')));
    expect(reads).toBe(0);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('access-control-expose-headers')).toMatch(/^Mcp-Session-Id,/);
    expect(res.headers.get('vary')).toBe('Origin');
    const body = (await res.json()) as { id: number; result: { structuredContent: { service: { id: string } } } };
    expect(body.id).toBe(7);
    expect(body.result.structuredContent.service.id).toBe('svc_haircut');
  });

  test('an error answer is still read and repaired once; the next call under the same id is a result again, not rewritten', async () => {
    const post = await session();
    const refused = await readsDuring(() => post({ jsonrpc: '2.0', id: 8, method: 'prompts/list', params: {} }));
    expect(refused.reads).toBe(1);
    const err = (await refused.res.json()) as { id: number; error: { code: number; data: { code: string } } };
    expect([err.id, err.error.code, err.error.data.code]).toEqual([8, -32601, 'method_not_found']);
    const again = await readsDuring(() => post(call(8, 'usp_services_get')));
    expect(again.reads).toBe(0);
    expect(((await again.res.json()) as { result: { isError?: boolean } }).result.isError).toBeUndefined();
  });

  test('the rate fields go on the answer itself', async () => {
    const res = new Response('{"jsonrpc":"2.0","id":1,"result":{}}', {
      headers: { 'Content-Type': 'application/json' },
    });
    const out = await finishPost(res, { quota: { bucket: 'reads', limit: 10, remaining: 9, reset: 6 } }, true);
    expect(out).toBe(res);
    expect(out.headers.get('ratelimit')).toContain('r=9');
    expect(await out.text()).toBe('{"jsonrpc":"2.0","id":1,"result":{}}');
  });
});
