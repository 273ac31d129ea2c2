/**
 * Guessing at buyer accounts, and using the limits against their owners. Failed sign-ins slow the
 * address they come from, and the account as seen from that address, with growing waits; the
 * owner signing in from elsewhere gets in at once. Sign-up codes are bounded per sign-up and per
 * address and expire; sign-ups are bounded per email (each mails a code) and per address. Signing
 * out ends the session on the server. Every failure, refusal and sign-up step leaves a log line
 * (an account reference, never the email) and a counter on /metrics.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { hashPassword } from '../../src/oauth/index.js';
import { recorder } from '../support/log-recorder.js';
import {
  Browser,
  actionOf,
  authorizeUrl,
  csrfOf,
  pkce,
  register,
  startOAuthServer,
  type OAuthTestServer,
} from './support.js';

const OWNER = { id: 'acc_' + 'a'.repeat(32), email: 'owner@example.com', password: 'correct horse battery' };
const ATTACKER_IP = '203.0.113.9';
const OWNER_IP = '198.51.100.7';

let t: OAuthTestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function withOwner(opts: Parameters<typeof startOAuthServer>[0]) {
  t = await startOAuthServer(opts);
  await t.server.store.transaction(async (tx) =>
    tx.accounts.create({
      id: OWNER.id,
      email: OWNER.email,
      password_hash: await hashPassword(OWNER.password),
      name: 'Owner',
      phone: null,
      created_ms: Date.now(),
    }),
  );
  return t;
}

/** A browser behind our TLS proxy at `ip`, signing in on the account page. */
function from(s: OAuthTestServer, ip: string) {
  const browser = new Browser(s.url);
  const headers = { 'x-forwarded-for': ip, 'x-forwarded-proto': 'https' };
  return {
    browser,
    headers,
    async signIn(email: string, password: string) {
      const page = await (await browser.request('/account', { headers })).text();
      return browser.request('/account/login', { form: { csrf: csrfOf(page), email, password }, headers });
    },
  };
}

