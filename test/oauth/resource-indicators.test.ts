/**
 * Resource indicators (RFC 8707): the REST API's resource is the origin, and `https://host` and
 * `https://host/` are one resource (RFC 3986 section 6.2.3). The MCP authorization spec recommends
 * the form without the slash, so a token request naming it gets a token for the REST API, not
 * invalid_target; the token's audience is the canonical form either way.
 */
import { describe, expect, test } from 'vitest';
import {
  Browser,
  REDIRECT,
  authorizeUrl,
  linkAccount,
  pkce,
  register,
  sharedOAuthServer,
  tokenRequest,
} from './support.js';

const server = sharedOAuthServer();

describe('resource=<origin> and resource=<origin>/ name the same resource', () => {
  test('client_credentials: a token request with resource=<origin> (no trailing slash) is granted, like <origin>/, and the token works on the REST API', async () => {
    const t = server();
    const client = await register(t.url, {
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    for (const resource of [t.url, `${t.url}/`]) {
      const tok = await tokenRequest(
        t.url,
        { grant_type: 'client_credentials', resource, scope: 'usp:booking' },
        { authorization: basic },
      );
      expect({ resource, status: tok.status }).toEqual({ resource, status: 200 });
      // Past authentication (the audience is the REST API's): the booking is simply not this platform's.
      const res = await fetch(`${t.url}/bookings/bkg_missing`, {
        headers: { authorization: `Bearer ${tok.body.access_token}` },
      });
      expect(res.status).toBe(404);
      expect(((await res.json()) as any).code).toBe('booking_not_found');
    }
    const other = await tokenRequest(
      t.url,
      { grant_type: 'client_credentials', resource: 'https://other.example', scope: 'usp:booking' },
      { authorization: basic },
    );
    expect(other).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
  });

  test('authorization code: authorized and exchanged with resource=<origin>, the buyer-linked token works on the REST API', async () => {
    const t = server();
    const client = await register(t.url);
    const p = pkce();
    const back = await linkAccount(
      t,
      new Browser(t.url),
      authorizeUrl(t.url, client.client_id, p, { resource: t.url }),
      {
        email: 'origin-form@example.com',
        password: 'correct horse battery',
        signUp: true,
      },
    );
    const tok = await tokenRequest(t.url, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: p.verifier,
      resource: t.url,
    });
    expect(tok.status, JSON.stringify(tok.body)).toBe(200);
    expect(
      (
        await fetch(`${t.url}/ext/usp-server/bookings`, {
          headers: { authorization: `Bearer ${tok.body.access_token}` },
        })
      ).status,
    ).toBe(200);
  });
});
