/**
 * The Stripe webhook endpoint trusts only what Stripe signed, over the raw body, within the SDK's
 * tolerance (in the past and in the future): a forged, unsigned, stale, future-dated or tampered
 * delivery answers 400 and changes nothing, and a replayed one is applied once (keyed by the Stripe
 * event id, in the store) and answers 200. Unsigned, forged and tampered deliveries are refused in
 * provider-flows.test.ts, for Stripe and the test-only Acme adapter alike.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bookingOf, eventsOf, paidBooking, sessionOf, startStripeRig, type StripeRig } from './helpers.js';

const post = (url: string, body: string, signature?: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(signature ? { 'Stripe-Signature': signature } : {}) },
    body,
  });

describe('the Stripe webhook endpoint', () => {
  let rig: StripeRig;
  let booking: any;
  let payload: string;
  beforeEach(async () => {
    rig = await startStripeRig();
    booking = await paidBooking(rig.t);
    const s = await sessionOf(rig, booking.id);
    payload = JSON.stringify(rig.stripe.pay(s.id));
  });
  afterEach(() => rig.close());

  const unchanged = async () => {
    const after = await bookingOf(rig.t, booking.id);
    expect([after.status, after.revision]).toEqual(['requires_action', booking.revision]);
    expect(await eventsOf(rig.t, booking.id)).toEqual([]);
  };

  it('a delivery signed more than 300 s ago (stale) answers 400 and changes nothing', async () => {
    const stale = rig.stripe.sign(payload, { timestampS: Math.floor(rig.t.clock.now() / 1000) - 301 });
    expect((await post(rig.stripe.webhookUrl!, payload, stale)).status).toBe(400);
    await unchanged();
  });

  it('a delivery signed more than 300 s ahead (dated in the future) answers 400 and changes nothing', async () => {
    const ahead = rig.stripe.sign(payload, { timestampS: Math.floor(rig.t.clock.now() / 1000) + 301 });
    expect((await post(rig.stripe.webhookUrl!, payload, ahead)).status).toBe(400);
    const farAhead = rig.stripe.sign(payload, { timestampS: Math.floor(rig.t.clock.now() / 1000) + 86_400 * 365 });
    expect((await post(rig.stripe.webhookUrl!, payload, farAhead)).status).toBe(400);
    await unchanged();
  });

  it('a delivery signed a little ahead (clock skew inside the tolerance) is applied', async () => {
    const skewed = rig.stripe.sign(payload, { timestampS: Math.floor(rig.t.clock.now() / 1000) + 60 });
    expect((await post(rig.stripe.webhookUrl!, payload, skewed)).status).toBe(200);
    expect((await bookingOf(rig.t, booking.id)).status).toBe('confirmed');
  });

  it('a replayed delivery answers 200 and is applied once', async () => {
    const sig = rig.stripe.sign(payload);
    expect((await post(rig.stripe.webhookUrl!, payload, sig)).status).toBe(200);
    const once = await bookingOf(rig.t, booking.id);
    expect((await post(rig.stripe.webhookUrl!, payload, sig)).status).toBe(200);
    expect((await post(rig.stripe.webhookUrl!, payload, rig.stripe.sign(payload))).status).toBe(200);
    const after = await bookingOf(rig.t, booking.id);
    expect([after.status, after.revision]).toEqual(['confirmed', once.revision]);
    expect(await eventsOf(rig.t, booking.id)).toEqual(['booking.confirmed']);
  });

  it('an event that concerns no booking answers 200 and changes nothing', async () => {
    const other = JSON.stringify({
      id: 'evt_other_1',
      object: 'event',
      type: 'customer.created',
      created: 1,
      livemode: false,
      data: { object: { id: 'cus_1' } },
    });
    expect((await post(rig.stripe.webhookUrl!, other, rig.stripe.sign(other))).status).toBe(200);
    await unchanged();
  });

  it('the endpoint takes only POST', async () => {
    expect((await fetch(rig.stripe.webhookUrl!)).status).toBe(405);
  });
});
