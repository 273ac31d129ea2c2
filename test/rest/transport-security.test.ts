/**
 * Transport rules (spec 10.2.1, 9.2): HTTPS is served directly when given a certificate; plain HTTP
 * only on loopback or behind a TLS proxy that says so; the MCP endpoints refuse foreign Host and
 * Origin headers (DNS rebinding).
 */
import { request } from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { demoBusiness, startTestServer, type TestServer } from '../support/server.js';
import { selfSigned } from '../support/tls.js';

function httpsGet(url: string, ca: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTPS and plaintext', () => {
  let server: UspServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('serves HTTPS directly with a certificate and key, and the profile names https endpoints', async () => {
    const tls = selfSigned();
    server = await createUspServer({
      business: demoBusiness({ public_url: 'https://127.0.0.1:8443' }),
      db: ':memory:',
      sandbox: true,
      log: silentLogger,
      sweepIntervalMs: 0,
      tls,
    });
    const url = await server.listen(0, '127.0.0.1');
    expect(url.startsWith('https://')).toBe(true);
    const res = await httpsGet(`${url}/.well-known/usp`, tls.cert);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).usp.services['dev.usp-protocol.services'][0].endpoint).toMatch(/^https:/);
  });

  it('refuses to serve plain HTTP on a non-loopback address without TLS or a trusted proxy', async () => {
    server = await createUspServer({
      business: demoBusiness(),
      db: ':memory:',
      sandbox: true,
      log: silentLogger,
      sweepIntervalMs: 0,
    });
    await expect(server.listen(0, '0.0.0.0')).rejects.toThrow(/plain HTTP/);
  });

  it('behind --trust-proxy, a request the proxy did not mark https is refused', async () => {
    server = await createUspServer({
      business: demoBusiness(),
      db: ':memory:',
      sandbox: true,
      log: silentLogger,
      sweepIntervalMs: 0,
      trustProxy: true,
    });
    const url = await server.listen(0, '127.0.0.1');
    const plain = await fetch(`${url}/services/list`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as any).code).toBe('https_required');
    const proxied = await fetch(`${url}/services/list`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-Proto': 'https' },
      body: '{}',
    });
    expect(proxied.status).toBe(200);
  });
});

describe('the MCP endpoints refuse foreign Host and Origin headers (DNS rebinding)', () => {
  let t: TestServer;
  afterEach(() => t?.close());
  const init = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  });
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

  it('a page on another origin cannot open a session', async () => {
    t = await startTestServer();
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, Origin: 'http://evil.example' },
      body: init,
    });
    expect(res.status).toBe(403);
  });

  it('a rebinding host name is refused', async () => {
    t = await startTestServer();
    const port = new URL(t.url).port;
    const { request: httpRequest } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: { ...headers, Host: `evil.example:${port}` },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(init);
    });
    expect(status).toBe(403);
  });

  it('the same request from the server own origin is served', async () => {
    t = await startTestServer();
    const res = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { ...headers, Origin: t.url }, body: init });
    expect(res.status).toBe(200);
  });
});

describe('CORS on the MCP endpoints: browser clients from an allowed origin (--allow-origin), no one else', () => {
  const ALLOWED = 'http://localhost:6274';
  let server: UspServer | undefined;
  let url = '';
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const start = async () => {
    server = await createUspServer({
      business: demoBusiness(),
      db: ':memory:',
      sandbox: true,
      log: silentLogger,
      sweepIntervalMs: 0,
      allowedOrigins: [ALLOWED],
    });
    url = await server.listen(0, '127.0.0.1');
  };
  const init = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'inspector', version: '1' } },
  });
  const preflight = (path: string, origin: string, method = 'POST') =>
    fetch(`${url}${path}`, {
      method: 'OPTIONS',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': method,
        'Access-Control-Request-Headers': 'content-type, mcp-session-id, mcp-protocol-version, authorization',
      },
    });

  it.each(['/mcp', '/sse', '/messages'])(
    'a preflight to %s from an allowed origin is answered 204 with that origin, the methods and the requested headers',
    async (path) => {
      await start();
      const res = await preflight(path, ALLOWED, path === '/sse' ? 'GET' : 'POST');
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(res.headers.get('access-control-allow-methods')).toMatch(/POST/);
      expect(res.headers.get('access-control-allow-methods')).toMatch(/DELETE/);
      expect((res.headers.get('access-control-allow-headers') ?? '').toLowerCase()).toContain('mcp-session-id');
      expect(res.headers.get('vary')).toMatch(/Origin/);
    },
  );

  it.each(['/mcp', '/sse', '/messages'])(
    'a preflight to %s from another origin is refused 403 with no CORS grant',
    async (path) => {
      await start();
      const res = await preflight(path, 'http://evil.example');
      expect(res.status).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    },
  );

  it('the actual initialize from the allowed origin is served and exposes Mcp-Session-Id to the page', async () => {
    await start();
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Origin: ALLOWED },
      body: init,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase();
    for (const h of ['mcp-session-id', 'mcp-protocol-version', 'usp-correlation-id']) expect(exposed).toContain(h);
    expect(res.headers.get('mcp-session-id')).toBeTruthy();
  });

  it('the actual initialize from another origin is refused 403 with no CORS grant', async () => {
    await start();
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Origin: 'http://evil.example',
      },
      body: init,
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
