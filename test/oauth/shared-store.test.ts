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
import {
  Browser,
  REDIRECT,
  authorizeUrl,
  linkAccount,
  mcpCallAt,
  pkce,
  register,
  startOAuthServer,
  tokenRequest,
} from './support.js';

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
    const back = await linkAccount(
      a,
      new Browser(a.url, {}, PUBLIC),
      authorizeUrl(a.url, client.client_id, p, { resource: `${PUBLIC}/mcp` }),
      {
        email: 'shared@example.com',
        password: 'correct horse battery',
        signUp: true,
      },
    );
    expect(back.searchParams.get('iss')).toBe(PUBLIC);
    // The code from A is redeemed at B.
    const tok = await tokenRequest(b.url, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: p.verifier,
      resource: `${PUBLIC}/mcp`,
    });
    expect(tok.status).toBe(200);
    const list = async (url: string) =>
      (await mcpCallAt(url, 'uspserver_bookings_list', {}, { authorization: `Bearer ${tok.body.access_token}` }))
        .status;
    // The token minted through A is known at B (a tool call: the token is checked by the pipeline).
    expect(await list(b.url)).toBe(200);
    // Revoked at A, refused at B.
    const rev = await fetch(`${a.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tok.body.refresh_token, client_id: client.client_id }).toString(),
    });
    expect(rev.status).toBe(200);
    expect(await list(b.url)).toBe(401);
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

  test.skipIf(!PG_URL)(
    `PostgreSQL: the same across two servers on one schema${PG_URL ? '' : ` (${noteSkipped(PG_SKIP_REASON)})`}`,
    async () => {
      const schema = schemaName('usp_oauth');
      try {
        await twoServersShareOneAuthorizationServer(urlWithSchema(schema));
      } finally {
        await dropSchema(schema);
      }
    },
    60_000,
  );
});
