/**
 * Money back through Stripe: a cancellation whose policy refunds asks Stripe for that amount after
 * commit (idempotent per cancellation) and sends booking.refund_issued once Stripe confirms, whether
 * the refund's answer or charge.refunded comes first; Stripe's disputes follow the dispute
 * lifecycle of spec 5.5.2, in any order.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY } from '../support/server.js';
import { bookingOf, eventsOf, paidBooking, sessionOf, settleJobs, startStripeRig, type StripeRig } from './helpers.js';

describe('refunds and disputes through Stripe', () => {
  let rig: StripeRig;
  let booking: any;
  let paid: any;
  beforeEach(async () => {
    rig = await startStripeRig();
    booking = await paidBooking(rig.t);
    const s = await sessionOf(rig, booking.id);
    paid = rig.stripe.pay(s.id);
    expect(await rig.stripe.deliver(paid)).toBe(200);
  });
  afterEach(() => rig.close());
  const intent = () => paid.data.object.payment_intent as string;

  it('a free cancellation refunds the whole payment through Stripe once, and booking.refund_issued follows its confirmation', async () => {
    const c = await rig.t.call('POST', `/bookings/${booking.id}/cancel`, {});
    expect(c.body.booking.status).toBe('canceled');
    expect(c.body.booking.cancellation.refund_amount).toBe(11000);
    // Not yet refunded: Stripe has not been asked (that happens after commit).
    expect(c.body.booking.payment.status).toBe('paid');
    expect(await eventsOf(rig.t, booking.id)).toEqual(['booking.confirmed', 'booking.canceled']);
    await settleJobs(rig.t, booking.id);
    expect(rig.stripe.refunds.map((r) => [r.amount, r.payment_intent])).toEqual([[11000, intent()]]);
    const refundCall = rig.stripe.requests.find((r) => r.path === '/v1/refunds')!;
    expect(refundCall.idempotencyKey).toBe(`refund:${booking.id}:1`);
    const after = await bookingOf(rig.t, booking.id);
    expect(after.payment.status).toBe('refunded');
    expect(await eventsOf(rig.t, booking.id)).toEqual([
      'booking.confirmed',
      'booking.canceled',
      'booking.refund_issued',
    ]);
    // Stripe's own charge.refunded for the same refund adds nothing.
    expect(await rig.stripe.deliver(rig.stripe.refundDirectly(intent(), 0))).toBe(200);
    expect(await eventsOf(rig.t, booking.id)).toEqual([
      'booking.confirmed',
      'booking.canceled',
      'booking.refund_issued',
    ]);
  });

  it('a refund made in the Stripe dashboard (charge.refunded) is recorded and announced', async () => {
    expect(await rig.stripe.deliver(rig.stripe.refundDirectly(intent(), 3000))).toBe(200);
    const after = await bookingOf(rig.t, booking.id);
    expect(after.payment.status).toBe('partially_refunded');
    expect(await eventsOf(rig.t, booking.id)).toEqual(['booking.confirmed', 'booking.refund_issued']);
  });

  it('charge.dispute.created opens the dispute, and closed as lost resolves it for the buyer with a refund', async () => {
    const created = rig.stripe.dispute(intent(), { reason: 'product_not_received' });
    expect(await rig.stripe.deliver(created)).toBe(200);
    let after = await bookingOf(rig.t, booking.id);
    expect([after.status, after.dispute.status, after.dispute.reason, after.payment.status]).toEqual([
      'confirmed',
      'opened',
      'service_not_provided',
      'paid',
    ]);
    expect(await rig.stripe.deliver(rig.stripe.closeDispute(created, 'lost'))).toBe(200);
    after = await bookingOf(rig.t, booking.id);
    expect([after.dispute.status, after.payment.status]).toEqual(['resolved_buyer', 'refunded']);
    expect(await eventsOf(rig.t, booking.id)).toEqual([
      'booking.confirmed',
      'booking.dispute_opened',
      'booking.refund_issued',
      'booking.dispute_resolved',
    ]);
  });

  it("a dispute closed (won) before Stripe's created event arrives is opened and resolved for the business; the late created event adds nothing", async () => {
    const created = rig.stripe.dispute(intent());
    expect(await rig.stripe.deliver(rig.stripe.closeDispute(created, 'won'))).toBe(200);
    expect(await rig.stripe.deliver(created)).toBe(200);
    const after = await bookingOf(rig.t, booking.id);
    expect([after.dispute.status, after.dispute.reason, after.payment.status]).toEqual([
      'resolved_business',
      'unauthorized',
      'paid',
    ]);
    expect(await eventsOf(rig.t, booking.id)).toEqual([
      'booking.confirmed',
      'booking.dispute_opened',
      'booking.dispute_resolved',
    ]);
  });

  it('a cancellation by the business (always a full refund) refunds through Stripe too', async () => {
    const c = await rig.t.call('POST', `/bookings/${booking.id}/cancel`, {}, { apiKey: ADMIN_KEY, profile: null });
    expect(c.body.booking.cancellation.canceled_by).toBe('business');
    await settleJobs(rig.t, booking.id);
    expect(rig.stripe.refunds.map((r) => r.amount)).toEqual([11000]);
    expect((await bookingOf(rig.t, booking.id)).payment.status).toBe('refunded');
  });
});
