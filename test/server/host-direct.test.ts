/**
 * Issue 40 item 3: each REST call went through two Hono apps, the host's (a context, a chain of four
 * middlewares, its routing) and the door's. A door without browser checks now gets the request from
 * the host directly when its body's length is declared (or it has none), with the same answers: the
 * host's headers, its refusals and its 500 in the door's format. The host's routes stay for the doors
 * browsers' scripts call (Host, Origin, CORS) and for bodies the limit has to count.
 */
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../src/operations/index.js';
import { createHost, underPaths, type Door } from '../../src/server/host.js';

/** Whether the door was called from inside a Hono middleware chain (its `compose` dispatch on the stack). */
let viaHono: boolean[] = [];
function door(name: string, claims: Door['claims'], extra: Partial<Door> = {}): Door {
  return {
    name,
    claims,
    fetch: async (req) => {
      viaHono.push(/hono\/dist\/compose\.js/.test(new Error().stack ?? ''));
      if (new URL(req.url).pathname === '/boom') throw new Error('boom');
      return new Response(JSON.stringify({ door: name }), { headers: { 'Content-Type': 'application/json' } });
    },
    refuse: (_req, status, err) => Response.json({ door: name, code: err.code }, { status }),
    ...extra,
  };
}

function host() {
  return createHost({
    doors: [
      door('browser', underPaths('/mcp'), { browsers: { allowMethods: ['GET', 'POST'], exposeHeaders: [] } }),
      door('plain', () => true),
    ],
    maxBodyBytes: 10,
    allowedHosts: [],
    allowedOrigins: [],
  });
}

describe('the host hands a plain door its request without a Hono context of its own', () => {
  it('GET, and a POST of declared length: no Hono chain between the host and the door', async () => {
    viaHono = [];
    const h = host();
    const get = await h.fetch(new Request('http://h.example/services/x', { headers: { 'usp-correlation-id': 'abc' } }));
    expect(await get.json()).toEqual({ door: 'plain' });
    expect(get.headers.get('x-content-type-options')).toBe('nosniff');
    expect(get.headers.get('usp-correlation-id')).toBe('abc');
    expect(get.headers.get('strict-transport-security')).toBeNull();
    const post = await h.request('/things', { method: 'POST', body: 'short', headers: { 'content-length': '5' } });
    expect(await post.json()).toEqual({ door: 'plain' });
    expect(viaHono).toEqual([false, false]);
  });

  it('a door browsers call, and a body of undeclared length, still take the host routes', async () => {
    viaHono = [];
    const h = host();
    expect((await h.request('/mcp')).status).toBe(200);
    const chunked = new Request('http://h.example/things', {
      method: 'POST',
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('abc'));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(await (await h.fetch(chunked)).json()).toEqual({ door: 'plain' });
    expect(viaHono).toEqual([true, true]);
  });

  it('answers as the host routes did: HSTS over https, 413 over the limit, 500 in the door format', async () => {
    viaHono = [];
    const h = host();
    const https = await h.fetch(new Request('https://h.example/x'));
    expect(https.headers.get('strict-transport-security')).toBe('max-age=31536000');
    const big = await h.request('/x', { method: 'POST', body: '01234567890', headers: { 'content-length': '11' } });
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({ door: 'plain', code: 'payload_too_large' });
    expect(big.headers.get('x-content-type-options')).toBe('nosniff');
    const boom = await h.request('/boom');
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ door: 'plain', code: new ProtocolError('server_error', '').code });
    expect(boom.headers.get('usp-correlation-id')).toMatch(/.+/);
  });
});

describe('a door browsers call gets its own answer back, the CORS headers set on it', () => {
  const exposed = ['Mcp-Session-Id', 'USP-Correlation-Id'];
  let made: Response | undefined;
  function browserHost() {
    const d: Door = {
      name: 'browser',
      claims: underPaths('/mcp'),
      fetch: async (req) => {
        if (new URL(req.url).pathname === '/mcp/boom') throw new Error('boom');
        made = new Response('{"jsonrpc":"2.0","id":1,"result":{}}', {
          headers: { 'Content-Type': 'application/json' },
        });
        return made;
      },
      refuse: (_req, status, err) => Response.json({ code: err.code }, { status }),
      browsers: { allowMethods: ['GET', 'POST', 'OPTIONS'], exposeHeaders: exposed },
    };
    return createHost({ doors: [d], allowedHosts: [], allowedOrigins: ['http://h.example'], maxBodyBytes: 1000 });
  }

  it('not copied (Hono copied it, body and all, once for the headers set before it and once for Vary)', async () => {
    const h = browserHost();
    const res = await h.request('/mcp', { method: 'POST', body: '{}', headers: { 'content-length': '2' } });
    expect(res).toBe(made);
    expect(res.headers.get('access-control-expose-headers')).toBe(exposed.join(','));
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('vary')).toBe('Origin');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toBe('{"jsonrpc":"2.0","id":1,"result":{}}');
  });

  it("the same headers as Hono's cors: the allowed origin named, a preflight answered by it, a fault's 500 included", async () => {
    const h = browserHost();
    const origin = 'http://h.example';
    const res = await h.fetch(new Request('http://h.example/mcp', { headers: { origin } }));
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    expect(res.headers.get('vary')).toBe('Origin');
    const pre = await h.fetch(
      new Request('http://h.example/mcp', {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      }),
    );
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
    expect(pre.headers.get('access-control-allow-methods')).toBe('GET,POST,OPTIONS');
    expect(pre.headers.get('access-control-max-age')).toBe('600');
    const boom = await h.request('/mcp/boom');
    expect(boom.status).toBe(500);
    expect(boom.headers.get('access-control-expose-headers')).toBe(exposed.join(','));
    expect(boom.headers.get('vary')).toBe('Origin');
    const foreign = await h.fetch(new Request('http://h.example/mcp', { headers: { origin: 'https://evil.example' } }));
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });
});
