/**
 * Dynamic Client Registration (RFC 7591) is open to anyone, so it is held to account: limited per
 * address and in total, capped per registrant, forgetting clients that never complete a grant,
 * accepting only redirect URIs a client can own, asking a client that names a platform profile to
 * prove it controls it, and counting and logging every outcome. Driven over real HTTP.
 */
import { afterAll, afterEach, describe, expect, test, vi } from 'vitest';
import { createSigningIdentity } from '../../src/client/platform-auth.js';
import type { Logger } from '../../src/operations/index.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import {
  Browser,
  REDIRECT,
  authorizeUrl,
  linkedTokens,
  pkce,
  register,
  registerSigned,
  startOAuthServer,
  tokenRequest,
  type OAuthTestServer,
} from './support.js';

const servers: OAuthTestServer[] = [];
async function server(opts: Parameters<typeof startOAuthServer>[0] = {}): Promise<OAuthTestServer> {
  const s = await startOAuthServer(opts);
  servers.push(s);
  return s;
}
afterAll(async () => {
  for (const s of servers) await s.close();
});
afterEach(() => {
  vi.useRealTimers();
});

/** POST /oauth/register as a client would, with optional headers (X-Forwarded-For behind a proxy). */
async function tryRegister(url: string, meta: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      client_name: 'Flood',
      ...meta,
    }),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any };
}

const clientRows = (t: OAuthTestServer, id: string) => t.server.store.read((tx) => tx.oauth.find('Client', id, 0));

/** A logger that keeps every line. */
function recording(): Logger & { lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> } {
  const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      void lines.push({ level, msg, fields });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

describe('a registration flood is refused: per address, in total, and per registrant', () => {
  test('a flood from one address gets 429 with Retry-After after the per-address limit, and only the accepted clients are stored', async () => {
    const t = await server({ registration: { perAddressPerMinute: 5 } });
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await tryRegister(t.url));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 429, 429, 429]);
    expect(Number(answers[5].retryAfter)).toBeGreaterThan(0);
    expect(answers[5].body.error).toBe('invalid_request');
    for (const a of answers.slice(0, 5)) expect(await clientRows(t, a.body.client_id)).not.toBeNull();
  });

  test('many addresses together stop at the total limit (behind --trust-proxy, the address is the last X-Forwarded-For hop)', async () => {
    const t = await server({ trustProxy: true, registration: { perAddressPerMinute: 3, totalPerMinute: 5 } });
    const from = (addr: string) => ({ 'x-forwarded-proto': 'https', 'x-forwarded-for': addr });
    const a = [];
    for (let i = 0; i < 4; i++) a.push((await tryRegister(t.url, {}, from('203.0.113.7'))).status);
    expect(a).toEqual([201, 201, 201, 429]);
    const b = [];
    for (let i = 0; i < 3; i++) b.push((await tryRegister(t.url, {}, from(`198.51.100.${i + 1}`))).status);
    expect(b).toEqual([201, 201, 429]);
  });

  test('one address holds at most perRegistrant live clients; an unused one expiring makes room again', async () => {
    const t = await server({ registration: { perRegistrant: 3, unusedClientTtlMs: 3600_000 } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await tryRegister(t.url));
    expect(statuses.map((s) => s.status)).toEqual([201, 201, 201, 429]);
    expect(Number(statuses[3].retryAfter)).toBeGreaterThan(3000);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 3600_000 + 1000 });
    expect((await tryRegister(t.url)).status).toBe(201);
  });
});

