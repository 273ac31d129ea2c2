/**
 * The business refunds a booking's payment itself (`POST /admin/bookings/{id}/refund`, the
 * dashboard's Money card): business only and audited; through Stripe the refund is asked once after
 * commit with an idempotency key and booking.refund_issued follows Stripe's confirmation; without a
 * provider it is recorded at once; never more than was paid and not yet refunded.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addBusinessUser } from '../../src/operations/index.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/server.js';
import { bookingOf, eventsOf, paidBooking, sessionOf, settleJobs, startStripeRig, type StripeRig } from './helpers.js';

const admin = (t: TestServer, method: string, path: string, body?: unknown, opts: Record<string, unknown> = {}) =>
  t.call(method, path, body, { apiKey: ADMIN_KEY, profile: null, ...opts });
const refundCalls = (rig: StripeRig) => rig.stripe.requests.filter((r) => r.path === '/v1/refunds');

describe('a refund the business makes through Stripe', () => {
  let rig: StripeRig;
  let booking: any;
  let intent: string;
  beforeEach(async () => {
    rig = await startStripeRig();
    booking = await paidBooking(rig.t);
    const paid = rig.stripe.pay((await sessionOf(rig, booking.id)).id);
    expect(await rig.stripe.deliver(paid)).toBe(200);
    intent = paid.data.object.payment_intent;
  });
  afterEach(() => rig.close());

  it('is asked of Stripe once after commit with an idempotency key, recorded, and booking.refund_issued follows the confirmation', async () => {
    const r = await admin(
      rig.t,
      'POST',
      `/admin/bookings/${booking.id}/refund`,
      { amount: 4000, reason: 'Started late' },
      { idempotencyKey: 'refund-once' },
    );
    expect(r.status).toBe(200);
    expect(r.body.messages ?? []).toEqual([]);
    // Not yet refunded: Stripe is asked after commit, and the platform hears nothing until it confirms.
    expect(r.body.booking.payment.status).toBe('paid');
    expect(refundCalls(rig)).toEqual([]);
    expect(await eventsOf(rig.t, booking.id)).toEqual(['booking.confirmed']);
    // The same call again (a retry) is replayed, not a second refund.
    const again = await admin(
      rig.t,
      'POST',
      `/admin/bookings/${booking.id}/refund`,
      { amount: 4000, reason: 'Started late' },
      { idempotencyKey: 'refund-once' },
    );
    expect(again.status).toBe(200);
    await settleJobs(rig.t, booking.id);
    expect(refundCalls(rig).map((c) => [c.idempotencyKey, c.body.amount, c.body.payment_intent])).toEqual([
      [`refund:${booking.id}:1`, '4000', intent],
    ]);
    expect(rig.stripe.refunds.map((x) => x.amount)).toEqual([4000]);
    expect((await bookingOf(rig.t, booking.id)).payment.status).toBe('partially_refunded');
    expect(await eventsOf(rig.t, booking.id)).toEqual(['booking.confirmed', 'booking.refund_issued']);
    const all = await rig.t.server.store.read((tx) => tx.outbox.recent(50));
    expect(all.find((e) => e.event === 'booking.refund_issued')!.payload).toMatchObject({ refund_amount: 4000 });
    // Stripe's own charge.refunded for that refund announces nothing twice.
    expect(await rig.stripe.deliver(rig.stripe.refundDirectly(intent, 0))).toBe(200);
    expect(await eventsOf(rig.t, booking.id)).toEqual(['booking.confirmed', 'booking.refund_issued']);
    const audit = await admin(rig.t, 'GET', '/admin/audit');
    expect(audit.body.entries.filter((e: any) => e.action === 'refund_booking_payment')).toEqual([
      expect.objectContaining({ target: booking.id, outcome: 'ok' }),
    ]);
    const h = await admin(rig.t, 'GET', `/admin/bookings/${booking.id}`);
    expect([h.body.money.refunded, h.body.money.refundable]).toEqual([4000, 7000]);
    expect(h.body.money.business_refunds).toEqual([
      expect.objectContaining({ amount: 4000, reason: 'Started late', through_provider: true }),
    ]);
  });

  it('without an amount refunds all that is left, and the booking reads refunded', async () => {
    await admin(rig.t, 'POST', `/admin/bookings/${booking.id}/refund`, { amount: 1000, reason: 'Goodwill' });
    await settleJobs(rig.t, booking.id);
    const r = await admin(rig.t, 'POST', `/admin/bookings/${booking.id}/refund`, { reason: 'Service not given' });
    expect(r.body.messages ?? []).toEqual([]);
    await settleJobs(rig.t, booking.id);
    expect(refundCalls(rig).map((c) => [c.idempotencyKey, c.body.amount])).toEqual([
      [`refund:${booking.id}:1`, '1000'],
      [`refund:${booking.id}:2`, '10000'],
    ]);
    expect((await bookingOf(rig.t, booking.id)).payment.status).toBe('refunded');
    expect(await eventsOf(rig.t, booking.id)).toEqual([
      'booking.confirmed',
      'booking.refund_issued',
      'booking.refund_issued',
    ]);
  });

  it('more than was paid and not yet refunded is refused with the limit named, and nothing is asked of Stripe', async () => {
    await admin(rig.t, 'POST', `/admin/bookings/${booking.id}/refund`, { amount: 4000, reason: 'Started late' });
    // Still only requested (not confirmed): it counts against what is left all the same.
    const over = await admin(rig.t, 'POST', `/admin/bookings/${booking.id}/refund`, { amount: 7001, reason: 'Again' });
    expect(over.status).toBe(200);
    expect(over.body.messages).toEqual([
      expect.objectContaining({ type: 'error', code: 'validation_error', path: '$.amount' }),
    ]);
    expect(over.body.messages[0].content).toMatch(/At most \$70\.00 can be refunded/);
    await settleJobs(rig.t, booking.id);
    expect(refundCalls(rig).map((c) => c.body.amount)).toEqual(['4000']);
    await admin(rig.t, 'POST', `/admin/bookings/${booking.id}/refund`, { reason: 'The rest' });
    await settleJobs(rig.t, booking.id);
    const none = await admin(rig.t, 'POST', `/admin/bookings/${booking.id}/refund`, { amount: 1, reason: 'One more' });
    expect(none.body.messages).toEqual([
      expect.objectContaining({ code: 'validation_error', content: 'Nothing paid on this booking is left to refund.' }),
    ]);
    expect(rig.stripe.refunds.map((x) => x.amount)).toEqual([4000, 7000]);
    const bad = await admin(rig.t, 'POST', `/admin/bookings/${booking.id}/refund`, { amount: 0, reason: '' });
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_request']);
  });

  it('a platform key is refused and nothing is refunded', async () => {
    const r = await rig.t.call('POST', `/admin/bookings/${booking.id}/refund`, { reason: 'Platform wants money back' });
    expect(r.status).toBe(401);
    const created = await admin(rig.t, 'POST', '/admin/api-keys', { label: 'Salon app' });
    const withKey = await rig.t.call(
      'POST',
      `/admin/bookings/${booking.id}/refund`,
      { reason: 'Platform wants money back' },
      { apiKey: created.body.secret, profile: null },
    );
    expect(withKey.status).toBe(401);
    await settleJobs(rig.t, booking.id);
    expect(refundCalls(rig)).toEqual([]);
    expect(
      (await rig.t.server.store.read((tx) => tx.payments.forBooking(booking.id))).filter((j) => j.kind === 'refund'),
    ).toEqual([]);
  });

  it("the dashboard's refund form (with the session's CSRF token) asks Stripe for the amount typed; without the token it changes nothing", async () => {
    const s = await signIn(rig.t);
    const page = await (await s.get(`/admin/ui/bookings/${booking.id}`)).text();
    expect(page).toContain(`action="/admin/ui/bookings/${booking.id}/refund"`);
    const forged = await s.post(`/admin/ui/bookings/${booking.id}/refund`, { amount: '30.00', reason: 'Forged' });
    expect(forged.status).toBe(403);
    const done = await s.post(`/admin/ui/bookings/${booking.id}/refund`, {
      _csrf: s.csrf,
      amount: '30.00',
      reason: 'Music too loud',
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`/admin/ui/bookings/${booking.id}?ok=refunded`);
    await settleJobs(rig.t, booking.id);
    expect(rig.stripe.refunds.map((x) => x.amount)).toEqual([3000]);
    const after = await (await s.get(`/admin/ui/bookings/${booking.id}?ok=refunded`)).text();
    expect(after).toContain(rig.stripe.refunds[0].id);
    expect(after).toContain('up to $80.00');
  });
});

describe('a refund the business makes without a provider (sandbox) is recorded at once', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  it('payment reads partially_refunded, booking.refund_issued is sent, and a later cancellation refunds only the rest', async () => {
    const booking = await paidBooking(t);
    const paid = await t.call('POST', `/bookings/${booking.id}/confirm-payment`, {
      payment_result: {
        status: 'paid',
        transaction_id: 'txn_1',
        amount_paid: 11000,
        currency: 'USD',
        provider: 'test',
      },
    });
    expect(paid.body.booking.status).toBe('confirmed');
    const r = await admin(t, 'POST', `/admin/bookings/${booking.id}/refund`, { amount: 2500, reason: 'Started late' });
    expect(r.body.messages ?? []).toEqual([]);
    expect(r.body.booking.payment.status).toBe('partially_refunded');
    expect(r.body.booking.revision).not.toBe(paid.body.booking.revision);
    expect(await eventsOf(t, booking.id)).toEqual(['booking.confirmed', 'booking.refund_issued']);
    const over = await admin(t, 'POST', `/admin/bookings/${booking.id}/refund`, { amount: 8501, reason: 'Too much' });
    expect(over.body.messages[0]).toMatchObject({ code: 'validation_error', path: '$.amount' });
    const c = await admin(t, 'POST', `/bookings/${booking.id}/cancel`, {});
    expect(c.body.booking.cancellation.refund_amount).toBe(8500);
    const h = await admin(t, 'GET', `/admin/bookings/${booking.id}`);
    expect([h.body.money.paid, h.body.money.refunded, h.body.money.refundable]).toEqual([11000, 11000, 0]);
  });
});

/** A signed-in dashboard session (cookie jar) and the page's CSRF token. */
async function signIn(t: TestServer) {
  await addBusinessUser(t.server.store, 'owner@salon.example', 'correct horse battery staple', t.clock.now());
  const jar = new Map<string, string>();
  const cookies = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const keep = (res: Response) => {
    for (const sc of res.headers.getSetCookie()) {
      const [pair] = sc.split(';');
      jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    return res;
  };
  const get = async (path: string) =>
    keep(await fetch(t.url + path, { headers: { cookie: cookies() }, redirect: 'manual' }));
  const post = async (path: string, form: Record<string, string>) =>
    keep(
      await fetch(t.url + path, {
        method: 'POST',
        headers: { cookie: cookies(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
        redirect: 'manual',
      }),
    );
  const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  await post('/admin/login', {
    _csrf: csrfOf(await (await get('/admin/login')).text()),
    email: 'owner@salon.example',
    password: 'correct horse battery staple',
  });
  const csrf = csrfOf(await (await get('/admin')).text());
  expect(csrf).not.toBe('');
  return { get, post, csrf };
}
