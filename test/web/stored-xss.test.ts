/**
 * Stored markup reaches the HTML doors as text: a client's self-chosen name and a typed email on the OAuth
 * sign-in page, and a buyer's name on the dashboard's booking page and calendar, all go
 * through the web kit's one escaping.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { addBusinessUser } from '../../src/operations/index.js';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';
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

const ATTACK = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;
const noMarkupFrom = (page: string) => {
  expect(page).not.toContain('<script');
  expect(page).not.toContain('<img');
  expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
};

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers) await close();
  closers = [];
});

describe('a stored value with markup in it renders as text in every HTML door', () => {
  test('an OAuth client named with markup: the sign-in page shows its name as text, and a typed email comes back as an escaped attribute', async () => {
    const t: OAuthTestServer = await startOAuthServer();
    closers.push(t.close);
    const client = await register(t.url, { client_name: ATTACK });
    const browser = new Browser(t.url);
    const signIn = await browser.follow(authorizeUrl(t.url, client.client_id, pkce()));
    expect(signIn.text).toContain('<h1>Sign in</h1>');
    noMarkupFrom(signIn.text);
    // A failed sign-in puts the typed email back into the form: as an attribute value, escaped.
    const again = await browser.follow(actionOf(signIn.text), {
      form: { csrf: csrfOf(signIn.text), email: ATTACK, password: 'wrong password' },
    });
    expect(again.text).toContain('value="&quot;&gt;&lt;script&gt;');
    noMarkupFrom(again.text);
  });

  test('a buyer named with markup: the dashboard booking page and calendar show the name as text', async () => {
    const t: TestServer = await startTestServer();
    closers.push(t.close);
    await addBusinessUser(t.server.store, 'owner@salon.example', 'correct horse battery staple', t.clock.now());
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(1),
      end_date: day(1),
    });
    const booking = (
      await t.call('POST', '/bookings', {
        service_id: 'svc_haircut',
        slot_id: q.body.slots[0].id,
        buyer: { ...BUYER, first_name: ATTACK, last_name: ATTACK },
      })
    ).body.booking;
    expect(booking?.id).toBeTruthy();
    expect(
      (await t.call('GET', `/admin/bookings/${booking.id}`, undefined, { apiKey: ADMIN_KEY, profile: null })).status,
    ).toBe(200);
    const jar: string[] = [];
    const get = async (path: string) => {
      const res = await fetch(t.url + path, { headers: { cookie: jar.join('; ') }, redirect: 'manual' });
      for (const sc of res.headers.getSetCookie()) jar.push(sc.split(';')[0]);
      return res;
    };
    const login = await (await get('/admin/login')).text();
    const signed = await fetch(t.url + '/admin/login', {
      method: 'POST',
      headers: { cookie: jar.join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        _csrf: /name="_csrf" value="([^"]+)"/.exec(login)![1],
        email: 'owner@salon.example',
        password: 'correct horse battery staple',
      }),
      redirect: 'manual',
    });
    expect(signed.status).toBe(303);
    jar.push(...signed.headers.getSetCookie().map((sc) => sc.split(';')[0]));
    noMarkupFrom(await (await get(`/admin/ui/bookings/${booking.id}`)).text());
    noMarkupFrom(await (await get(`/admin/ui/calendar?date=${day(1)}`)).text());
  });
});
