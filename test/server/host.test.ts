/**
 * The HTTP host mounts the doors side by side, and each door answers in its own format: an MCP
 * client only ever gets JSON-RPC (errors as JSON-RPC error objects with a proper HTTP status), REST
 * gets problem+json, the buyer's pages get HTML, including when the host itself refuses the request
 * (plaintext behind a TLS proxy, a body over the limit, a foreign Host or Origin).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type ProtocolError, silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { createHost, underPaths, type Door } from '../../src/server/host.js';
import { demoBusiness } from '../support/server.js';

const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
});
const MAX = 64 * 1024;
/** The MCP door's own limit (the SDK's): MCP requests carry more than REST's. */
const MCP_MAX = 4 * 1024 * 1024;

let server: UspServer | undefined;
let url = '';
afterEach(async () => {
  await server?.close();
  server = undefined;
});
async function start(o: { trustProxy?: boolean } = {}) {
  server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: true,
    log: silentLogger,
    sweepIntervalMs: 0,
    ...o,
  });
  url = await server.listen(0, '127.0.0.1');
}

/** A JSON-RPC error response: JSON (never problem+json), `jsonrpc: "2.0"`, an error object with a numeric code. */
async function expectJsonRpcError(
  res: Response,
  status: number,
): Promise<{ code: number; message: string; data?: any }> {
  expect(res.status).toBe(status);
  const type = res.headers.get('content-type') ?? '';
  expect(type).toContain('application/json');
  expect(type).not.toContain('problem');
  const body = (await res.json()) as any;
  expect(body.jsonrpc).toBe('2.0');
  expect(body.id).toBeNull();
  expect(typeof body.error.code).toBe('number');
  expect(body.type).toBeUndefined();
  return body.error;
}

async function expectProblem(res: Response, status: number): Promise<any> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  return res.json();
}

describe('an MCP client only ever gets JSON-RPC, whatever the host refuses', () => {
  it('plaintext behind a TLS proxy: /mcp answers 400 with a JSON-RPC error naming https_required', async () => {
    await start({ trustProxy: true });
    const err = await expectJsonRpcError(
      await fetch(`${url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: initialize }),
      400,
    );
    expect(err.code).toBe(-32600);
    expect(err.data.code).toBe('https_required');
    const sse = await expectJsonRpcError(await fetch(`${url}/sse`), 400);
    expect(sse.data.code).toBe('https_required');
  });

  it('a body over the limit: 413 with a JSON-RPC error, declared or chunked', async () => {
    await start();
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(MCP_MAX) } });
    const declared = await expectJsonRpcError(
      await fetch(`${url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: big }),
      413,
    );
    expect(declared.data.code).toBe('payload_too_large');
    const stream = new ReadableStream({
      start(ctrl) {
        ctrl.enqueue(new TextEncoder().encode(big));
        ctrl.close();
      },
    });
    const chunked = await fetch(`${url}/messages?sessionId=x`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect((await expectJsonRpcError(chunked, 413)).data.code).toBe('payload_too_large');
  });

  it('an unknown session: 404 with a JSON-RPC error on /mcp and on /messages', async () => {
    await start();
    const mcp = await expectJsonRpcError(
      await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'Mcp-Session-Id': 'no-such-session' },
        body: initialize,
      }),
      404,
    );
    expect(mcp.code).toBe(-32001);
    await expectJsonRpcError(
      await fetch(`${url}/messages?sessionId=nope`, { method: 'POST', headers: MCP_HEADERS, body: initialize }),
      404,
    );
  });

  it('unknown paths and methods under /mcp, /sse and /messages: 404 with a JSON-RPC error, not a problem document', async () => {
    await start();
    for (const [method, path] of [
      ['POST', '/mcp/tools'],
      ['GET', '/mcp/'],
      ['GET', '/sse/extra'],
      ['POST', '/sse'],
      ['GET', '/messages'],
      ['PUT', '/messages/1'],
    ] as const) {
      const err = await expectJsonRpcError(
        await fetch(`${url}${path}`, { method, headers: MCP_HEADERS, body: method === 'GET' ? undefined : '{}' }),
        404,
      );
      expect(err.data.code, `${method} ${path}`).toBe('not_found');
    }
  });

  it('a foreign Origin: 403 with a JSON-RPC error', async () => {
    await start();
    const err = await expectJsonRpcError(
      await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, Origin: 'http://evil.example' },
        body: initialize,
      }),
      403,
    );
    expect(err.data.code).toBe('origin_not_allowed');
  });
});

