/**
 * A paid checkout is applied once, whatever the event that reports it: the same Stripe payment
 * reported again under a new event id (a second integration forwarding Stripe's events, or the
 * business's own reconciliation through POST /admin/payments/events) is recorded and changes
 * nothing: the booking stays confirmed and paid, no refund is asked of Stripe, no event is sent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY } from '../support/server.js';
import { bookingOf, eventsOf, paidBooking, sessionOf, settleJobs, startStripeRig, type StripeRig } from './helpers.js';

describe('a paid Stripe session reported again under a new event id', () => {
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

  const unchangedAndNotRefunded = async (before: any) => {
    await settleJobs(rig.t, booking.id);
    const after = await bookingOf(rig.t, booking.id);
    expect([after.status, after.revision, after.payment.status]).toEqual(['confirmed', before.revision, 'paid']);
    expect(rig.stripe.refunds).toEqual([]);
    const jobs = await rig.t.server.store.read((tx) => tx.payments.forBooking(booking.id));
    expect(jobs.map((j) => j.kind)).toEqual(['checkout']);
    expect(await eventsOf(rig.t, booking.id)).toEqual(['booking.confirmed']);
  };

  it('through the webhook (a second integration re-signing the same session under its own event id): 200, no refund', async () => {
    const before = await bookingOf(rig.t, booking.id);
    expect(await rig.stripe.deliver({ ...structuredClone(paid), id: 'evt_other_integration_1' })).toBe(200);
    expect(
      await rig.stripe.deliver({
        ...structuredClone(paid),
        id: 'evt_other_integration_2',
        type: 'checkout.session.async_payment_succeeded',
      }),
    ).toBe(200);
    await unchangedAndNotRefunded(before);
  });

  it("through the business's reconciliation (POST /admin/payments/events): already_in_state, no refund", async () => {
    const before = await bookingOf(rig.t, booking.id);
    const o = paid.data.object;
    const event = {
      type: 'checkout_completed',
      event_id: 'reconciliation-2026-12-05-1',
      booking_id: booking.id,
      action_id: o.metadata.action_id,
      session_id: o.id,
      paid: true,
      amount: o.amount_total,
      currency: o.currency,
      payment_ref: o.payment_intent,
    };
    const res = await rig.t.call(
      'POST',
      '/admin/payments/events',
      { provider: 'stripe', event },
      { apiKey: ADMIN_KEY },
    );
    expect(res.status).toBe(200);
    expect(res.body.messages).toEqual([expect.objectContaining({ type: 'info', code: 'already_in_state' })]);
    await unchangedAndNotRefunded(before);
  });
});
