/** A buyer signs up entirely by mail: the sign-up code arrives at a real SMTP server, and entering it creates the account. */
import { afterEach, describe, expect, test } from 'vitest';
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

let t: OAuthTestServer;
let sink: SmtpSink;
afterEach(async () => {
  await t.close();
  await sink.close();
});

describe('sign-up codes go by mail when a relay is configured', () => {
  test('the code arrives once in a mail to the address signed up, and entering it finishes the sign-up', async () => {
    sink = await startSmtpSink();
    t = await startOAuthServer({ mail: { smtpUrl: sink.url, startWorker: false } });
    const client = await register(t.url);
    const browser = new Browser(t.url);
    const login = await browser.follow(authorizeUrl(t.url, client.client_id, pkce()));
    const reg = await browser.follow(/href="([^"]+\/register)"/.exec(login.text)![1]);
    const res = await browser.request(actionOf(reg.text), {
      form: {
        csrf: csrfOf(reg.text),
        name: 'Ada',
        email: 'ada.signup@example.com',
        password: 'a long enough password',
      },
    });
    const step = await res.text();
    expect(res.status).toBe(200);
    expect(t.codes.size).toBe(0);
    for (let i = 0; i < 20 && sink.received.length === 0; i++) {
      await t.server.mailWorker!.tick();
      await new Promise((r) => setTimeout(r, 20));
    }
    const mails = sink.to('ada.signup@example.com');
    expect(mails).toHaveLength(1);
    const code = /Your code is (\d{6})\./.exec(mails[0].text ?? '')?.[1];
    expect(code).toMatch(/^\d{6}$/);
    expect(mails[0].subject).toContain(code);
    const done = await browser.request(actionOf(step), {
      form: { csrf: csrfOf(step), signup: /name="signup" value="([^"]+)"/.exec(step)![1], code: code! },
    });
    expect(done.status).toBe(303);
  });
});
