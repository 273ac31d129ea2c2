/**
 * A buyer's own data from their account page (spec 10.1.3): signed in, they download everything the
 * business keeps about them and can erase it, which closes their account and signs them out. They
 * can only ever act on themselves: the form's fields never choose the person, a form without the
 * page's CSRF token changes nothing, and no one signed out gets anything.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { hashPassword } from '../../src/oauth/index.js';
import { BUYER } from '../support/server.js';
import { Browser, csrfOf, firstSlotAt, startOAuthServer, type OAuthTestServer } from './support.js';

const ME = { id: 'acc_me', email: 'zelda.quinton@example.org', password: 'a long enough passphrase' };
let t: OAuthTestServer;
afterEach(async () => {
  await t?.close();
});

async function setUp() {
  t = await startOAuthServer({ sandbox: true });
  await t.server.store.transaction(async (tx) =>
    tx.accounts.create({
      id: ME.id,
      email: ME.email,
      password_hash: await hashPassword(ME.password),
      name: 'Zelda Quinton',
      phone: null,
      created_ms: t.clock.now(),
    }),
  );
  const book = async (buyer: Record<string, string>, offset: number) => {
    const res = await fetch(`${t.url}/bookings`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'USP-Agent': 'profile="https://platform.example/profiles/agent.json"',
      },
      body: JSON.stringify({ service_id: 'svc_haircut', slot_id: await firstSlotAt(t.url, offset), buyer }),
    });
    return ((await res.json()) as any).booking;
  };
  const mine = await book({ first_name: 'Zelda', last_name: 'Quinton', email: ME.email }, 1);
  const theirs = await book(BUYER, 2);
  const browser = new Browser(t.url);
  const page = await (await browser.request('/account')).text();
  expect(
    (await browser.request('/account/login', { form: { csrf: csrfOf(page), email: ME.email, password: ME.password } }))
      .status,
  ).toBe(303);
  const account = await (await browser.request('/account')).text();
  return { browser, csrf: csrfOf(account), account, mine, theirs };
}

describe("the buyer's data from the account page", () => {
  test('the account page offers a download and an erase; the download holds the signed-in buyer’s bookings and account, whatever email the form names', async () => {
    const s = await setUp();
    expect(s.account).toContain('/account/data/export');
    expect(s.account).toContain('/account/data/erase');
    const res = await s.browser.request('/account/data/export', { form: { csrf: s.csrf, email: BUYER.email } });
    expect(res.headers.get('content-disposition')).toContain('attachment');
    const data = (await res.json()) as any;
    expect(data.bookings.map((b: any) => b.booking.id)).toEqual([s.mine.id]);
    expect(data.account[0]).toMatchObject({ email: ME.email, name: 'Zelda Quinton' });
    expect(JSON.stringify(data)).not.toContain(s.theirs.id);
  });

  test('without the page CSRF token, or signed out, neither form does anything', async () => {
    const s = await setUp();
    expect((await s.browser.request('/account/data/export', { form: { csrf: 'forged' } })).status).toBe(403);
    expect((await s.browser.request('/account/data/erase', { form: { csrf: 'forged', confirm: 'yes' } })).status).toBe(
      403,
    );
    const stranger = new Browser(t.url);
    const page = await (await stranger.request('/account')).text();
    expect(
      (await stranger.request('/account/data/erase', { form: { csrf: csrfOf(page), confirm: 'yes' } })).status,
    ).toBe(403);
    expect(await t.server.store.read((tx) => tx.accounts.byEmail(ME.email))).not.toBeNull();
  });

  test('erase closes the account, signs the buyer out and removes them from their bookings, and only them', async () => {
    const s = await setUp();
    expect((await s.browser.request('/account/data/erase', { form: { csrf: s.csrf } })).status).toBe(400);
    const done = await s.browser.request('/account/data/erase', {
      form: { csrf: s.csrf, confirm: 'yes', email: BUYER.email },
    });
    expect(done.status).toBe(200);
    expect(await t.server.store.read((tx) => tx.accounts.byEmail(ME.email))).toBeNull();
    const mine = await t.server.store.read((tx) => tx.bookings.get(s.mine.id));
    expect(mine!.booking.buyer.email).toBe('erased@erased.invalid');
    const theirs = await t.server.store.read((tx) => tx.bookings.get(s.theirs.id));
    expect(theirs!.booking.buyer).toEqual(BUYER);
    // Signed out: the account page asks to sign in again.
    expect(await (await s.browser.request('/account')).text()).toContain('/account/login');
    const audit = await t.server.store.read((tx) => tx.admin.auditLog(5));
    expect(audit[0]).toMatchObject({ actor: 'buyer_self_service', action: 'erase_buyer_data', target: null });
  });
});
