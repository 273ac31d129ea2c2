/**
 * Paying through Stripe: a payment action gets a Checkout Session after commit (never inside the
 * booking's transaction), for exactly what is due, once per action however often the create is
 * retried; a signed checkout.session.completed completes the action as confirm_payment does, an
 * expired session lapses it, and an amount that does not match changes nothing but the record.
 * What every provider does (the checkout made, paid, expired) is in provider-flows.test.ts, run on
 * Stripe and on the test-only Acme adapter; what is Stripe's own (its 5xx replays, its forms) is here.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bookingOf, eventsOf, paidBooking, sessionOf, settleJobs, startStripeRig, type StripeRig } from './helpers.js';

describe('a payment action is paid on a Stripe Checkout Session', () => {
  let rig: StripeRig;
  beforeEach(async () => {
    rig = await startStripeRig();
  });
  afterEach(() => rig.close());

  it('the booking commits with a payment job and no session; the worker then creates one for exactly amount_due with the action in its metadata', async () => {
    const b = await paidBooking(rig.t);
    expect(b.status).toBe('requires_action');
    expect(rig.stripe.requests).toHaveLength(0);
    const jobs = await rig.t.server.store.read((tx) => tx.payments.forBooking(b.id));
    expect(jobs.map((j) => [j.kind, j.status])).toEqual([['checkout', 'pending']]);
    const s = await sessionOf(rig, b.id);
    const due = b.actions[0].payment_context;
    expect([s.amount_total, s.currency, s.mode]).toEqual([due.amount_due, due.currency.toLowerCase(), 'payment']);
    expect(s.client_reference_id).toBe(b.id);
    expect(s.metadata.booking_id).toBe(b.id);
    expect(s.metadata.action_id).toMatch(/^act_/);
    expect(rig.stripe.requests[0].idempotencyKey).toBe(`checkout:${s.metadata.action_id}`);
    // Stripe's 30-minute floor: the 30-minute payment window gets a session that outlives it a little.
    expect(s.expires_at * 1000).toBeGreaterThanOrEqual(rig.t.clock.now() + 30 * 60_000);
    expect(s.success_url).toBe(`${rig.t.url}/checkout/${b.id}/return?result=paid`);
  });

  it('a create answered with a 5xx (which Stripe replays under its key) is retried under a new key and makes one session', async () => {
    rig.stripe.failNext('/v1/checkout/sessions');
    const b = await paidBooking(rig.t);
    await rig.t.server.paymentWorker!.tick();
    const [job] = await rig.t.server.store.read((tx) => tx.payments.forBooking(b.id));
    expect([job.status, job.attempts]).toEqual(['pending', 1]);
    expect(job.last_error).toContain('500');
    rig.t.clock.advance(5_000);
    await settleJobs(rig.t, b.id);
    const creates = rig.stripe.requests.filter((r) => r.path === '/v1/checkout/sessions');
    expect(creates.map((r) => r.idempotencyKey)).toEqual([job.id, `${job.id}:r1`]);
    expect(rig.stripe.sessions.size).toBe(1);
  });

  it('a create repeated with the same idempotency key (a lost answer) gets the same session back', async () => {
    const b = await paidBooking(rig.t);
    const s = await sessionOf(rig, b.id);
    const [job] = await rig.t.server.store.read((tx) => tx.payments.forBooking(b.id));
    const { stripeProvider } = await import('../../src/payments/index.js');
    const p = stripeProvider({
      secretKey: rig.stripe.secretKey,
      webhookSecret: rig.stripe.webhookSecret,
      apiUrl: rig.stripe.url,
    });
    const again = await p.createCheckout({ key: job.id, ...(job.payload as any) });
    expect(again.id).toBe(s.id);
    expect(rig.stripe.sessions.size).toBe(1);
  });

  it('a paid amount that does not match is recorded as a mismatch and the booking stays as it is', async () => {
    const b = await paidBooking(rig.t);
    const s = await sessionOf(rig, b.id);
    const due = s.amount_total;
    expect(await rig.stripe.deliver(rig.stripe.pay(s.id, { amount: due - 1 }))).toBe(200);
    const after = await bookingOf(rig.t, b.id);
    expect([after.status, after.revision, after.payment.status]).toEqual(['requires_action', b.revision, 'pending']);
    const rec = await rig.t.server.store.read((tx) => tx.bookings.get(b.id));
    expect(rec!.priv.provider!.mismatches).toEqual([expect.objectContaining({ amount: due - 1 })]);
    expect(await eventsOf(rig.t, b.id)).toEqual([]);
  });

  it('a payment that lands after the payment window closed does not revive the booking and is refunded', async () => {
    const b = await paidBooking(rig.t);
    const s = await sessionOf(rig, b.id);
    rig.t.clock.set(Date.parse(b.expires_at) + 1000);
    expect(await rig.stripe.deliver(rig.stripe.pay(s.id))).toBe(200);
    expect((await bookingOf(rig.t, b.id)).status).toBe('canceled');
    await settleJobs(rig.t, b.id);
    expect(rig.stripe.refunds.map((r) => r.amount)).toEqual([s.amount_total]);
  });

  it('the return page sends the buyer on to the platform return URL with its params (spec 8.5.5)', async () => {
    const b = await paidBooking(rig.t, {
      post_payment_return_request: { url: 'https://platform.example/back', params: { session: 'abc 1' } },
    });
    const res = await fetch(`${rig.t.url}/checkout/${b.id}/return?result=paid`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://platform.example/back?session=abc+1');
  });
});
