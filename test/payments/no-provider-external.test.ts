/**
 * Without a payment provider the server starts but serves the services paid when booking as
 * `suspended`, saying why (pay-at-the-appointment services work as before), and an external checkout gets a template filled with the booking, the action, the
 * amount, the currency and our return page, which sends the buyer back to the platform.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, BUYER, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';

async function book(t: TestServer, serviceId: string, extra: Record<string, unknown> = {}) {
  const q = await t.call(
    'POST',
    '/availability/query',
    { service_id: serviceId, start_date: day(3), end_date: day(3) },
    { apiKey: ADMIN_KEY },
  );
  return t.call(
    'POST',
    '/bookings',
    { service_id: serviceId, slot_id: q.body.slots[0].id, buyer: BUYER, ...extra },
    { apiKey: ADMIN_KEY },
  );
}

describe('without a payment provider', () => {
  let t: TestServer;
  afterEach(() => t?.close());

  it('a service paid when booking is served suspended (spec 3.3), says why in its description and the profile, offers no slot and takes no hold or booking (slot_unavailable)', async () => {
    const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
    const log = {
      debug() {},
      info() {},
      error() {},
      warn: (m: string, f?: Record<string, unknown>) => void warnings.push([m, f]),
    };
    t = await startTestServer({ sandbox: false, log: log as never });
    const svc = (await t.call('GET', '/services/svc_massage_60')).body.service;
    expect(svc.status).toBe('suspended');
    expect(svc.description).toMatch(
      /Not bookable right now: it is paid online when booking, and this business has not set up online payment yet\.$/,
    );
    expect((await t.call('POST', '/services/list', {})).body.services.map((s: any) => s.id)).not.toContain(
      'svc_massage_60',
    );
    const profile = (await t.call('GET', '/.well-known/usp')).body;
    const entry = profile.usp.capabilities['dev.usp-protocol.services.bookings'][0];
    expect(entry.suspended_services.map((s: any) => s.service_id)).toEqual([
      'svc_massage_60',
      'svc_bridal_trial',
      'svc_home_blowout',
    ]);
    expect(entry.suspended_services[0].reason).toContain('online payment');
    const q = await t.call(
      'POST',
      '/availability/query',
      { service_id: 'svc_massage_60', start_date: day(3), end_date: day(3) },
      { apiKey: ADMIN_KEY },
    );
    expect([q.status, q.body.slots, q.body.messages.map((m: any) => m.code)]).toEqual([200, [], ['slot_unavailable']]);
    const h = await t.call(
      'POST',
      '/availability/holds',
      { service_id: 'svc_massage_60', slot_id: 'slot_any' },
      { apiKey: ADMIN_KEY },
    );
    expect([h.status, h.body.hold, h.body.messages.map((m: any) => m.code)]).toEqual([
      200,
      undefined,
      ['slot_unavailable'],
    ]);
    const b = await t.call(
      'POST',
      '/bookings',
      { service_id: 'svc_massage_60', slot_id: 'slot_any', buyer: BUYER },
      { apiKey: ADMIN_KEY },
    );
    expect([b.status, b.body.booking, b.body.messages.map((m: any) => m.code)]).toEqual([
      200,
      undefined,
      ['slot_unavailable'],
    ]);
    expect(b.body.messages[0].content).toContain('online payment');
    // Said at start, naming the services and the flags that enable them.
    const said = warnings.find(([m]) => m.startsWith('no payment provider'));
    expect(said?.[1]?.services).toEqual(['svc_massage_60', 'svc_bridal_trial', 'svc_home_blowout']);
    expect(String(said?.[1]?.enable_with)).toContain('--payments stripe');
  });

  it('a service paid at the appointment is booked as before', async () => {
    t = await startTestServer({ sandbox: false });
    const b = await book(t, 'svc_haircut');
    expect(b.status).toBe(201);
    expect(b.body.booking.status).toBe('confirmed');
  });

  it('the sandbox (and the demo) keeps its own checkout page', async () => {
    t = await startTestServer({ sandbox: true });
    const b = await book(t, 'svc_massage_60');
    expect(b.body.booking.status).toBe('requires_action');
    expect(new URL(b.body.booking.actions[0].continue_url).pathname).toBe(`/checkout/${b.body.booking.id}`);
  });
});

describe('an external checkout URL template', () => {
  let t: TestServer;
  afterEach(() => t?.close());

  it('fills {booking_id}, {action_id}, {amount}, {currency} and {return_url}; the return page sends the buyer back to the platform', async () => {
    const template =
      'https://pay.example/start?b={booking_id}&a={action_id}&amount={amount}&c={currency}&back={return_url}';
    t = await startTestServer({ sandbox: false, business: demoBusiness({ checkout_url_template: template }) });
    const b = await book(t, 'svc_massage_60', {
      post_payment_return_request: { url: 'https://platform.example/return', params: { s: '42' } },
    });
    const booking = b.body.booking;
    const u = new URL(booking.actions[0].continue_url);
    expect(u.origin).toBe('https://pay.example');
    expect(u.searchParams.get('b')).toBe(booking.id);
    expect(u.searchParams.get('a')).toMatch(/^act_/);
    expect([u.searchParams.get('amount'), u.searchParams.get('c')]).toEqual(['11000', 'USD']);
    const back = u.searchParams.get('back')!;
    expect(back).toBe(`${t.url}/checkout/${booking.id}/return`);
    const res = await fetch(back, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://platform.example/return?s=42');
  });

  it('without a platform return URL the return page shows the checkout while unpaid', async () => {
    t = await startTestServer({
      sandbox: false,
      business: demoBusiness({ checkout_url_template: 'https://pay.example/{booking_id}?back={return_url}' }),
    });
    const booking = (await book(t, 'svc_massage_60')).body.booking;
    const res = await fetch(`${t.url}/checkout/${booking.id}/return`, { redirect: 'manual' });
    expect([res.status, res.headers.get('location')]).toEqual([303, `/checkout/${booking.id}`]);
  });
});