describe('REST keeps answering in problem+json, the pages in HTML', () => {
  it('REST: plaintext behind a proxy, a body over the limit and an unknown path are problem documents with the correlation id', async () => {
    await start({ trustProxy: true });
    const https = { 'X-Forwarded-Proto': 'https', 'Content-Type': 'application/json' };
    expect(
      (
        await expectProblem(
          await fetch(`${url}/services/list`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: '{}',
          }),
          400,
        )
      ).code,
    ).toBe('https_required');
    const big = await fetch(`${url}/services/list`, {
      method: 'POST',
      headers: { ...https, 'USP-Correlation-Id': 'corr-1' },
      body: JSON.stringify({ q: 'x'.repeat(MAX) }),
    });
    expect(big.headers.get('usp-correlation-id')).toBe('corr-1');
    expect(big.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await expectProblem(big, 413)).instance).toBe('/services/list');
    // A path no route serves is a plain HTTP 404: about:blank, no USP code (spec-next 9.1, 9.4.3).
    const missing = await expectProblem(await fetch(`${url}/mcpx`, { headers: https }), 404);
    expect([missing.type, missing.code]).toEqual(['about:blank', undefined]);
  });

  it('the pages: a form post over the limit and plaintext behind a proxy are HTML pages', async () => {
    await start({ trustProxy: true });
    const form = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'text/html' };
    const plain = await fetch(`${url}/checkout/bkg_x`, { method: 'POST', headers: form, body: 'choice=pay' });
    expect(plain.status).toBe(400);
    expect(plain.headers.get('content-type')).toContain('text/html');
    expect(await plain.text()).toContain('Use HTTPS');
    const big = await fetch(`${url}/checkout/bkg_x`, {
      method: 'POST',
      headers: { ...form, 'X-Forwarded-Proto': 'https' },
      body: `choice=${'p'.repeat(MAX)}`,
    });
    expect(big.status).toBe(413);
    expect(big.headers.get('content-type')).toContain('text/html');
  });
});

describe('a door is one entry in the host list: what it claims, its app, how it says no', () => {
  const door = (name: string, claims: Door['claims'], extra: Partial<Door> = {}): Door => ({
    name,
    claims,
    fetch: (req) => new Response(`${name} ${new URL(req.url).pathname}`),
    refuse: (_req, status, err: ProtocolError) => new Response(`${name} refuses: ${err.code}`, { status }),
    ...extra,
  });
  const host = (doors: Door[]) =>
    createHost({ doors, maxBodyBytes: 10, allowedHosts: ['good.example'], allowedOrigins: [] });

  it('the first door that claims a path answers it, and the last takes what nobody claims', async () => {
    const app = host([door('admin', underPaths('/admin')), door('rest', () => true)]);
    expect(await (await app.request('http://good.example/admin/x')).text()).toBe('admin /admin/x');
    expect(await (await app.request('http://good.example/administrator')).text()).toBe('rest /administrator');
    expect(await (await app.request('http://good.example/')).text()).toBe('rest /');
  });

  it('refusals go through the door the path belongs to; Host checks apply only to browser doors', async () => {
    const app = host([
      door('admin', underPaths('/admin'), { browsers: { allowMethods: ['GET'], exposeHeaders: [] } }),
      door('rest', () => true),
    ]);
    const tooBig = await app.request('http://good.example/admin', {
      method: 'POST',
      body: 'x'.repeat(11),
      headers: { Host: 'good.example' },
    });
    expect([tooBig.status, await tooBig.text()]).toEqual([413, 'admin refuses: payload_too_large']);
    const foreign = await app.request('http://evil.example/admin', { headers: { Host: 'evil.example' } });
    expect([foreign.status, await foreign.text()]).toEqual([403, 'admin refuses: invalid_request']);
    expect((await app.request('http://evil.example/other', { headers: { Host: 'evil.example' } })).status).toBe(200);
  });

  it('a door that throws answers 500 in its own format', async () => {
    const app = host([
      door('admin', underPaths('/admin'), { fetch: () => Promise.reject(new Error('boom')) }),
      door('rest', () => true),
    ]);
    const res = await app.request('http://good.example/admin', { headers: { Host: 'good.example' } });
    expect([res.status, await res.text()]).toEqual([500, 'admin refuses: server_error']);
  });
});
