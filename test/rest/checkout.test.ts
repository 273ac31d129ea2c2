/**
 * The hosted checkout page behind a payment action's continue_url (spec 8.5.4, 8.5.5): it shows
 * what is due without buyer data, says so explicitly once the link has expired, and (in a sandbox
 * only) pays or abandons and sends the buyer back to the platform's return URL, params verbatim.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BUYER, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';

async function paidBooking(t: TestServer, returnRequest?: unknown) {
  const q = await t.call('POST', '/availability/query', {
    service_id: 'svc_massage_60',
    start_date: day(2),
    end_date: day(2),
  });
  const body: Record<string, unknown> = { service_id: 'svc_massage_60', slot_id: q.body.slots[0].id, buyer: BUYER };
  if (returnRequest) body.post_payment_return_request = returnRequest;
  const b = await t.call('POST', '/bookings', body);
  expect(b.status).toBe(201);
  return b.body.booking;
}

const pathOf = (url: string) => new URL(url).pathname;

/** The buyer's click on the checkout page: its CSRF cookie and form token, then the post. */
async function form(t: TestServer, path: string, choice: string) {
  const page = await fetch(t.url + path, { headers: { Accept: 'text/html' } });
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0];
  // Outside a sandbox the page has no form; the token is the cookie's value all the same (double submit).
  const token = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? cookie.split('=')[1] ?? '';
  return fetch(t.url + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', cookie },
    body: `choice=${choice}&csrf=${token}`,
    redirect: 'manual',
  });
}

describe('the checkout page of a payment action', () => {
  let t: TestServer;
  afterEach(() => t?.close());

  it('shows the amount due as HTML and never the buyer', async () => {
    t = await startTestServer();
    const b = await paidBooking(t);
    const res = await fetch(t.url + pathOf(b.actions[0].continue_url), { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('$110.00');
    expect(html).not.toContain(BUYER.email);
    expect(html).not.toContain(BUYER.last_name);
  });

  it('pays in a sandbox, confirms the booking and redirects to the return URL with its params verbatim', async () => {
    t = await startTestServer();
    const b = await paidBooking(t, { url: 'https://platform.example/return', params: { session: 'abc 1', step: '2' } });
    const res = await form(t, pathOf(b.actions[0].continue_url), 'pay');
    expect(res.status).toBe(303);
    const loc = new URL(res.headers.get('location')!);
    expect(loc.origin + loc.pathname).toBe('https://platform.example/return');
    expect(loc.searchParams.get('session')).toBe('abc 1');
    expect(loc.searchParams.get('step')).toBe('2');
    const after = await t.call('GET', `/bookings/${b.id}`);
    expect(after.body.booking.status).toBe('confirmed');
    expect(after.body.booking.payment.status).toBe('paid');
  });

  it('abandoning also returns to the platform and leaves the booking unpaid', async () => {
    t = await startTestServer();
    const b = await paidBooking(t, { url: 'https://platform.example/return' });
    const res = await form(t, pathOf(b.actions[0].continue_url), 'cancel');
    expect(res.status).toBe(303);
    const after = await t.call('GET', `/bookings/${b.id}`);
    expect(after.body.booking.status).toBe('requires_action');
  });

  it('after the action expires the page says so explicitly (410), not a broken link', async () => {
    t = await startTestServer();
    const b = await paidBooking(t);
    t.clock.set(Date.parse(b.actions[0].expires_at) + 1000);
    const res = await fetch(t.url + pathOf(b.actions[0].continue_url), { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(410);
    expect(await res.text()).toContain('expired');
  });

  it('outside a sandbox the page never takes money', async () => {
    // An external checkout takes the money; our own page (reached directly) still refuses to.
    t = await startTestServer({
      sandbox: false,
      business: demoBusiness({ checkout_url_template: 'https://pay.example/checkout?b={booking_id}' }),
    });
    // A booking made by the business itself (admin key) so no platform authentication is needed.
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_massage_60',
      start_date: day(2),
      end_date: day(2),
    });
    const { ADMIN_KEY } = await import('../support/server.js');
    const b = await t.call(
      'POST',
      '/bookings',
      { service_id: 'svc_massage_60', slot_id: q.body.slots[0].id, buyer: BUYER },
      { apiKey: ADMIN_KEY },
    );
    expect(b.status).toBe(201);
    const res = await form(t, `/checkout/${b.body.booking.id}`, 'pay');
    expect(res.status).toBe(405);
    const after = await t.call('GET', `/bookings/${b.body.booking.id}`, undefined, { apiKey: ADMIN_KEY });
    expect(after.body.booking.status).toBe('requires_action');
  });

  it('an unknown booking has no checkout (404)', async () => {
    t = await startTestServer();
    const res = await fetch(t.url + '/checkout/bkg_nope', { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(404);
  });
});

describe('the checkout form cannot be forged, and its return redirect goes only to the platform that asked', () => {
  let t: TestServer;
  afterEach(() => t?.close());

  it('a checkout post from another site (no CSRF token, or a foreign Sec-Fetch-Site) pays nothing: 403 and the booking still requires_action', async () => {
    t = await startTestServer();
    const b = await paidBooking(t, { url: 'https://platform.example/return' });
    const path = pathOf(b.actions[0].continue_url);
    const bare = await fetch(t.url + path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'choice=pay',
      redirect: 'manual',
    });
    expect(bare.status).toBe(403);
    expect(bare.headers.get('location')).toBeNull();
    // Even with a token and cookie, a browser that says the post came from elsewhere is refused.
    const page = await fetch(t.url + path, { headers: { Accept: 'text/html' } });
    const token = /name="csrf" value="([^"]+)"/.exec(await page.text())![1];
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0];
    const cross = await fetch(t.url + path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', cookie, 'Sec-Fetch-Site': 'cross-site' },
      body: `choice=pay&csrf=${token}`,
      redirect: 'manual',
    });
    expect(cross.status).toBe(403);
    expect((await t.call('GET', `/bookings/${b.id}`)).body.booking.status).toBe('requires_action');
  });

  it('a javascript:, data: or plain http return URL is refused when booking, and nothing is booked', async () => {
    t = await startTestServer();
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_massage_60',
      start_date: day(2),
      end_date: day(2),
    });
    for (const url of [
      'javascript:alert(document.cookie)',
      'data:text/html,<script>alert(1)</script>',
      'http://platform.example/return',
    ]) {
      const r = await t.call('POST', '/bookings', {
        service_id: 'svc_massage_60',
        slot_id: q.body.slots[0].id,
        buyer: BUYER,
        post_payment_return_request: { url },
      });
      expect(r.status, url).not.toBe(201);
      expect(JSON.stringify(r.body), url).toContain('post_payment_return_request');
    }
    expect((await t.call('GET', '/ext/usp-server/bookings')).body.bookings ?? []).toHaveLength(0);
  });

  it("a return URL on another site than the platform profile's origin is refused (an open redirect through the business)", async () => {
    t = await startTestServer();
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_massage_60',
      start_date: day(2),
      end_date: day(2),
    });
    const r = await t.call('POST', '/bookings', {
      service_id: 'svc_massage_60',
      slot_id: q.body.slots[0].id,
      buyer: BUYER,
      post_payment_return_request: { url: 'https://phishing.example/login' },
    });
    expect(r.status).not.toBe(201);
    expect(r.body.messages?.[0]).toMatchObject({ code: 'validation_error', path: '$.post_payment_return_request.url' });
  });
});
