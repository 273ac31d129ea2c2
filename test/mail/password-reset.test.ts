/**
 * A buyer resets a forgotten password entirely by mail: the link arrives at a real SMTP server, works
 * once, expires, ends every session, and asking for it tells nobody whether an email has an account.
 * The limits slow whoever asks too often without letting a stranger keep the owner from resetting.
 */
import { afterEach, describe, expect, test } from 'vitest';
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
} from '../oauth/support.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

const EMAIL = 'ada.reset@example.com';
const OLD = 'the first long password';
const NEW = 'a brand new long password';

let t: OAuthTestServer;
let sink: SmtpSink;
let rec: ReturnType<typeof recorder>;
afterEach(async () => {
  await t?.close();
  await sink?.close();
});

async function start(): Promise<void> {
  sink = await startSmtpSink();
  rec = recorder();
  t = await startOAuthServer({ mail: { smtpUrl: sink.url, startWorker: false }, log: rec.log, trustProxy: true });
}

/** Run the mail worker until `to` has `count` messages (or give up after a while). */
async function mailsTo(to: string, count: number) {
  for (let i = 0; i < 50 && sink.to(to).length < count; i++) {
    await t.server.mailWorker!.tick();
    await new Promise((r) => setTimeout(r, 20));
  }
  return sink.to(to);
}

/** Wait until the log has a line with this message (the reset's lookup runs after its answer). */
async function logged(msg: string, count = 1) {
  for (let i = 0; i < 100 && rec.lines.filter((l) => l.msg === msg).length < count; i++)
    await new Promise((r) => setTimeout(r, 10));
  return rec.lines.filter((l) => l.msg === msg);
}

/** Sign up through an assistant's authorization, with the code that arrives by mail: the browser is then signed in. */
async function signUpByMail(email: string, password: string): Promise<Browser> {
  const client = await register(t.url, {}, PROXIED('198.51.100.9'));
  const browser = new Browser(t.url, PROXIED('198.51.100.9'));
  const login = await browser.follow(authorizeUrl(t.url, client.client_id, pkce()));
  const reg = await browser.follow(/href="([^"]+\/register)"/.exec(login.text)![1]);
  const step = await (
    await browser.request(actionOf(reg.text), { form: { csrf: csrfOf(reg.text), name: 'Ada', email, password } })
  ).text();
  const [mail] = await mailsTo(email, 1);
  const code = /Your code is (\d{6})\./.exec(mail.text ?? '')![1];
  const done = await browser.request(actionOf(step), {
    form: { csrf: csrfOf(step), signup: /name="signup" value="([^"]+)"/.exec(step)![1], code },
  });
  expect(done.status).toBe(303);
  // The authorization resumes signed in: the authorization server's session is open, and it asks for consent.
  expect((await browser.follow(done.headers.get('location')!)).text).toContain('<h1>Allow ');
  return browser;
}

/** What our TLS proxy adds in front of the server (the tests' server trusts it): the client's address, and HTTPS. */
const PROXIED = (ip: string) => ({ 'x-forwarded-for': ip, 'x-forwarded-proto': 'https' });

function from(ip: string) {
  const headers = PROXIED(ip);
  const browser = new Browser(t.url, headers);
  return {
    browser,
    async forgot(email: string, extra: Record<string, string> = {}) {
      const page = await (await browser.request('/account/forgot', { headers })).text();
      return browser.request('/account/forgot', {
        form: { csrf: csrfOf(page), email },
        headers: { ...headers, ...extra },
      });
    },
    async reset(link: string, password: string) {
      const page = await browser.request(link, { headers });
      if (page.status !== 200) return page;
      const html = await page.text();
      return browser.request(actionOf(html), { form: { csrf: csrfOf(html), password }, headers });
    },
    async signIn(email: string, password: string) {
      const page = await (await browser.request('/account', { headers })).text();
      return browser.request('/account/login', { form: { csrf: csrfOf(page), email, password }, headers });
    },
  };
}

/** Ask for a reset link from `buyer`'s address and read it from the mail that arrives (the sign-up code came first). */
async function askForLink(buyer: ReturnType<typeof from>): Promise<string> {
  expect((await buyer.forgot(EMAIL)).status).toBe(200);
  return pathOf(
    linkIn((await mailsTo(EMAIL, 2)).find((m) => m.headers.get('x-usp-message-kind') === 'password_reset')!.text),
  );
}

const linkIn = (text: string | undefined) => {
  return /https?:\/\/\S+\/account\/reset\/[A-Za-z0-9_-]{43}/.exec(text ?? '')![0];
};
const pathOf = (link: string) => new URL(link).pathname;