describe("lockouts are not a weapon: failures slow the attacker's address, never the owner elsewhere", () => {
  test("an attacker's address is slowed: past three failures even the right password from it waits, and each failure doubles the wait", async () => {
    const s = await withOwner({ trustProxy: true, loginLimits: 'default' });
    const attacker = from(s, ATTACKER_IP);
    for (let i = 0; i < 4; i++) expect((await attacker.signIn(OWNER.email, `guess ${i}`)).status).toBe(401);
    const held = await attacker.signIn(OWNER.email, OWNER.password);
    expect(held.status).toBe(429);
    expect(held.headers.get('retry-after')).toBe('1');
    s.clock.advance(1000);
    expect((await attacker.signIn(OWNER.email, 'guess 5')).status).toBe(401);
    const longer = await attacker.signIn(OWNER.email, OWNER.password);
    expect(longer.status).toBe(429);
    expect(longer.headers.get('retry-after')).toBe('2');
  });

  test('the owner from another address signs in at once while the attacker is held back', async () => {
    const s = await withOwner({ trustProxy: true, loginLimits: 'default' });
    const attacker = from(s, ATTACKER_IP);
    for (let i = 0; i < 8; i++) {
      const r = await attacker.signIn(OWNER.email, `guess ${i}`);
      if (r.status === 429) s.clock.advance(Number(r.headers.get('retry-after')) * 1000);
    }
    expect((await attacker.signIn(OWNER.email, OWNER.password)).status).toBe(429);
    const owner = from(s, OWNER_IP);
    const res = await owner.signIn(OWNER.email, OWNER.password);
    expect(res.status).toBe(303);
    const page = await (await owner.browser.request('/account', { headers: owner.headers })).text();
    expect(page).toContain('<h1>Your account</h1>');
  });

  test('a failed sign-in and a refusal each leave a log line with the account id, no email, and count on /metrics', async () => {
    const rec = recorder();
    const s = await withOwner({ trustProxy: true, loginLimits: 'default', log: rec.log });
    const attacker = from(s, ATTACKER_IP);
    for (let i = 0; i < 4; i++) await attacker.signIn(OWNER.email, `guess ${i}`);
    await attacker.signIn('nobody@example.com', 'guess');
    expect((await attacker.signIn(OWNER.email, 'guess')).status).toBe(429);
    const failed = rec.lines.filter((l) => l.msg === 'sign-in failed');
    expect(failed).toHaveLength(5);
    expect(failed[0]).toMatchObject({ level: 'warn', fields: { door: 'oauth', account: OWNER.id } });
    // An unknown email is referred to by its hash, which the operator can compute from an address they are asked about.
    expect(failed[4].fields).toMatchObject({ email_ref: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(rec.lines).toContainEqual(
      expect.objectContaining({
        msg: 'account attempt refused: too many',
        fields: expect.objectContaining({ limit: 'account', account: OWNER.id, address: ATTACKER_IP }),
      }),
    );
    expect(JSON.stringify(rec.lines)).not.toContain(OWNER.email);
    expect(JSON.stringify(rec.lines)).not.toContain('nobody@example.com');
    const metrics = await (
      await fetch(`${s.url}/metrics`, { headers: { 'x-forwarded-for': '127.0.0.1', 'x-forwarded-proto': 'https' } })
    ).text();
    expect(metrics).toMatch(/usp_sign_in_failures_total\{door="oauth"\} 5/);
    expect(metrics).toMatch(/usp_sign_in_lockouts_total\{door="oauth",limit="account"\} 1/);
  });
});

describe('signing out ends the account session on the server', () => {
  test('the old usp_account cookie, replayed after sign-out, no longer opens the account page', async () => {
    const s = await withOwner({});
    const owner = from(s, '127.0.0.1');
    expect((await owner.signIn(OWNER.email, OWNER.password)).status).toBe(303);
    const page = await (await owner.browser.request('/account')).text();
    expect(page).toContain('<h1>Your account</h1>');
    // What the browser sent: keep it to replay after signing out.
    const jar = (owner.browser as unknown as { jar: Map<string, { value: string }> }).jar;
    const stolen = `usp_account=${jar.get('usp_account')!.value}`;
    expect((await owner.browser.request('/account/logout', { form: { csrf: csrfOf(page) } })).status).toBe(303);
    const replay = await (await fetch(`${s.url}/account`, { headers: { cookie: stolen } })).text();
    expect(replay).toContain('<h1>Sign in</h1>');
    expect(replay).not.toContain('Your account');
  });
});

describe('sign-up codes: bounded per sign-up and per address, sign-ups bounded per email and per address, and codes expire', () => {
  /** The register form of a fresh authorization (one browser, one interaction, many posts). */
  async function registerForm(s: OAuthTestServer) {
    const client = await register(s.url);
    const browser = new Browser(s.url);
    const login = await browser.follow(authorizeUrl(s.url, client.client_id, pkce()));
    const reg = await browser.follow(/href="([^"]+\/register)"/.exec(login.text)![1]);
    return {
      async signUp(email: string) {
        const res = await browser.request(actionOf(reg.text), {
          form: { csrf: csrfOf(reg.text), name: 'Someone', email, password: 'a long enough password' },
        });
        const text = await res.text();
        return {
          res,
          text,
          signup: /name="signup" value="([^"]+)"/.exec(text)?.[1] ?? '',
          action: actionOf(text),
          csrf: csrfOf(text),
        };
      },
      async verify(step: { action: string; csrf: string; signup: string }, code: string) {
        return browser.request(step.action, { form: { csrf: step.csrf, signup: step.signup, code } });
      },
    };
  }
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

  test("guessing one sign-up's code: after five wrong codes the right one is refused too", async () => {
    t = await startOAuthServer();
    const f = await registerForm(t);
    const step = await f.signUp('guess-one@example.com');
    const code = t.codes.get('guess-one@example.com')!;
    for (let i = 0; i < 5; i++) expect((await f.verify(step, wrong(code))).status).toBe(400);
    expect((await f.verify(step, code)).status).toBe(400);
  });

  test('guessing across fresh sign-ups from one address: after 20 code checks the next is refused with 429, even the right code', async () => {
    t = await startOAuthServer();
    const f = await registerForm(t);
    for (let n = 0; n < 4; n++) {
      const step = await f.signUp(`spread-${n}@example.com`);
      for (let i = 0; i < 5; i++)
        expect((await f.verify(step, wrong(t.codes.get(`spread-${n}@example.com`)!))).status).toBe(400);
    }
    const last = await f.signUp('spread-last@example.com');
    const res = await f.verify(last, t.codes.get('spread-last@example.com')!);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  test('flooding an inbox: a fourth sign-up for one email within the hour is refused with 429 and mails no code', async () => {
    t = await startOAuthServer();
    const f = await registerForm(t);
    for (let i = 0; i < 3; i++) {
      t.codes.delete('victim@example.com');
      expect((await f.signUp('victim@example.com')).res.status).toBe(200);
      expect(t.codes.has('victim@example.com')).toBe(true);
    }
    t.codes.delete('victim@example.com');
    expect((await f.signUp('victim@example.com')).res.status).toBe(429);
    expect(t.codes.has('victim@example.com')).toBe(false);
    // An hour later (the server's clock) it may be tried again.
    t.clock.advance(3600_000);
    expect((await f.signUp('victim@example.com')).res.status).toBe(200);
  });

  test('sign-ups from one address: the eleventh within the hour is refused with 429', async () => {
    t = await startOAuthServer({ loginLimits: 'default' });
    const f = await registerForm(t);
    for (let i = 0; i < 10; i++) expect((await f.signUp(`many-${i}@example.com`)).res.status).toBe(200);
    expect((await f.signUp('many-10@example.com')).res.status).toBe(429);
  });

  test("a code expires: 15 minutes after it was sent (the server's clock) the right code no longer makes the account", async () => {
    const rec = recorder();
    t = await startOAuthServer({ log: rec.log });
    const f = await registerForm(t);
    const step = await f.signUp('late@example.com');
    t.clock.advance(15 * 60_000 + 1000);
    const res = await f.verify(step, t.codes.get('late@example.com')!);
    expect(res.status).toBe(400);
    expect(await t.server.store.read((tx) => tx.accounts.byEmail('late@example.com'))).toBeNull();
    expect(rec.lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining(['sign-up started: code sent', 'sign-up code refused (wrong, used up or expired)']),
    );
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/usp_sign_ups_total\{stage="started"\} 1/);
    expect(metrics).toMatch(/usp_sign_ups_total\{stage="code_rejected"\} 1/);
  });
});
