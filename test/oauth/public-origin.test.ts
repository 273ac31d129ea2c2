/**
 * Every URL the server publishes comes from the configured public URL (or the listening address
 * when none is set), never from a request: a forged Host or X-Forwarded-Host changes nothing in the
 * authorization server's metadata, the protected-resource metadata, the business profile, the
 * OpenAPI document, a booking's continue_url, the 401 challenge or the redirects of the sign-in
 * pages. The metadata documents may be cached (Cache-Control), which is only safe because of that.
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, test } from 'vitest';
import { hashPassword } from '../../src/oauth/index.js';
import { BUYER, PLATFORM, day } from '../support/server.js';
import { Browser, actionOf, authorizeUrl, csrfOf, pkce, register, sharedOAuthServer } from './support.js';

const EVIL = 'evil.example';
const DOCUMENTS = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/usp',
  '/platforms/generic-mcp-host.json',
  '/openapi.json',
];
const METADATA = DOCUMENTS.slice(0, 4);

/** One GET over node:http, whose Host header (unlike fetch's) can be forged. */
function rawGet(
  url: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, method: 'GET', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The document at `path`, which must not name the forged host anywhere. */
function expectPublished(text: string, path: string) {
  expect(text, path).not.toContain(EVIL);
  return JSON.parse(text);
}

describe('behind a load balancer (--public-url https://salon.example, --trust-proxy): forged Host and X-Forwarded-Host are ignored', () => {
  const PUBLIC = 'https://salon.example';
  const server = sharedOAuthServer({ publicUrl: PUBLIC, trustProxy: true, sandbox: true });
  const forged = { host: EVIL, 'x-forwarded-host': EVIL, 'x-forwarded-proto': 'https' };

  test('every published document names the public URL; the metadata documents carry Cache-Control', async () => {
    const t = server();
    for (const path of DOCUMENTS) {
      const res = await rawGet(t.url, path, forged);
      expect(res.status, path).toBe(200);
      const doc = expectPublished(res.text, path);
      if (METADATA.includes(path)) expect(res.headers['cache-control'], path).toMatch(/max-age=\d+/);
      if (path.endsWith('oauth-authorization-server')) {
        expect(doc.issuer).toBe(PUBLIC);
        expect(doc.token_endpoint).toBe(`${PUBLIC}/oauth/token`);
        expect(doc.registration_endpoint).toBe(`${PUBLIC}/oauth/register`);
        expect(doc.authorization_endpoint).toBe(`${PUBLIC}/oauth/authorize`);
        expect(doc.jwks_uri).toBe(`${PUBLIC}/oauth/jwks`);
      }
    }
  });

  test("a booking's continue_url and the MCP 401 challenge name the public URL", async () => {
    const t = server();
    const headers = {
      'content-type': 'application/json',
      'usp-agent': `profile="${PLATFORM}"`,
      'x-forwarded-host': EVIL,
      'x-forwarded-proto': 'https',
    };
    const q = await fetch(`${t.url}/availability/query`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ service_id: 'svc_massage_60', start_date: day(3), end_date: day(3) }),
    });
    const slot = ((await q.json()) as any).slots[0].id;
    const b = await fetch(`${t.url}/bookings`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ service_id: 'svc_massage_60', slot_id: slot, buyer: BUYER }),
    });
    expect(b.status).toBe(201);
    expect(((await b.json()) as any).booking.actions[0].continue_url.startsWith(`${PUBLIC}/checkout/`)).toBe(true);

    const mcp = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-forwarded-host': EVIL,
        'x-forwarded-proto': 'https',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'usp_bookings_get', arguments: { booking_id: 'bkg_x' } },
      }),
    });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toContain(
      `resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  test('the sign-in pages redirect to the public URL: the resume redirect after signing in names it', async () => {
    const t = server();
    await t.server.store.transaction(async (tx) =>
      tx.accounts.create({
        id: 'acc_' + 'b'.repeat(32),
        email: 'origin@example.com',
        password_hash: await hashPassword('correct horse battery'),
        name: 'Origin',
        phone: null,
        created_ms: Date.now(),
      }),
    );
    const client = await register(t.url, {}, { 'x-forwarded-proto': 'https' });
    const browser = new Browser(t.url, { 'x-forwarded-host': EVIL, 'x-forwarded-proto': 'https' });
    const start = await browser.request(authorizeUrl(t.url, client.client_id, pkce(), { resource: `${PUBLIC}/mcp` }));
    expect(start.status).toBe(303);
    expect(start.headers.get('location')).not.toContain(EVIL);
    const page = await browser.follow(start.headers.get('location')!);
    expect(page.text).toContain('<h1>Sign in</h1>');
    expect(page.text).not.toContain(EVIL);
    const signedIn = await browser.request(actionOf(page.text), {
      form: { csrf: csrfOf(page.text), email: 'origin@example.com', password: 'correct horse battery' },
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toMatch(new RegExp(`^${PUBLIC}/oauth/authorize/`));
  });
});

describe('without a public URL, the listening address is published whatever Host a request names', () => {
  const server = sharedOAuthServer();

  test('Host: evil.example (and X-Forwarded-Host, not trusted here) change no published URL', async () => {
    const t = server();
    for (const path of DOCUMENTS) {
      const res = await rawGet(t.url, path, { host: EVIL, 'x-forwarded-host': EVIL });
      expect(res.status, path).toBe(200);
      const doc = expectPublished(res.text, path);
      if (path.endsWith('oauth-authorization-server')) expect(doc.token_endpoint).toBe(`${t.url}/oauth/token`);
    }
  });
});
