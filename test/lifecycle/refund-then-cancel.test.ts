/**
 * A business refund followed by a cancellation: the cancellation refunds, and records, only what
 * is left of what was collected, through Stripe as without a provider.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/server.js';
import { bookingOf, paidBooking, sessionOf, settleJobs, startStripeRig, type StripeRig } from '../payments/helpers.js';

const admin = (t: TestServer, method: string, path: string, body?: unknown) =>
  t.call(method, path, body, { apiKey: ADMIN_KEY, profile: null });

describe('a cancellation after a partial refund by the business (through Stripe)', () => {
  let rig: StripeRig;
  let booking: any;
  beforeEach(async () => {
    rig = await startStripeRig();
    booking = await paidBooking(rig.t);
    expect(await rig.stripe.deliver(rig.stripe.pay((await sessionOf(rig, booking.id)).id))).toBe(200);
  });
  afterEach(() => rig.close());

  it('records as refund_amount only what was not refunded already, and asks Stripe for no more than that', async () => {
    await admin(rig.t, 'POST', `/admin/bookings/${booking.id}/refund`, { amount: 4000, reason: 'Started late' });
    await settleJobs(rig.t, booking.id);
    const c = await admin(rig.t, 'POST', `/bookings/${booking.id}/cancel`, {});
    expect(c.status).toBe(200);
    expect(c.body.booking.cancellation.refund_amount).toBe(7000);
    await settleJobs(rig.t, booking.id);
    expect(rig.stripe.refunds.map((x) => x.amount)).toEqual([4000, 7000]);
    expect((await bookingOf(rig.t, booking.id)).payment.status).toBe('refunded');
    const h = await admin(rig.t, 'GET', `/admin/bookings/${booking.id}`);
    expect([h.body.money.paid, h.body.money.refunded, h.body.money.refundable]).toEqual([11000, 11000, 0]);
  });

  it('a refund still only requested (not yet confirmed) counts as given back all the same', async () => {
    await admin(rig.t, 'POST', `/admin/bookings/${booking.id}/refund`, { amount: 2500, reason: 'Goodwill' });
    const c = await admin(rig.t, 'POST', `/bookings/${booking.id}/cancel`, {});
    expect(c.body.booking.cancellation.refund_amount).toBe(8500);
    await settleJobs(rig.t, booking.id);
    expect(rig.stripe.refunds.map((x) => x.amount).reduce((a, b) => a + b, 0)).toBe(11000);
  });
});

describe('a buyer cancellation with a late fee after a partial refund (no provider)', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  it('refunds what was collected less the earlier refund, never more than is left', async () => {
    const booking = await paidBooking(t);
    await t.call('POST', `/bookings/${booking.id}/confirm-payment`, {
      payment_result: {
        status: 'paid',
        transaction_id: 'txn_1',
        amount_paid: 11000,
        currency: 'USD',
        provider: 'test',
      },
    });
    await admin(t, 'POST', `/admin/bookings/${booking.id}/refund`, { amount: 3000, reason: 'Started late' });
    const c = await t.call('POST', `/bookings/${booking.id}/cancel`, {});
    expect(c.body.booking.cancellation.refund_amount).toBe(8000);
    const h = await admin(t, 'GET', `/admin/bookings/${booking.id}`);
    expect([h.body.money.refunded, h.body.money.refundable]).toEqual([11000, 0]);
  });
});
