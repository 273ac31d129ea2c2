/**
 * The OAuth 2.0 authorization server (spec 10.2.3, 10.2.4; RFC 8414, 7591, 7636, 9207, 8707, 7009,
 * 9449, 9728) and the protected resources it serves, driven over real HTTP.
 */
import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { SignJWT, exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { day } from '../support/server.js';
import { hashPassword } from '../../src/oauth/index.js';
import { startProfileServer } from '../support/profile-server.js';
import { createSigningIdentity } from '../../src/client/platform-auth.js';
import {
  Browser,
  authorizeUrl,
  csrfOf,
  actionOf,
  firstSlotAt,
  linkAccount,
  linkedTokens,
  mcpCallAt,
  pkce,
  register,
  registerSigned,
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
const firstSlot = (dayOffset: number, service = 'svc_haircut') => firstSlotAt(t.url, dayOffset, service);

const BUYER = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };

describe('discovery: RFC 8414 authorization server metadata and RFC 9728 protected resource metadata', () => {
  test('the metadata names this issuer exactly, PKCE S256 only, iss in responses, DCR, revocation, DPoP and client_credentials', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const m = (await (await fetch(t.url + path)).json()) as any;
      expect(m.issuer).toBe(t.url);
      expect(m.code_challenge_methods_supported).toEqual(['S256']);
      expect(m.authorization_response_iss_parameter_supported).toBe(true);
      expect(m.grant_types_supported).toEqual(
        expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']),
      );
      expect(m.registration_endpoint).toMatch(/\/oauth\/register$/);
      expect(m.revocation_endpoint).toMatch(/\/oauth\/revoke$/);
      expect(m.dpop_signing_alg_values_supported).toContain('ES256');
      expect(m.scopes_supported).toEqual(expect.arrayContaining(['usp:booking', 'usp:history']));
      expect(m.token_endpoint_auth_methods_supported).toContain('client_secret_basic');
    }
  });

  test('/mcp and the REST API each publish their resource, pointing at this authorization server', async () => {
    const mcp = (await (await fetch(`${t.url}/.well-known/oauth-protected-resource/mcp`)).json()) as any;
    expect(mcp).toMatchObject({
      resource: `${t.url}/mcp`,
      authorization_servers: [t.url],
      scopes_supported: ['usp:booking', 'usp:history'],
    });
    const rest = (await (await fetch(`${t.url}/.well-known/oauth-protected-resource`)).json()) as any;
    expect(rest.resource).toBe(`${t.url}/`);
  });

  test('the business profile lists oauth2_bearer among accepted_mechanisms and names the token endpoint', async () => {
    const p = (await (await fetch(`${t.url}/.well-known/usp`)).json()) as any;
    expect(p.authorization.accepted_mechanisms).toContain('oauth2_bearer');
    expect(p.authorization.token_endpoint).toBe(`${t.url}/oauth/token`);
  });
});

