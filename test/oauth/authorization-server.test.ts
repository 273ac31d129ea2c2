/**
 * The OAuth 2.0 authorization server (spec 10.2.3, 10.2.4; RFC 8414, 7591, 7636, 9207, 8707, 7009,
 * 9449, 9728) and the protected resources it serves, driven over real HTTP.
 */
import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { SignJWT, exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { day } from '../support/server.js';
import { Browser, REDIRECT, authorizeUrl, csrfOf, actionOf, linkAccount, linkedTokens, pkce, register, startOAuthServer, tokenRequest, type OAuthTestServer } from './support.js';

let t: OAuthTestServer;
beforeAll(async () => {
  t = await startOAuthServer();
}, 30_000);
afterAll(async () => {
  await t?.close();
});

/** One MCP tool call over Streamable HTTP, stateless (a fresh session per call), with optional headers. */
async function mcpCall(tool: string, args: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers };
  const init = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: h,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  const sid = init.headers.get('mcp-session-id') ?? '';
  await init.text();
  await fetch(`${t.url}/mcp`, { method: 'POST', headers: { ...h, 'mcp-session-id': sid }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  const res = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: { ...h, 'mcp-session-id': sid },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: tool, arguments: args } }),
  });
  const text = await res.text();
  const json = text.startsWith('{') ? JSON.parse(text) : JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? 'null');
  return { status: res.status, headers: res.headers, body: json };
}

async function firstSlot(dayOffset: number, service = 'svc_haircut'): Promise<string> {
  const r = await mcpCall('usp_availability_query', { service_id: service, start_date: day(dayOffset), end_date: day(dayOffset) });
  return r.body.result.structuredContent.slots[0].id;
}

const BUYER = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };

describe('discovery: RFC 8414 authorization server metadata and RFC 9728 protected resource metadata', () => {
  test('the metadata names this issuer exactly, PKCE S256 only, iss in responses, DCR, revocation, DPoP and client_credentials', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const m = await (await fetch(t.url + path)).json();
      expect(m.issuer).toBe(t.url);
      expect(m.code_challenge_methods_supported).toEqual(['S256']);
      expect(m.authorization_response_iss_parameter_supported).toBe(true);
      expect(m.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']));
      expect(m.registration_endpoint).toMatch(/\/oauth\/register$/);
      expect(m.revocation_endpoint).toMatch(/\/oauth\/revoke$/);
      expect(m.dpop_signing_alg_values_supported).toContain('ES256');
      expect(m.scopes_supported).toEqual(expect.arrayContaining(['usp:booking', 'usp:history']));
      expect(m.token_endpoint_auth_methods_supported).toContain('client_secret_basic');
    }
  });

  test('/mcp and the REST API each publish their resource, pointing at this authorization server', async () => {
    const mcp = await (await fetch(`${t.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(mcp).toMatchObject({ resource: `${t.url}/mcp`, authorization_servers: [t.url], scopes_supported: ['usp:booking', 'usp:history'] });
    const rest = await (await fetch(`${t.url}/.well-known/oauth-protected-resource`)).json();
    expect(rest.resource).toBe(`${t.url}/`);
  });

  test('the business profile lists oauth2_bearer among accepted_mechanisms and names the token endpoint', async () => {
    const p = await (await fetch(`${t.url}/.well-known/usp`)).json();
    expect(p.authorization.accepted_mechanisms).toContain('oauth2_bearer');
    expect(p.authorization.token_endpoint).toBe(`${t.url}/oauth/token`);
  });
});

describe('/mcp is a protected resource: a privileged call without a credential gets 401 naming resource_metadata; public calls need none', () => {
  test('a privileged tool call with no credential answers HTTP 401 with WWW-Authenticate: Bearer resource_metadata', async () => {
    const r = await mcpCall('usp_bookings_get', { booking_id: 'bkg_x' });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp", scope="usp:booking usp:history"`);
  });

  test('catalog and availability answer without any token', async () => {
    const list = await mcpCall('usp_services_list', {});
    expect(list.status).toBe(200);
    expect(list.body.result.structuredContent.services.length).toBeGreaterThan(0);
    const slots = await mcpCall('usp_availability_query', { service_id: 'svc_haircut', start_date: day(2), end_date: day(2) });
    expect(slots.body.result.structuredContent.slots.length).toBeGreaterThan(0);
  });

  test('REST answers 401 with a Bearer challenge naming its resource metadata', async () => {
    const res = await fetch(`${t.url}/bookings/bkg_x`, { headers: { 'USP-Agent': 'profile="https://platform.example/profile.json"' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(`Bearer realm="usp", resource_metadata="${t.url}/.well-known/oauth-protected-resource"`);
  });
});

describe('identity linking: authorization code with PKCE S256, iss, a buyer-linked token that books without _meta', () => {
  test('sign-up, consent and token exchange give a token that books, lists and cancels as the buyer; the booking is the buyer’s', async () => {
    const { tokens } = await linkedTokens(t, 'linked@example.com');
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.scope.split(' ').sort()).toEqual(['usp:booking', 'usp:history']);
    expect(tokens.refresh_token).toBeTruthy();
    const auth = { authorization: `Bearer ${tokens.access_token}` };
    const made = await mcpCall('usp_bookings_create', { service_id: 'svc_haircut', slot_id: await firstSlot(3), buyer: BUYER }, auth);
    expect(made.status).toBe(200);
    const booking = made.body.result.structuredContent.booking;
    expect(booking.status).toBe('confirmed');
    const listed = await mcpCall('usp_bookings_list', {}, auth);
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
    const back = await linkAccount(t, new Browser(t.url), url, { email: 'iss@example.com', password: 'correct horse battery', signUp: true });
    expect(back.searchParams.get('iss')).toBe(t.url);
    expect(back.searchParams.get('state')).toBe('xyz-123');
    expect(back.searchParams.get('code')).toBeTruthy();
  });
});
