/**
 * The hosted checkout page behind a payment action's continue_url (spec 8.5.4, 8.5.5): it shows
 * what is due without buyer data, says so explicitly once the link has expired, and (in a sandbox
 * only) pays or abandons and sends the buyer back to the platform's return URL, params verbatim.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BUYER, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';

async function paidBooking(t: TestServer, returnRequest?: unknown) {
  const q = await t.call('POST', '/availability/query', { service_id: 'svc_massage_60', start_date: day(2), end_date: day(2) });
  const body: Record<string, unknown> = { service_id: 'svc_massage_60', slot_id: q.body.slots[0].id, buyer: BUYER };
  if (returnRequest) body.post_payment_return_request = returnRequest;
  const b = await t.call('POST', '/bookings', body);
  expect(b.status).toBe(201);
  return b.body.booking;
}

const pathOf = (url: string) => new URL(url).pathname;

async function form(t: TestServer, path: string, choice: string) {
  return fetch(t.url + path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `choice=${choice}`, redirect: 'manual' });
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
    t = await startTestServer({ sandbox: false, business: demoBusiness({ checkout_url_template: 'https://pay.example/checkout?b={booking_id}' }) });
    // A booking made by the business itself (admin key) so no platform authentication is needed.
    const q = await t.call('POST', '/availability/query', { service_id: 'svc_massage_60', start_date: day(2), end_date: day(2) });
    const { ADMIN_KEY } = await import('../support/server.js');
    const b = await t.call('POST', '/bookings', { service_id: 'svc_massage_60', slot_id: q.body.slots[0].id, buyer: BUYER }, { apiKey: ADMIN_KEY });
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