describe('a client that never completes a grant is forgotten after 24 h (configurable); one that did is kept', () => {
  test('after 24 h the unused client is unknown and dropped from the database; the linked one still refreshes its tokens', async () => {
    const t = await server();
    const unused = await register(t.url);
    const { client: used, tokens } = await linkedTokens(t, 'kept@example.com');
    expect((await clientRows(t, used.client_id))?.expiresMs).toBeNull();
    expect((await clientRows(t, unused.client_id))?.expiresMs).toBeGreaterThan(Date.now() + 23 * 3600_000);

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 24 * 3600_000 + 1000 });
    const refused = await fetch(authorizeUrl(t.url, unused.client_id, pkce()), { redirect: 'manual' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('not known to this business');
    const refreshed = await tokenRequest(t.url, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: used.client_id,
    });
    expect(refreshed.status).toBe(200);
    // The next registration drops expired records.
    await register(t.url);
    await vi.waitFor(async () => expect(await clientRows(t, unused.client_id)).toBeNull());
    expect(await clientRows(t, used.client_id)).not.toBeNull();
  });

  test('a platform client is kept from its first client_credentials token', async () => {
    const t = await server();
    const client = await register(t.url, {
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect((await clientRows(t, client.client_id))?.expiresMs).not.toBeNull();
    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    const tok = await tokenRequest(
      t.url,
      { grant_type: 'client_credentials', resource: `${t.url}/`, scope: 'usp:booking' },
      { authorization: basic },
    );
    expect(tok.status).toBe(200);
    expect((await clientRows(t, client.client_id))?.expiresMs).toBeNull();
  });
});

describe('redirect URIs: https, loopback http on any port, private-use schemes for native apps; nothing else', () => {
  test('an http redirect to a named host (http://client.example, http://localhost.evil.com) is invalid_redirect_uri; https and loopback http are accepted', async () => {
    const t = await server();
    for (const uri of [
      'http://client.example/cb',
      'http://localhost.evil.com/cb',
      'http://127.0.0.1.evil.com/cb',
      'javascript:alert(1)',
    ]) {
      const r = await tryRegister(t.url, { redirect_uris: [uri] });
      expect({ uri, status: r.status, error: r.body.error }).toEqual({
        uri,
        status: 400,
        error: 'invalid_redirect_uri',
      });
    }
    for (const uri of [
      'https://client.example/cb',
      'http://127.0.0.1:53121/cb',
      'http://[::1]:8080/cb',
      'http://localhost:3000/callback',
    ]) {
      expect({ uri, status: (await tryRegister(t.url, { redirect_uris: [uri] })).status }).toEqual({
        uri,
        status: 201,
      });
    }
  });

  test('a private-use scheme is for native apps only; a native app redirecting to loopback may use any port', async () => {
    const t = await server();
    expect((await tryRegister(t.url, { redirect_uris: ['com.example.app:/oauth'] })).body.error).toBe(
      'invalid_redirect_uri',
    );
    expect(
      (await tryRegister(t.url, { application_type: 'native', redirect_uris: ['com.example.app:/oauth'] })).status,
    ).toBe(201);
    const native = await tryRegister(t.url, { application_type: 'native', redirect_uris: ['http://127.0.0.1/cb'] });
    expect(native.status).toBe(201);
    const url = authorizeUrl(t.url, native.body.client_id, pkce(), { redirect_uri: 'http://127.0.0.1:49152/cb' });
    const res = await new Browser(t.url).request(url);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/oauth\/interaction\//);
  });
});

describe('a registration naming a usp_platform_profile proves control of it: a fresh signature by a key the profile publishes', () => {
  let profiles: ProfileServer;
  afterAll(async () => {
    await profiles?.close();
  });

  test('unsigned, signed by another key, stale, replayed or with its body changed: invalid_client_metadata; signed by a key of the profile: registered', async () => {
    const t = await server();
    profiles = await startProfileServer();
    const owner = createSigningIdentity('owner');
    const profileUrl = profiles.addProfile('/owned.json', { keys: [owner.publicJwk] });
    const meta = {
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
      usp_platform_profile: profileUrl,
    };

    const unsigned = await tryRegister(t.url, meta);
    expect(unsigned).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
    expect(unsigned.body.error_description).toContain('not signed');
    const stranger = await registerSigned(t.url, meta, createSigningIdentity('owner'));
    expect(stranger.status).toBe(400);
    const stale = await registerSigned(t.url, meta, owner, Math.floor(Date.now() / 1000) - 600);
    expect(stale.status).toBe(400);

    // A valid signed request works once; the same bytes again are a replay.
    const body = JSON.stringify(meta);
    const endpoint = `${t.url}/oauth/register`;
    const { signedHeaders } = await import('../../src/client/platform-auth.js');
    const headers = signedHeaders(owner, 'POST', endpoint, { 'Content-Type': 'application/json' }, body);
    const first = await fetch(endpoint, { method: 'POST', headers, body });
    expect(first.status).toBe(201);
    const again = await fetch(endpoint, { method: 'POST', headers, body });
    expect(again.status).toBe(400);
    // The signature covers the body through Content-Digest: another profile in the same envelope fails.
    const swapped = JSON.stringify({
      ...meta,
      usp_platform_profile: profiles.addProfile('/other.json', { keys: [owner.publicJwk] }),
    });
    const changed = await fetch(endpoint, {
      method: 'POST',
      headers: signedHeaders(owner, 'POST', endpoint, { 'Content-Type': 'application/json' }, body),
      body: swapped,
    });
    expect(changed.status).toBe(400);
  });
});

describe('every registration outcome is counted on /metrics and logged without personal data', () => {
  test('registered and refused registrations: usp_oauth_client_registrations_total by outcome, one log line each, no address and no client name', async () => {
    const log = recording();
    const t = await server({ log, trustProxy: true, registration: { perAddressPerMinute: 2 } });
    const from = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' };
    const ok = await tryRegister(t.url, { client_name: 'Ada Lovelace personal assistant' }, from);
    expect(ok.status).toBe(201);
    expect((await tryRegister(t.url, { redirect_uris: ['http://client.example/cb'] }, from)).status).toBe(400);
    expect((await tryRegister(t.url, {}, from)).status).toBe(429);

    const text = await (
      await fetch(`${t.url}/metrics`, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '127.0.0.1' } })
    ).text();
    expect(text).toMatch(/^usp_oauth_client_registrations_total\{outcome="registered"\} 1$/m);
    expect(text).toMatch(/^usp_oauth_client_registrations_total\{outcome="invalid_redirect_uri"\} 1$/m);
    expect(text).toMatch(/^usp_oauth_client_registrations_total\{outcome="rate_limited"\} 1$/m);

    const lines = log.lines.filter((l) => l.msg.startsWith('oauth client regist'));
    expect(lines.map((l) => [l.msg, l.fields.client_id ?? l.fields.reason])).toEqual([
      ['oauth client registered', ok.body.client_id],
      ['oauth client registration refused', 'invalid_redirect_uri'],
      ['oauth client registration refused', 'rate_limited'],
    ]);
    const printed = JSON.stringify(lines);
    expect(printed).not.toContain('203.0.113');
    expect(printed).not.toContain('Ada');
  });
});
