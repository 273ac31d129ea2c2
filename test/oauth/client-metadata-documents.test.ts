/**
 * Client ID Metadata Documents: a client whose client_id is an https URL is described by the
 * document at that URL. The URL is the caller's choice, so it is fetched with the SSRF-safe pinned
 * GET: loopback and private addresses are refused before any connection is opened (and the reason
 * logged), unless development allows loopback (--allow-loopback-profiles). End to end: a document on
 * an https host on loopback, a server process trusting that host's test CA, a buyer who links the
 * assistant and a token that works.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { Logger } from '../../src/operations/index.js';
import { hashPassword } from '../../src/oauth/index.js';
import { openStore } from '../../src/store/index.js';
import { REPO_ROOT, startServeCli, type RunningCli } from '../support/cli.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import {
  Browser,
  REDIRECT,
  authorizeUrl,
  linkAccount,
  pkce,
  startOAuthServer,
  tokenRequest,
  type OAuthTestServer,
} from './support.js';

const TLS_DIR = join(REPO_ROOT, 'test/support/tls');
const cleanup: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

const assistant = (clientId: string) =>
  JSON.stringify({
    client_id: clientId,
    client_name: 'Metadata Document Assistant',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });

describe('a client_id URL on loopback or a private address is refused before any connection is opened', () => {
  test('loopback by address or by name, private and link-local addresses: the sign-in is refused, the host sees no connection, and the reason is logged', async () => {
    const lines: Array<{ msg: string; fields: Record<string, unknown> }> = [];
    const log: Logger = { info() {}, error() {}, warn: (msg, fields = {}) => void lines.push({ msg, fields }) };
    const t: OAuthTestServer = await startOAuthServer({ allowLoopbackProfiles: false, log });
    cleanup.push(() => t.close());
    const host: ProfileServer = await startProfileServer();
    cleanup.push(() => host.close());
    const ids = [
      `https://127.0.0.1:${host.port}/client.json`,
      `https://localhost:${host.port}/client.json`,
      `https://[::1]:${host.port}/client.json`,
      'https://10.0.0.1/client.json',
      'https://169.254.169.254/latest/meta-data',
    ];
    for (const id of ids) host.setRaw(new URL(id).pathname, assistant(id));

    for (const id of ids) {
      const res = await fetch(authorizeUrl(t.url, id, pkce()), { redirect: 'manual' });
      expect({ id, status: res.status }).toEqual({ id, status: 400 });
      expect(await res.text()).toContain('not known to this business');
    }
    expect(host.connections()).toBe(0);
    const refused = lines.filter((l) => l.msg === 'client_id metadata document refused');
    expect([...new Set(refused.map((l) => l.fields.client_id))]).toEqual(ids);
    for (const l of refused) expect(String(l.fields.reason)).toMatch(/loopback|special-use|not public/);
  });
});

describe('end to end: an assistant known only by its metadata document links a buyer and gets a token', () => {
  let s: RunningCli | undefined;
  test('the server fetches the document from an https host on loopback (development flag), shows its name, and honours its redirect URI', async () => {
    const host = await startProfileServer({
      tls: {
        key: readFileSync(join(TLS_DIR, 'loopback.key'), 'utf8'),
        cert: readFileSync(join(TLS_DIR, 'loopback.pem'), 'utf8'),
      },
    });
    cleanup.push(() => host.close());
    const clientId = host.urlFor('/assistant.json');
    host.setRaw('/assistant.json', assistant(clientId), 200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'max-age=60',
    });

    // A buyer account exists in the database the server process opens.
    const dir = mkdtempSync(join(tmpdir(), 'usp-cimd-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const db = join(dir, 'usp.db');
    const store = await openStore(db);
    await store.transaction(async (tx) =>
      tx.accounts.create({
        id: `acc_${'c'.repeat(32)}`,
        email: 'cimd@example.com',
        password_hash: await hashPassword('correct horse battery'),
        name: 'Cimd Buyer',
        phone: null,
        created_ms: Date.now(),
      }),
    );
    await store.close();

    s = await startServeCli(['--demo', '--port', '0', '--db', db, '--allow-loopback-profiles'], {
      env: { NODE_EXTRA_CA_CERTS: join(TLS_DIR, 'ca.pem') },
    });
    cleanup.push(() => s!.stop());
    const meta = (await (await fetch(`${s.url}/.well-known/oauth-authorization-server`)).json()) as any;
    expect(meta.client_id_metadata_document_supported).toBe(true);

    const p = pkce();
    const browser = new Browser(s.url);
    const signIn = await browser.follow(authorizeUrl(s.url, clientId, p, { resource: `${s.url}/` }));
    expect(signIn.text).toContain('<h1>Sign in</h1>');
    expect(signIn.text).toContain('Metadata Document Assistant');
    const back = await linkAccount({ codes: new Map() } as unknown as OAuthTestServer, browser, signIn.url, {
      email: 'cimd@example.com',
      password: 'correct horse battery',
    });
    expect(back.searchParams.get('iss')).toBe(s.url);
    const tok = await tokenRequest(s.url, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: p.verifier,
      resource: `${s.url}/`,
    });
    expect(tok.status, JSON.stringify(tok.body)).toBe(200);
    const history = await fetch(`${s.url}/ext/usp-server/bookings`, {
      headers: { authorization: `Bearer ${tok.body.access_token}` },
    });
    expect(history.status).toBe(200);
    expect(host.requests('/assistant.json')).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
