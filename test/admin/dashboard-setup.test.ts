/**
 * Signing in needs no terminal: the first start of a business with no dashboard user prints (once)
 * a one-time link that lets the owner create her account in the browser and signs her in; the token
 * is kept only as its hash, works once, only while there is no user, and not after 24 hours; the form
 * refuses a post without its CSRF cookie. The start-up lines name the dashboard, the MCP endpoint,
 * the mail folder and the database. Through the built command line and the dashboard over HTTP.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { offerDashboardSetup } from '../../src/operations/index.js';
import { runCli, startServeCli } from '../support/cli.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';

const dir = mkdtempSync(join(tmpdir(), 'usp-setup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { USP_CLOCK: `fixed:${new Date(TEST_NOW).toISOString()}`, XDG_DATA_HOME: join(dir, 'data') };
const EMAIL = 'rosa@studio.example';
const PASSWORD = 'a long and private passphrase';

/** A browser's cookie jar over fetch, enough for the setup form and the dashboard after it. */
function browser(base: string) {
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const sc of res.headers.getSetCookie()) {
      const [pair] = sc.split(';');
      const i = pair.indexOf('=');
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return res;
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  return {
    jar,
    get: async (path: string) => keep(await fetch(base + path, { headers: { cookie: cookie() }, redirect: 'manual' })),
    post: async (path: string, form: Record<string, string>) =>
      keep(
        await fetch(base + path, {
          method: 'POST',
          headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(form),
          redirect: 'manual',
        }),
      ),
  };
}
const field = (page: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? '';

describe('the first start offers a one-time setup link, and the owner makes her account in the browser', () => {
  it('the link is printed once with the start-up lines; it makes the account, signs her in, and works only once', async () => {
    const file = join(dir, 'rosa.json');
    const init = await runCli(['init', '--name', 'Rosa Studio', '--service', 'Cut', '--price', '40', '--out', file], {
      env,
      timeoutMs: 60_000,
    });
    expect(init.code, init.stderr).toBe(0);
    const db = join(dir, 'rosa.db');
    const mail = join(dir, 'mail');
    const first = await startServeCli(['--config', file, '--db', db, '--mail-dir', mail, '--port', '0'], {
      env,
      timeoutMs: 60_000,
    });
    let link: string;
    try {
      // Lines come a moment after "is open at": wait for the setup line.
      for (let i = 0; i < 200 && !/admin\/setup\?token=/.test(first.stderr()); i++)
        await new Promise((r) => setTimeout(r, 25));
      const said = first.stderr();
      expect(said).toContain(`dashboard: ${first.url}/admin`);
      expect(said).toContain(`MCP endpoint: ${first.url}/mcp`);
      expect(said).toContain(`written as .eml files to ${mail}`);
      expect(said).toContain(`database: ${db}`);
      const links = said.match(/https?:\/\/\S+\/admin\/setup\?token=[\w-]+/g) ?? [];
      expect(links).toHaveLength(1);
      link = links[0]!;
      const token = new URL(link).searchParams.get('token')!;

      const b = browser(first.url);
      const page = await (await b.get(new URL(link).pathname + new URL(link).search)).text();
      expect(page).toContain('Create your account');
      const form = {
        _csrf: field(page, '_csrf'),
        token: field(page, 'token'),
        email: EMAIL,
        password: PASSWORD,
        password_again: PASSWORD,
      };
      expect(form.token).toBe(token);
      // Without the form's own cookie (another site posting it): refused, nothing made.
      const forged = await fetch(`${first.url}/admin/setup`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
        redirect: 'manual',
      });
      expect(forged.status).toBe(403);
      const differ = await b.post('/admin/setup', { ...form, password_again: 'something else entirely' });
      expect(differ.status).toBe(400);
      // The refused form comes back (with a fresh CSRF token), as the browser would show it.
      const made = await b.post('/admin/setup', { ...form, _csrf: field(await differ.text(), '_csrf') });
      expect(made.status).toBe(303);
      expect(made.headers.get('location')).toBe('/admin');
      const today = await b.get('/admin');
      expect(today.status).toBe(200);
      expect(await today.text()).toContain(`title="Signed in as ${EMAIL}"`);
      // Used: the same link opens nothing again.
      const again = browser(first.url);
      const page2 = await (await again.get(new URL(link).pathname + new URL(link).search)).text();
      const reuse = await again.post('/admin/setup', {
        _csrf: field(page2, '_csrf'),
        token,
        email: 'intruder@example.com',
        password: PASSWORD,
        password_again: PASSWORD,
      });
      expect(reuse.status).toBe(401);
      expect(await reuse.text()).toContain('This setup link no longer works');
    } finally {
      await first.stop();
    }
    // She signs in with her password; a start with a user prints no link.
    const second = await startServeCli(['--config', file, '--db', db, '--port', '0'], { env, timeoutMs: 60_000 });
    try {
      await new Promise((r) => setTimeout(r, 500));
      expect(second.stderr()).not.toContain('/admin/setup');
      const b = browser(second.url);
      const login = await (await b.get('/admin/login')).text();
      expect(
        (await b.post('/admin/login', { _csrf: field(login, '_csrf'), email: EMAIL, password: PASSWORD })).status,
      ).toBe(303);
    } finally {
      await second.stop();
    }
  }, 180_000);
});

describe('the setup token', () => {
  let t: TestServer;
  afterEach(async () => {
    await t?.close();
  });

  it('is stored only as its hash, and does not work after 24 hours', async () => {
    t = await startTestServer();
    const offer = (await offerDashboardSetup(t.server.store, t.clock.now()))!;
    const stored = (await t.server.store.read((tx) => tx.kv.get('dashboard_setup')))!;
    expect(stored).not.toContain(offer.token);
    expect(JSON.parse(stored).sha256).toBe(createHash('sha256').update(offer.token).digest('base64url'));
    t.clock.advance(24 * 3600 * 1000);
    const b = browser(t.url);
    const page = await (await b.get(`/admin/setup?token=${offer.token}`)).text();
    const late = await b.post('/admin/setup', {
      _csrf: field(page, '_csrf'),
      token: offer.token,
      email: EMAIL,
      password: PASSWORD,
      password_again: PASSWORD,
    });
    expect(late.status).toBe(401);
    expect(await t.server.store.read((tx) => tx.admin.user(EMAIL))).toBeNull();
  });

  it('a newer offer replaces the older link', async () => {
    t = await startTestServer();
    const older = (await offerDashboardSetup(t.server.store, t.clock.now()))!;
    const newer = (await offerDashboardSetup(t.server.store, t.clock.now()))!;
    const b = browser(t.url);
    const form = async (token: string) => ({
      _csrf: field(await (await b.get(`/admin/setup?token=${token}`)).text(), '_csrf'),
      token,
      email: EMAIL,
      password: PASSWORD,
      password_again: PASSWORD,
    });
    expect((await b.post('/admin/setup', await form(older.token))).status).toBe(401);
    expect((await b.post('/admin/setup', await form(newer.token))).status).toBe(303);
    expect((await t.server.store.read((tx) => tx.admin.user(EMAIL)))?.email).toBe(EMAIL);
  });
});
