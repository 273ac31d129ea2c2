/**
 * Keys, clients, codes, grants and tokens live in the store, so several server processes on one
 * database are one authorization server: a code issued by one is redeemed at another, a token made
 * by one is honoured by the other, and a revocation at one is seen at once by both. Run on a shared
 * SQLite file and, when USP_TEST_PG_URL is set, on one PostgreSQL schema.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PG_SKIP_REASON, PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from '../pg/helpers.js';
import { Browser, REDIRECT, authorizeUrl, linkAccount, pkce, register, startOAuthServer, tokenRequest } from './support.js';

const PUBLIC = 'http://usp.test';

async function twoServersShareOneAuthorizationServer(db: string) {
  const a = await startOAuthServer({ db, publicUrl: PUBLIC });
  const b = await startOAuthServer({ db, publicUrl: PUBLIC });
  try {
    const meta = (await (await fetch(`${b.url}/.well-known/oauth-authorization-server`)).json()) as any;
    expect(meta.issuer).toBe(PUBLIC);
    const client = await register(a.url);
    const p = pkce();
    // The authorization server redirects to its public URL, which a load balancer would route to A.
    const back = await linkAccount(a, new Browser(a.url, {}, PUBLIC), authorizeUrl(a.url, client.client_id, p, { resource: `${PUBLIC}/mcp` }), {
      email: 'shared@example.com',
      password: 'correct horse battery',
      signUp: true,
    });
    expect(back.searchParams.get('iss')).toBe(PUBLIC);
    // The code from A is redeemed at B.
    const tok = await tokenRequest(b.url, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, client_id: client.client_id, code_verifier: p.verifier, resource: `${PUBLIC}/mcp` });
    expect(tok.status).toBe(200);
    const list = (url: string) =>
      fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tok.body.access_token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'uspserver_bookings_list', arguments: {} } }),
      });
    // Stateless tools/call without initialize is refused by the transport (400) but passes the token gate; a 401 would mean the token is unknown.
    expect((await list(a.url)).status).not.toBe(401);
    // Revoked at A, refused at B.
    const rev = await fetch(`${a.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tok.body.refresh_token, client_id: client.client_id }).toString(),
    });
    expect(rev.status).toBe(200);
    expect((await list(b.url)).status).toBe(401);
  } finally {
    await a.close();
    await b.close();
  }
}

describe('two server processes on one database are one authorization server', () => {
  test('SQLite file: a code from one is redeemed at the other, and a revocation at one is refused at the other', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usp-oauth-'));
    try {
      await twoServersShareOneAuthorizationServer(join(dir, 'shared.db'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  test.skipIf(!PG_URL)(`PostgreSQL: the same across two servers on one schema${PG_URL ? '' : ` (${noteSkipped(PG_SKIP_REASON)})`}`, async () => {
    const schema = schemaName('usp_oauth');
    try {
      await twoServersShareOneAuthorizationServer(urlWithSchema(schema));
    } finally {
      await dropSchema(schema);
    }
  }, 60_000);
});
