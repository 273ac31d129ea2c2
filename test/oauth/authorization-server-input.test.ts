/**
 * The OAuth 2.0 authorization server (RFC 8414, 7591, 7636, 9207, 8707, 7009, 9449) given bad
 * input over real HTTP: each request gets the protocol error and leaves nothing behind. The rest
 * of the server: authorization-server.test.ts.
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  Browser,
  REDIRECT,
  authorizeUrl,
  actionOf,
  linkAccount,
  linkedTokens,
  mcpCallAt,
  pkce,
  register,
  startOAuthServer,
  tokenRequest,
  type OAuthTestServer,
} from './support.js';

let t: OAuthTestServer;
beforeAll(async () => {
  t = await startOAuthServer();
}, 30_000);
afterAll(async () => {
  await t?.close();
});

const mcpCall = (tool: string, args: Record<string, unknown>, headers: Record<string, string> = {}) =>
  mcpCallAt(t.url, tool, args, headers);

describe('bad input gets the protocol error and leaves nothing behind', () => {
  test('the OAuth door is a door of the host: a body over the host limit is refused in its format (413, an RFC 6749 error object; a page on the account pages)', async () => {
    const big = JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'x'.repeat(70 * 1024) });
    const res = await fetch(`${t.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: big,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('bytes'),
    });
    const page = await fetch(`${t.url}/account/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `email=${'a'.repeat(70 * 1024)}`,
    });
    expect(page.status).toBe(413);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('usp-correlation-id')).toBeTruthy();
  });

  test('an unregistered redirect_uri (open redirect attempt) gets an error page from us, never a redirect to it', async () => {
    const client = await register(t.url);
    const url = authorizeUrl(t.url, client.client_id, pkce()).replace(
      encodeURIComponent(REDIRECT),
      encodeURIComponent('https://evil.example/cb'),
    );
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    const html = await res.text();
    expect(html).toContain('return address it did not register');
    expect(html).not.toContain('evil.example');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  test('a code exchanged with another redirect_uri, without code_verifier or with a wrong one is invalid_grant and issues nothing', async () => {
    const client = await register(t.url, { redirect_uris: [REDIRECT, 'http://127.0.0.1:1/other'] });
    const p = pkce();
    const back = await linkAccount(t, new Browser(t.url), authorizeUrl(t.url, client.client_id, p), {
      email: 'pkce@example.com',
      password: 'correct horse battery',
      signUp: true,
    });
    const code = back.searchParams.get('code')!;
    const base = { grant_type: 'authorization_code', code, client_id: client.client_id };
    const mismatch = await tokenRequest(t.url, {
      ...base,
      redirect_uri: 'http://127.0.0.1:1/other',
      code_verifier: p.verifier,
    });
    expect(mismatch).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const missing = await tokenRequest(t.url, { ...base, redirect_uri: REDIRECT });
    expect(missing.status).toBe(400);
    expect(['invalid_grant', 'invalid_request']).toContain(missing.body.error);
    const wrong = await tokenRequest(t.url, { ...base, redirect_uri: REDIRECT, code_verifier: pkce().verifier });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const tokens = await t.server.store.read(async (tx) => {
      const acc = await tx.accounts.byEmail('pkce@example.com');
      return tx.oauth.byAccount('AccessToken', acc!.id, Date.now());
    });
    expect(tokens).toEqual([]);
  });

  test('a replayed code is invalid_grant, and the tokens of its first use are revoked with it', async () => {
    const client = await register(t.url);
    const p = pkce();
    const back = await linkAccount(t, new Browser(t.url), authorizeUrl(t.url, client.client_id, p), {
      email: 'replay@example.com',
      password: 'correct horse battery',
      signUp: true,
    });
    const form = {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: p.verifier,
    };
    const first = await tokenRequest(t.url, form);
    expect(first.status).toBe(200);
    const again = await tokenRequest(t.url, form);
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const r = await mcpCall('uspserver_bookings_list', {}, { authorization: `Bearer ${first.body.access_token}` });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  test('a code used after its 60 s lifetime is invalid_grant', async () => {
    const client = await register(t.url);
    const p = pkce();
    const back = await linkAccount(t, new Browser(t.url), authorizeUrl(t.url, client.client_id, p), {
      email: 'late@example.com',
      password: 'correct horse battery',
      signUp: true,
    });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
    try {
      const late = await tokenRequest(t.url, {
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        client_id: client.client_id,
        code_verifier: p.verifier,
      });
      expect(late).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    } finally {
      vi.useRealTimers();
    }
  });

  test('a token minted for the REST API is refused on /mcp (audience), and a resource of another server is invalid_target', async () => {
    const { tokens } = await linkedTokens(t, 'aud@example.com', { resource: `${t.url}/` });
    const onMcp = await mcpCall('uspserver_bookings_list', {}, { authorization: `Bearer ${tokens.access_token}` });
    expect(onMcp.status).toBe(401);
    const onRest = await fetch(`${t.url}/ext/usp-server/bookings`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(onRest.status).toBe(200);
    const client = await register(t.url);
    const res = await fetch(authorizeUrl(t.url, client.client_id, pkce(), { resource: 'https://other.example/mcp' }), {
      redirect: 'manual',
    });
    const to = new URL(res.headers.get('location')!);
    expect(to.origin + to.pathname).toBe(REDIRECT);
    expect(to.searchParams.get('error')).toBe('invalid_target');
    expect(to.searchParams.get('iss')).toBe(t.url);
  });

  test('revoking the refresh token (RFC 7009) revokes its access tokens: both are refused afterwards', async () => {
    const { client, tokens } = await linkedTokens(t, 'revoke@example.com');
    const rev = await fetch(`${t.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: tokens.refresh_token,
        token_type_hint: 'refresh_token',
        client_id: client.client_id,
      }).toString(),
    });
    expect(rev.status).toBe(200);
    const r = await mcpCall('uspserver_bookings_list', {}, { authorization: `Bearer ${tokens.access_token}` });
    expect(r.status).toBe(401);
    const refresh = await tokenRequest(t.url, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  test('a refresh token rotates: the new pair works and the old refresh token is spent', async () => {
    const { client, tokens } = await linkedTokens(t, 'rotate@example.com');
    const next = await tokenRequest(t.url, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    expect(next.status).toBe(200);
    expect(next.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(
      (await mcpCall('uspserver_bookings_list', {}, { authorization: `Bearer ${next.body.access_token}` })).status,
    ).toBe(200);
    const old = await tokenRequest(t.url, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    expect(old).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  test('an iss parameter smuggled into the authorization request does not change the iss of the response', async () => {
    const client = await register(t.url);
    const url = authorizeUrl(t.url, client.client_id, pkce(), { iss: 'https://evil.example' });
    const back = await linkAccount(t, new Browser(t.url), url, {
      email: 'forged@example.com',
      password: 'correct horse battery',
      signUp: true,
    });
    expect(back.searchParams.getAll('iss')).toEqual([t.url]);
  });

  test('a form posted without its CSRF token is refused and signs nobody in', async () => {
    const client = await register(t.url);
    const browser = new Browser(t.url);
    const page = await browser.follow(authorizeUrl(t.url, client.client_id, pkce()));
    const res = await browser.request(actionOf(page.text), {
      form: { email: 'linked@example.com', password: 'correct horse battery' },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
  });
});