describe('a buyer resets a forgotten password by mail', () => {
  test('sign up by mail, ask for a reset from the sign-in page, set a new password from the mailed link, then sign in with it; the old sessions end', async () => {
    await start();
    const assistantBrowser = await signUpByMail(EMAIL, OLD);
    expect((await assistantBrowser.request('/account')).status).toBe(200);
    const signedIn = await (await assistantBrowser.request('/account')).text();
    expect(signedIn).toContain('<h1>Your account</h1>');

    const buyer = from('198.51.100.20');
    const signInPage = await (await buyer.browser.request('/account')).text();
    expect(signInPage).toMatch(/<a href="\/account\/forgot">Forgot password\?<\/a>/);
    const asked = await buyer.forgot(EMAIL);
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('If <strong>ada.reset@example.com</strong> belongs to an account');

    const mails = await mailsTo(EMAIL, 2);
    const reset = mails.filter((m) => m.headers.get('x-usp-message-kind') === 'password_reset');
    expect(reset).toHaveLength(1);
    expect(reset[0].subject).toBe('Reset your password');
    const link = linkIn(reset[0].text);
    expect(reset[0].html).toContain(link);

    const done = await buyer.reset(pathOf(link), NEW);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Your password is changed');

    // The sessions the sign-up opened are over: the account page and the next authorization ask to sign in again.
    expect(await (await assistantBrowser.request('/account')).text()).toContain('<h1>Sign in</h1>');
    const again = await assistantBrowser.follow(
      authorizeUrl(t.url, (await register(t.url, {}, PROXIED('198.51.100.9'))).client_id, pkce()),
    );
    expect(again.text).toContain('<h1>Sign in</h1>');
    expect((await buyer.signIn(EMAIL, OLD)).status).toBe(401);
    const ok = await buyer.signIn(EMAIL, NEW);
    expect(ok.status).toBe(303);
    expect(await (await buyer.browser.request('/account')).text()).toContain('<h1>Your account</h1>');

    const metrics = await (await fetch(`${t.url}/metrics`, { headers: PROXIED('127.0.0.1') })).text();
    expect(metrics).toMatch(/usp_password_resets_total\{stage="requested"\} 1/);
    expect(metrics).toMatch(/usp_password_resets_total\{stage="mailed"\} 1/);
    expect(metrics).toMatch(/usp_password_resets_total\{stage="completed"\} 1/);
    // No line about the reset names the email or carries the link.
    const resetLines = rec.lines.filter((l) => /password reset/.test(l.msg));
    expect(resetLines.map((l) => l.msg)).toEqual([
      'password reset link sent',
      'password reset completed: sessions ended',
    ]);
    expect(resetLines.map((l) => l.fields)).toEqual([
      { account: expect.stringMatching(/^acc_/) },
      { account: expect.stringMatching(/^acc_/) },
    ]);
    expect(JSON.stringify(resetLines)).not.toContain(EMAIL);
    expect(JSON.stringify(rec.lines)).not.toContain(link.split('/').pop());
  });

  test('the link works once: a second use, even with another password, gets the used-or-expired page and changes nothing', async () => {
    await start();
    await signUpByMail(EMAIL, OLD);
    const buyer = from('198.51.100.21');
    const link = await askForLink(buyer);
    const page = await (await buyer.browser.request(link)).text();
    expect((await buyer.reset(link, NEW)).status).toBe(200);
    // The page opened before the first use, posted again.
    const replay = await buyer.browser.request(actionOf(page), {
      form: { csrf: csrfOf(page), password: 'an attacker password!' },
    });
    expect(replay.status).toBe(410);
    expect(await replay.text()).toContain('This link cannot be used');
    expect((await buyer.browser.request(link)).status).toBe(410);
    expect((await buyer.signIn(EMAIL, 'an attacker password!')).status).toBe(401);
    expect((await buyer.signIn(EMAIL, NEW)).status).toBe(303);
  });

  test('a link older than 30 minutes is dead: opening and posting it get the expired page, and the old password stays', async () => {
    await start();
    await signUpByMail(EMAIL, OLD);
    const buyer = from('198.51.100.22');
    const link = await askForLink(buyer);
    const page = await (await buyer.browser.request(link)).text();
    t.clock.advance(30 * 60_000 + 1000);
    expect((await buyer.browser.request(link)).status).toBe(410);
    const late = await buyer.browser.request(actionOf(page), { form: { csrf: csrfOf(page), password: NEW } });
    expect(late.status).toBe(410);
    expect((await buyer.signIn(EMAIL, OLD)).status).toBe(303);
  });

  test('a new password follows the sign-up rule: a short one is refused on the form and the link stays usable', async () => {
    await start();
    await signUpByMail(EMAIL, OLD);
    const buyer = from('198.51.100.23');
    const link = await askForLink(buyer);
    const short = await buyer.reset(link, 'short');
    expect(short.status).toBe(400);
    expect(await short.text()).toContain('at least 10 characters');
    expect((await buyer.reset(link, NEW)).status).toBe(200);
  });

  test('a form posted without the page’s CSRF token is refused and the link is not spent', async () => {
    await start();
    await signUpByMail(EMAIL, OLD);
    const buyer = from('198.51.100.24');
    const link = await askForLink(buyer);
    const forged = await fetch(new URL(link, t.url), {
      method: 'POST',
      headers: {
        ...PROXIED('203.0.113.99'),
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'cross-site',
      },
      body: new URLSearchParams({ csrf: 'x'.repeat(32), password: 'an attacker password!' }).toString(),
    });
    expect(forged.status).toBe(403);
    expect((await buyer.reset(link, NEW)).status).toBe(200);
  });
});

