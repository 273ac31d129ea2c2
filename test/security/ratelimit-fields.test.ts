/**
 * Rate limit status on both doors (spec 10.2.2 SHOULD, draft-ietf-httpapi-ratelimit-headers):
 * every limited answer carries `RateLimit-Policy` (class, quota, window) and `RateLimit` (what the
 * caller has left, seconds to reset); a refused call says 0 left and carries Retry-After. The refill
 * clock is frozen, so the figures do not depend on how fast the machine answers.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { operationByName, silentLogger, type HttpEvidence } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { nyDate } from '../mcp/helpers.js';
import { demoBusiness } from '../support/server.js';

const first = nyDate(Date.now(), 2);
const last31 = nyDate(Date.now(), 32);

let server: UspServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(publicPerMinute: number): Promise<string> {
  server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: true,
    log: silentLogger,
    sweepIntervalMs: 0,
    security: { rateLimits: { public: publicPerMinute }, rateClock: () => 0 },
  });
  return server.listen(0, '127.0.0.1');
}

const query31 = (url: string) =>
  fetch(`${url}/availability/query`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ service_id: 'svc_haircut', start_date: first, end_date: last31, limit: 1 }),
  });

/** A raw Streamable HTTP session: the tool call's own HTTP answer, headers included. */
async function mcpSession(url: string) {
  const post = (body: unknown, sid?: string) =>
    fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...(sid ? { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' } : {}),
      },
      body: JSON.stringify(body),
    });
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rate', version: '1' } },
  });
  const sid = init.headers.get('mcp-session-id')!;
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sid);
  let id = 2;
  return (tool: string, args: Record<string, unknown>) =>
    post({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: tool, arguments: args } }, sid);
}

describe('RateLimit fields', () => {
  test('REST: each answer states what is left of the quota; the refused call says 0, with Retry-After', async () => {
    const url = await start(100);
    const one = await fetch(`${url}/services/svc_haircut`);
    expect(one.headers.get('ratelimit-policy')).toBe('"public";q=100;w=60');
    expect(one.headers.get('ratelimit')).toBe('"public";r=99;t=1');
    const q = await query31(url);
    expect(q.headers.get('ratelimit')).toBe('"public";r=68;t=20');
    await query31(url);
    await query31(url);
    expect((await fetch(`${url}/services/svc_haircut`)).headers.get('ratelimit')).toBe('"public";r=5;t=57');
    const refused = await query31(url);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit')).toMatch(/^"public";r=0;t=\d+$/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  test('MCP over HTTP: the tool call answer carries the same fields, and Retry-After with the -32007 refusal', async () => {
    const url = await start(62);
    const call = await mcpSession(url);
    const args = { service_id: 'svc_haircut', start_date: first, end_date: last31, limit: 1 };
    const ok = await call('usp_availability_query', args);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('ratelimit-policy')).toBe('"public";q=62;w=60');
    expect(ok.headers.get('ratelimit')).toBe('"public";r=31;t=30');
    await call('usp_availability_query', args);
    const refused = await call('usp_availability_query', args);
    const body: any = await refused.json();
    expect(body.error.code).toBe(-32007);
    expect(refused.headers.get('ratelimit')).toMatch(/^"public";r=0;t=\d+$/);
    expect(refused.headers.get('retry-after')).toBe(String(body.error.data.retry_after));
  });

  test("the quota is the call's answer: the pipeline returns it, refused calls included, and leaves the request as it came", async () => {
    await start(2);
    const http: HttpEvidence = Object.freeze({
      method: 'GET',
      url: 'http://127.0.0.1/services/svc_haircut',
      headers: Object.freeze({}),
      clientAddress: '203.0.113.7',
    });
    const call = () =>
      server!.pipeline.execute(
        operationByName('get_service'),
        { correlationId: 'rate', input: { service_id: 'svc_haircut' }, presented: { binding: 'rest', http } },
        server!.scope,
      );
    const first = await call();
    expect(first.ok).toBe(true);
    expect(first.rate).toEqual({ bucket: 'public', limit: 2, remaining: 1, reset: expect.any(Number) });
    await call();
    const refused = await call();
    expect(refused.ok ? undefined : refused.error.code).toBe('rate_limited');
    expect(refused.rate).toMatchObject({ bucket: 'public', limit: 2, remaining: 0 });
    expect(Object.keys(http).sort()).toEqual(['clientAddress', 'headers', 'method', 'url']);
  });
});