describe('/mcp is a protected resource: a privileged call without a credential gets 401 naming resource_metadata; public calls need none', () => {
  test('a privileged tool call with no credential answers HTTP 401 with WWW-Authenticate: Bearer resource_metadata', async () => {
    const r = await mcpCall('usp_bookings_get', { booking_id: 'bkg_x' });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp", scope="usp:booking usp:history"`,
    );
  });

  test('a platform key issued at run time (admin API) is a credential, not an unknown OAuth token: MCP hands the call to the pipeline, no challenge', async () => {
    const secret = `usp_pk_${randomUUID().replace(/-/g, '')}`;
    await t.server.store.transaction((tx) =>
      tx.admin.addPlatformKey({
        id: 'pk_runtime',
        sha256: createHash('sha256').update(secret).digest('hex'),
        label: 'Salon app',
        created_ms: Date.now(),
        revoked_ms: null,
      }),
    );
    const r = await mcpCall('usp_bookings_get', { booking_id: 'bkg_x' }, { authorization: `Bearer ${secret}` });
    expect(r.status).toBe(200);
    expect(r.headers.get('www-authenticate')).toBeNull();
    // Past the door: the pipeline accepted the key and asks for what a key does not carry, the platform's profile.
    expect(r.body.error.data).toMatchObject({
      code: 'invalid_request',
      errors: [{ field: 'profile', message: 'is required' }],
    });
    const unknown = await mcpCall(
      'usp_bookings_get',
      { booking_id: 'bkg_x' },
      { authorization: 'Bearer usp_pk_not_issued' },
    );
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  test('catalog and availability answer without any token', async () => {
    const list = await mcpCall('usp_services_list', {});
    expect(list.status).toBe(200);
    expect(list.body.result.structuredContent.services.length).toBeGreaterThan(0);
    const slots = await mcpCall('usp_availability_query', {
      service_id: 'svc_haircut',
      start_date: day(2),
      end_date: day(2),
    });
    expect(slots.body.result.structuredContent.slots.length).toBeGreaterThan(0);
  });

  test('REST answers 401 with a Bearer challenge naming its resource metadata', async () => {
    const res = await fetch(`${t.url}/bookings/bkg_x`, {
      headers: { 'USP-Agent': 'profile="https://platform.example/profile.json"' },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(
      `Bearer realm="usp", resource_metadata="${t.url}/.well-known/oauth-protected-resource"`,
    );
  });
});

describe("the buyer's bookings list is ours, under our prefix and path; its first names answer for one release, deprecated", () => {
  test('uspserver_bookings_list and GET /ext/usp-server/bookings list the buyer-linked booking, with no deprecation', async () => {
    const { tokens } = await linkedTokens(t, 'names@example.com');
    const auth = { authorization: `Bearer ${tokens.access_token}` };
    const made = await mcpCall(
      'usp_bookings_create',
      { service_id: 'svc_haircut', slot_id: await firstSlot(4), buyer: BUYER },
      auth,
    );
    const id = made.body.result.structuredContent.booking.id;
    const onMcp = await mcpCall('uspserver_bookings_list', {}, auth);
    expect(onMcp.body.result.structuredContent.bookings.map((b: any) => b.id)).toEqual([id]);
    expect(onMcp.body.result.structuredContent.messages).toEqual([]);
    const { tokens: restTokens } = await linkedTokens(t, 'names@example.com', { resource: `${t.url}/`, signUp: false });
    const onRest = await fetch(`${t.url}/ext/usp-server/bookings`, {
      headers: { authorization: `Bearer ${restTokens.access_token}` },
    });
    expect(onRest.status).toBe(200);
    expect(onRest.headers.get('deprecation')).toBeNull();
    const body = (await onRest.json()) as any;
    expect(body.bookings.map((b: any) => b.id)).toEqual([id]);
    expect(body.messages).toBeUndefined();
  });

  test('usp_bookings_list and GET /bookings still list them, each with a deprecated_name warning naming the new name (REST: Deprecation and Link headers)', async () => {
    const { tokens } = await linkedTokens(t, 'oldnames@example.com');
    const auth = { authorization: `Bearer ${tokens.access_token}` };
    const made = await mcpCall(
      'usp_bookings_create',
      { service_id: 'svc_haircut', slot_id: await firstSlot(5), buyer: BUYER },
      auth,
    );
    const id = made.body.result.structuredContent.booking.id;
    const onMcp = await mcpCall('usp_bookings_list', {}, auth);
    const result = onMcp.body.result;
    expect(result.structuredContent.bookings.map((b: any) => b.id)).toEqual([id]);
    expect(result.structuredContent.messages).toMatchObject([{ type: 'warning', code: 'deprecated_name' }]);
    expect(result.structuredContent.messages[0].content).toContain('uspserver_bookings_list');
    expect(result.content[0].text).toContain('deprecated');
    // Unauthenticated, the old name is challenged like the new one (the OAuth door's gate knows it).
    expect((await mcpCall('usp_bookings_list', {})).status).toBe(401);

    const { tokens: restTokens } = await linkedTokens(t, 'oldnames@example.com', {
      resource: `${t.url}/`,
      signUp: false,
    });
    const onRest = await fetch(`${t.url}/bookings`, {
      headers: { authorization: `Bearer ${restTokens.access_token}` },
    });
    expect(onRest.status).toBe(200);
    expect(onRest.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(onRest.headers.get('link')).toBe('</ext/usp-server/bookings>; rel="successor-version"');
    const body = (await onRest.json()) as any;
    expect(body.bookings.map((b: any) => b.id)).toEqual([id]);
    expect(body.messages).toMatchObject([{ type: 'warning', code: 'deprecated_name' }]);
    expect(body.messages[0].content).toContain('GET /ext/usp-server/bookings');
  });
});

describe('identity linking: authorization code with PKCE S256, iss, a buyer-linked token that books without _meta', () => {
  test('sign-up, consent and token exchange give a token that books, lists and cancels as the buyer; the booking is the buyer’s', async () => {
    const { tokens } = await linkedTokens(t, 'linked@example.com');
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.scope.split(' ').sort()).toEqual(['usp:booking', 'usp:history']);
    expect(tokens.refresh_token).toBeTruthy();
    const auth = { authorization: `Bearer ${tokens.access_token}` };
    const made = await mcpCall(
      'usp_bookings_create',
      { service_id: 'svc_haircut', slot_id: await firstSlot(3), buyer: BUYER },
      auth,
    );
    expect(made.status).toBe(200);
    const booking = made.body.result.structuredContent.booking;
    expect(booking.status).toBe('confirmed');
    const listed = await mcpCall('uspserver_bookings_list', {}, auth);
    expect(listed.body.result.structuredContent.bookings.map((b: any) => b.id)).toEqual([booking.id]);
    const canceled = await mcpCall('usp_bookings_cancel', { booking_id: booking.id }, auth);
    expect(canceled.body.result.structuredContent.booking.status).toBe('canceled');
    const stored = await t.server.store.read((tx) => tx.bookings.get(booking.id));
    expect(stored?.priv.account_id).toMatch(/^acc_/);
    expect(stored?.priv.principal).toMatch(/^oauth:/);
  });

  test('the authorization response carries iss equal to the metadata issuer, and the state sent', async () => {
    const client = await register(t.url);
    const p = pkce();
    const url = authorizeUrl(t.url, client.client_id, p, { state: 'xyz-123' });
    const back = await linkAccount(t, new Browser(t.url), url, {
      email: 'iss@example.com',
      password: 'correct horse battery',
      signUp: true,
    });
    expect(back.searchParams.get('iss')).toBe(t.url);
    expect(back.searchParams.get('state')).toBe('xyz-123');
    expect(back.searchParams.get('code')).toBeTruthy();
  });
});

describe('buyer accounts never reveal whether an email has one, and sign-in is rate-limited', () => {
  test('a sign-up for a taken email shows the same page as a new one and sends no code', async () => {
    await linkedTokens(t, 'taken@example.com');
    t.codes.delete('taken@example.com');
    const pages: string[] = [];
    for (const email of ['taken@example.com', 'fresh@example.com']) {
      const client = await register(t.url);
      const browser = new Browser(t.url);
      const login = await browser.follow(authorizeUrl(t.url, client.client_id, pkce()));
      const reg = await browser.follow(/href="([^"]+\/register)"/.exec(login.text)![1]);
      const res = await browser.follow(actionOf(reg.text), {
        form: { csrf: csrfOf(reg.text), name: 'Someone', email, password: 'another long password' },
      });
      pages.push(
        res.text
          .replace(/value="[^"]+"/g, '')
          .replace(email, 'EMAIL')
          .replace(/\/oauth\/interaction\/[^/"]+/g, 'UID'),
      );
    }
    expect(pages[0]).toBe(pages[1]);
    expect(t.codes.has('taken@example.com')).toBe(false);
    expect(t.codes.has('fresh@example.com')).toBe(true);
  });

  test('an unknown email and a wrong password get the same answer', async () => {
    const answers: string[] = [];
    for (const email of ['linked@example.com', 'nobody@example.com']) {
      const client = await register(t.url);
      const browser = new Browser(t.url);
      const login = await browser.follow(authorizeUrl(t.url, client.client_id, pkce()));
      const res = await browser.follow(actionOf(login.text), {
        form: { csrf: csrfOf(login.text), email, password: 'wrong password here' },
      });
      answers.push(`${res.res.status} ${/<p class="error"[^>]*>([^<]+)</.exec(res.text)?.[1]}`);
    }
    expect(answers[0]).toBe(answers[1]);
    expect(answers[0]).toBe('401 That email and password do not match an account.');
  });

  test('brute force: past three failures at an account from one address even the right password waits (429 and Retry-After), for known and unknown emails alike', async () => {
    const limited = await startOAuthServer({ loginLimits: 'default' });
    try {
      // An account made directly (a sign-up would spend one attempt of the budget).
      await limited.server.store.transaction(async (tx) =>
        tx.accounts.create({
          id: 'acc_' + 'b'.repeat(32),
          email: 'brute@example.com',
          password_hash: await hashPassword('correct horse battery'),
          name: 'B',
          phone: null,
          created_ms: Date.now(),
        }),
      );
      const attempt = async (email: string, password: string) => {
        const client = await register(limited.url);
        const browser = new Browser(limited.url);
        const login = await browser.follow(authorizeUrl(limited.url, client.client_id, pkce()));
        return browser.request(actionOf(login.text), { form: { csrf: csrfOf(login.text), email, password } });
      };
      for (const email of ['brute@example.com', 'ghost@example.com']) {
        for (let i = 0; i < 4; i++) expect((await attempt(email, 'not the password')).status).toBe(401);
        const blocked = await attempt(email, 'correct horse battery');
        expect(blocked.status).toBe(429);
        expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    } finally {
      await limited.close();
    }
  });
});

describe('DPoP-bound tokens (RFC 9449) and client_credentials for platforms (spec 10.2.3)', () => {
  async function dpopProof(
    key: { privateKey: import('node:crypto').KeyObject; jwk: Record<string, unknown> },
    htm: string,
    htu: string,
    accessToken?: string,
  ) {
    const claims: Record<string, unknown> = { htm, htu, jti: randomUUID() };
    if (accessToken) claims.ath = createHash('sha256').update(accessToken).digest('base64url');
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
      .setIssuedAt()
      .sign(key.privateKey);
  }
  const newKey = async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return { privateKey, jwk: (await exportJWK(publicKey)) as Record<string, unknown> };
  };

  test('a platform with client_credentials and a registered profile books over REST as itself; the token is DPoP-bound and needs a fresh proof', async () => {
    const profiles = await startProfileServer();
    const signer = createSigningIdentity('platform-key');
    const profileUrl = profiles.addProfile('/platform.json', { keys: [signer.publicJwk] });
    const registered = await registerSigned(
      t.url,
      {
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
        client_name: 'Platform',
        usp_platform_profile: profileUrl,
      },
      signer,
    );
    expect(registered.status).toBe(201);
    const client = (await registered.json()) as { client_id: string; client_secret: string };
    const key = await newKey();
    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    const tok = await tokenRequest(
      t.url,
      { grant_type: 'client_credentials', resource: `${t.url}/`, scope: 'usp:booking' },
      { authorization: basic, dpop: await dpopProof(key, 'POST', `${t.url}/oauth/token`) },
    );
    expect(tok.status).toBe(200);
    expect(tok.body.token_type).toBe('DPoP');
    const at = tok.body.access_token as string;
    const q = await fetch(`${t.url}/availability/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ service_id: 'svc_haircut', start_date: day(4), end_date: day(4) }),
    });
    const slot = ((await q.json()) as any).slots[0].id;
    const body = JSON.stringify({ service_id: 'svc_haircut', slot_id: slot, buyer: BUYER });
    const post = async (auth: string, proof?: string) =>
      fetch(`${t.url}/bookings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: auth, ...(proof ? { dpop: proof } : {}) },
        body,
      });
    expect((await post(`Bearer ${at}`)).status).toBe(401);
    expect((await post(`DPoP ${at}`)).status).toBe(401);
    const other = await newKey();
    expect((await post(`DPoP ${at}`, await dpopProof(other, 'POST', `${t.url}/bookings`, at))).status).toBe(401);
    const proof = await dpopProof(key, 'POST', `${t.url}/bookings`, at);
    const ok = await post(`DPoP ${at}`, proof);
    expect(ok.status, await ok.clone().text()).toBe(201);
    const booking = ((await ok.json()) as any).booking;
    const stored = await t.server.store.read((tx) => tx.bookings.get(booking.id));
    expect(stored?.priv).toMatchObject({ principal: `oauth:${client.client_id}`, profile: profileUrl });
    expect(stored?.priv.account_id).toBeUndefined();
    // The same proof again is a replay.
    expect((await post(`DPoP ${at}`, proof)).status).toBe(401);
    await profiles.close();
  });

  test('a registered platform profile must be an https URL', async () => {
    const res = await fetch(`${t.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        usp_platform_profile: 'http://10.0.0.1/profile.json',
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toBe('invalid_client_metadata');
  });
});
