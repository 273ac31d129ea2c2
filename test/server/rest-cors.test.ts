/**
 * CORS on the REST door for the browser platforms the business allows (--cors-origin): a preflight
 * from an allowed origin names the methods, the USP request headers (profile, idempotency,
 * If-Match, DPoP, HTTP message signatures) and a max-age; its actual requests get the origin and
 * the headers a platform reads; an origin not allowed gets no CORS header at all; `*` never comes
 * with credentials; with no list, the REST door gives no CORS.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/operations/index.js';
import { httpOptions } from '../../src/server/cli/serve.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import { demoBusiness } from '../support/server.js';

const PLATFORM = 'https://platform.example';
const OTHER = 'https://elsewhere.example';

async function start(corsOrigins?: string[]): Promise<{ server: UspServer; url: string }> {
  const server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: true,
    log: silentLogger,
    sweepIntervalMs: 0,
    corsOrigins,
  });
  return { server, url: await server.listen(0, '127.0.0.1') };
}

const preflight = (url: string, origin: string) =>
  fetch(`${url}/bookings`, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type, dpop, usp-agent, idempotency-key, signature, signature-input',
    },
  });
const actual = (url: string, origin: string) =>
  fetch(`${url}/services/list`, {
    method: 'POST',
    headers: { Origin: origin, 'Content-Type': 'application/json' },
    body: '{}',
  });

let listed: { server: UspServer; url: string };
beforeAll(async () => {
  listed = await start([PLATFORM]);
});
afterAll(async () => {
  await listed?.server.close();
});

describe('CORS on the REST door', () => {
  test('an allowed origin: the preflight names methods, the USP and signature headers, a max-age, credentials', async () => {
    const r = await preflight(listed.url, PLATFORM);
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe(PLATFORM);
    expect(r.headers.get('access-control-allow-credentials')).toBe('true');
    expect(r.headers.get('access-control-allow-methods')?.split(', ')).toEqual(
      expect.arrayContaining(['GET', 'POST', 'PATCH', 'DELETE']),
    );
    const allowed = (r.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(', ');
    for (const h of [
      'content-type',
      'authorization',
      'dpop',
      'usp-agent',
      'idempotency-key',
      'if-match',
      'signature',
      'signature-input',
      'content-digest',
    ])
      expect(allowed, h).toContain(h);
    expect(r.headers.get('access-control-max-age')).toBe('600');
    expect(r.headers.get('vary')).toContain('Origin');
  });

  test('an allowed origin: the actual request gets its origin and the headers a platform reads exposed', async () => {
    const r = await actual(listed.url, PLATFORM);
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe(PLATFORM);
    const exposed = r.headers.get('access-control-expose-headers') ?? '';
    for (const h of ['ETag', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'USP-Correlation-Id', 'WWW-Authenticate'])
      expect(exposed).toContain(h);
  });

  test('an origin not allowed gets no CORS header, on the preflight and on the request', async () => {
    for (const r of [await preflight(listed.url, OTHER), await actual(listed.url, OTHER)]) {
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
      expect(r.headers.get('access-control-allow-credentials')).toBeNull();
      expect(r.headers.get('access-control-allow-methods')).toBeNull();
    }
    // The request itself is answered as always: CORS is the browser's rule, not an access check.
    expect((await actual(listed.url, OTHER)).status).toBe(200);
  });

  test('* allows any origin, never with credentials; no list: no CORS on REST at all', async () => {
    const any = await start(['*']);
    const none = await start();
    try {
      const r = await preflight(any.url, OTHER);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('access-control-allow-credentials')).toBeNull();
      expect((await actual(any.url, OTHER)).headers.get('access-control-allow-origin')).toBe('*');
      expect((await preflight(none.url, PLATFORM)).headers.get('access-control-allow-origin')).toBeNull();
      expect((await actual(none.url, PLATFORM)).headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await any.server.close();
      await none.server.close();
    }
  });

  test('--cors-origin takes origins (or *), and refuses a URL with a path', () => {
    const flags = (o: Record<string, unknown>) => o as Parameters<typeof httpOptions>[0];
    expect(httpOptions(flags({ 'cors-origin': [PLATFORM, '*'] })).corsOrigins).toEqual([PLATFORM, '*']);
    expect(() => httpOptions(flags({ 'cors-origin': ['https://platform.example/app'] }))).toThrow(/--cors-origin/);
  });
});
