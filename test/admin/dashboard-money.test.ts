/**
 * Money on the dashboard is money: a price is shown and typed in the currency's major unit with its
 * symbol, read by the currency's own exponent (USD 2, JPY 0), and what cannot be read as an amount
 * in that currency is refused in words with nothing changed. A saved price says what changed and its
 * new value. Through the real dashboard over HTTP: signed in, forms posted with the session's CSRF token.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addBusinessUser } from '../../src/operations/index.js';
import { signInDashboard, type DashboardClient } from '../support/dashboard-session.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/server.js';

const EMAIL = 'owner@salon.example';
const PASSWORD = 'correct horse battery staple';

let t: TestServer;
let s: DashboardClient;
beforeEach(async () => {
  t = await startTestServer();
  await addBusinessUser(t.server.store, EMAIL, PASSWORD, t.clock.now());
  s = await signInDashboard(t.url, EMAIL, PASSWORD);
});
afterEach(async () => {
  await t.close();
});

const price = async (id = 'svc_haircut') =>
  (await t.call('GET', `/services/${id}`, undefined, { profile: null })).body.service.pricing.amount;
/** Post the service form with `amount` typed, follow the redirect, and answer the page's flash text. */
async function typePrice(amount: string, id = 'svc_haircut'): Promise<string> {
  const res = await s.post(`/admin/ui/services/${id}`, { _csrf: s.csrf, name: 'Haircut & Style', amount });
  expect(res.status).toBe(303);
  const page = await (await s.get(res.headers.get('location')!)).text();
  return /<p class="flash[^"]*"[^>]*>([^<]*)<\/p>/.exec(page)?.[1] ?? '';
}

describe('a price typed in dollars is saved as dollars', () => {
  it('USD: "70.00" and "70" both save 7000 minor units, and the flash names the new price and the old one', async () => {
    expect(await price()).toBe(6500);
    const first = await typePrice('70.00');
    expect(await price()).toBe(7000);
    expect(first).toContain('price $70.00 (was $65.00)');
    await typePrice('65');
    expect(await price()).toBe(6500);
    expect(await typePrice('70')).toContain('price $70.00');
    expect(await price()).toBe(7000);
    expect(await typePrice('$1,200.50')).toContain('price $1,200.50');
    expect(await price()).toBe(120050);
  });

  it('the Services screen shows the price in dollars, with its symbol, in the field and its label', async () => {
    const page = await (await s.get('/admin/ui/services')).text();
    expect(page).not.toContain('minor units');
    expect(page).toContain('name="amount" inputmode="decimal" value="65.00"');
    expect(page).toContain('Price (USD, e.g. $65.00)');
  });

  it('ambiguous or impossible amounts are refused in words and change nothing', async () => {
    for (const [typed, words] of [
      ['70.001', 'USD has 2 decimal places, and 3 were typed'],
      ['1,2', 'a comma is read only between thousands'],
      ['70,00', 'a comma is read only between thousands'],
      ['-5', 'cannot be negative'],
      ['seventy', 'write digits'],
    ] as const) {
      const flash = await typePrice(typed);
      expect(flash, typed).toContain(`“${typed}” is not an amount in USD`);
      expect(flash, typed).toContain(words);
      expect(await price(), typed).toBe(6500);
    }
  });

  it('JPY has no minor unit: "700" saves 700, shows as ¥700, and "700.5" is refused', async () => {
    const cur = await t.call('PATCH', '/admin/business', { currency: 'JPY' }, { apiKey: ADMIN_KEY, profile: null });
    expect(cur.status, JSON.stringify(cur.body)).toBe(200);
    expect(await typePrice('700')).toContain('price ¥700');
    expect(await price()).toBe(700);
    expect(await (await s.get('/admin/ui/services')).text()).toContain('name="amount" inputmode="decimal" value="700"');
    expect(await typePrice('700.5')).toContain('JPY has no smaller unit');
    expect(await price()).toBe(700);
  });

  it('a new service priced "15" costs 15 dollars, and the flash says so', async () => {
    const res = await s.post('/admin/ui/services', {
      _csrf: s.csrf,
      id: 'svc_fringe',
      name: 'Fringe trim',
      template: 'svc_haircut',
      amount: '15',
      minutes: '15',
    });
    const page = await (await s.get(res.headers.get('location')!)).text();
    expect(page).toContain('Added Fringe trim: price $15.00, length 15 minutes');
    expect(await price('svc_fringe')).toBe(1500);
  });
});