describe('asking for a reset tells nobody whether an email has an account', () => {
  test('an email without an account gets the same page as one with an account, and no mail is sent to it', async () => {
    await start();
    await signUpByMail(EMAIL, OLD);
    const stranger = from('203.0.113.30');
    const known = await stranger.forgot(EMAIL);
    const unknown = await stranger.forgot('nobody.here@example.com');
    expect(unknown.status).toBe(known.status);
    expect((await unknown.text()).replace('nobody.here@example.com', 'X')).toBe(
      (await known.text()).replace(EMAIL, 'X'),
    );
    await logged('password reset asked for an email without an account: nothing sent');
    await mailsTo(EMAIL, 2);
    for (let i = 0; i < 3; i++) await t.server.mailWorker!.tick();
    expect(sink.to('nobody.here@example.com')).toHaveLength(0);
    const line = rec.lines.find((l) => l.msg === 'password reset asked for an email without an account: nothing sent')!;
    expect(line.fields).toEqual({ email_ref: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });
});

describe('the limits slow whoever asks too often, never the owner', () => {
  test('one address asking more than 10 times an hour is refused with a wait; another address is not', async () => {
    await start();
    const flood = from('203.0.113.31');
    for (let i = 0; i < 10; i++) expect((await flood.forgot(`someone${i}@example.com`)).status).toBe(200);
    const refused = await flood.forgot('someone.more@example.com');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await from('198.51.100.32').forgot('someone.more@example.com')).status).toBe(200);
    const metrics = await (await fetch(`${t.url}/metrics`, { headers: PROXIED('127.0.0.1') })).text();
    expect(metrics).toMatch(/usp_sign_in_lockouts_total\{door="oauth",limit="reset_address"\} 1/);
  });

  test("a stranger asking again and again for the owner's email sends one mail per cooldown, and the owner still resets with it", async () => {
    await start();
    await signUpByMail(EMAIL, OLD);
    const stranger = from('203.0.113.33');
    for (let i = 0; i < 6; i++) expect((await stranger.forgot(EMAIL)).status).toBe(200);
    await logged('password reset asked again within the cooldown: no new mail', 5);
    const owner = from('198.51.100.34');
    expect((await owner.forgot(EMAIL)).status).toBe(200);
    await logged('password reset asked again within the cooldown: no new mail', 6);
    const resets = () => sink.to(EMAIL).filter((m) => m.headers.get('x-usp-message-kind') === 'password_reset');
    await mailsTo(EMAIL, 2);
    for (let i = 0; i < 3; i++) await t.server.mailWorker!.tick();
    expect(resets()).toHaveLength(1);
    // The link the stranger's request sent is in the owner's mailbox, and it works for the owner.
    expect((await owner.reset(pathOf(linkIn(resets()[0].text)), NEW)).status).toBe(200);
    // After the cooldown a new request sends a new link.
    t.clock.advance(5 * 60_000 + 1000);
    expect((await owner.forgot(EMAIL)).status).toBe(200);
    expect(
      (await mailsTo(EMAIL, 3)).filter((m) => m.headers.get('x-usp-message-kind') === 'password_reset'),
    ).toHaveLength(2);
  });
});

describe('the reset mail is in the language the request asked for', () => {
  test('asked with Accept-Language es, the reset mail is in Spanish; its link works the same', async () => {
    await start();
    await signUpByMail(EMAIL, OLD);
    const buyer = from('198.51.100.40');
    expect((await buyer.forgot(EMAIL, { 'accept-language': 'es-ES,es;q=0.9' })).status).toBe(200);
    const mail = (await mailsTo(EMAIL, 2)).find((m) => m.headers.get('x-usp-message-kind') === 'password_reset')!;
    expect(mail.subject).toBe('Restablece tu contraseña');
    expect(mail.text).toContain('Elegir una contraseña nueva');
    expect((await buyer.reset(pathOf(linkIn(mail.text)), NEW)).status).toBe(200);
  });
});
