/**
 * A booking that ends while its payment is still due closes its Stripe Checkout Session: the
 * cancellation (a platform's, on either door) writes a job in its own transaction, and the payment
 * worker expires the session after commit (POST /v1/checkout/sessions/{id}/expire, the job id as
 * idempotency key), so the buyer can no longer pay for a booking that is gone (a payment then would
 * be refunded in full, the business paying the fee). A session made after the booking ended is
 * closed as soon as it is made; one the buyer paid in the meantime is left as it is, and refunded.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectMcp, meta, type McpConn } from '../mcp/helpers.js';
import { bookingOf, paidBooking, sessionOf, settleJobs, startStripeRig, type StripeRig } from './helpers.js';

const expireCalls = (rig: StripeRig) =>
  rig.stripe.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/expire'));

describe('a canceled booking closes its open Stripe Checkout Session', () => {
  let rig: StripeRig;
  beforeEach(async () => {
    rig = await startStripeRig();
  });
  afterEach(() => rig.close());

  it('REST cancel: the session is expired after commit, once, and the buyer can no longer pay on it', async () => {
    const b = await paidBooking(rig.t);
    const s = await sessionOf(rig, b.id);
    const res = await rig.t.call('POST', `/bookings/${b.id}/cancel`, {});
    expect(res.body.booking.status).toBe('canceled');
    // Nothing leaves the process inside the cancel's transaction.
    expect(expireCalls(rig)).toEqual([]);
    await settleJobs(rig.t, b.id);
    expect(rig.stripe.sessions.get(s.id)!.status).toBe('expired');
    expect(expireCalls(rig).map((r) => [r.path, r.idempotencyKey])).toEqual([
      [`/v1/checkout/sessions/${s.id}/expire`, `expire:${s.id}`],
    ]);
    const page = await fetch(s.url, { method: 'POST', redirect: 'manual' });
    expect(page.status).toBe(410);
    // Stripe's own checkout.session.expired that follows changes nothing.
    const before = await bookingOf(rig.t, b.id);
    expect(await rig.stripe.deliver(rig.stripe.expiredEvents[0])).toBe(200);
    const after = await bookingOf(rig.t, b.id);
    expect([after.status, after.revision]).toEqual(['canceled', before.revision]);
    expect(rig.stripe.refunds).toEqual([]);
  });

  it('MCP cancel (usp_bookings_cancel) closes the session the same way', async () => {
    const conn: McpConn = await connectMcp('v2', 'http', rig.t);
    try {
      const b = await paidBooking(rig.t);
      const s = await sessionOf(rig, b.id);
      const canceled = await conn.call('usp_bookings_cancel', { booking_id: b.id, ...meta() });
      expect(canceled.structuredContent.booking.status).toBe('canceled');
      await settleJobs(rig.t, b.id);
      expect(rig.stripe.sessions.get(s.id)!.status).toBe('expired');
    } finally {
      await conn.close();
    }
  });

  it('a booking canceled before its session was made: the session is expired as soon as it exists', async () => {
    const b = await paidBooking(rig.t);
    expect((await rig.t.call('POST', `/bookings/${b.id}/cancel`, {})).body.booking.status).toBe('canceled');
    await settleJobs(rig.t, b.id);
    const [s] = [...rig.stripe.sessions.values()];
    expect(s.status).toBe('expired');
    const jobs = await rig.t.server.store.read((tx) => tx.payments.forBooking(b.id));
    expect(jobs.map((j) => [j.kind, j.status])).toEqual([
      ['checkout', 'done'],
      ['expire_checkout', 'done'],
    ]);
  });

  it('a session the buyer paid just before the cancel reached Stripe is left as it is: the expire job ends done and the payment is refunded', async () => {
    const b = await paidBooking(rig.t);
    const s = await sessionOf(rig, b.id);
    expect((await rig.t.call('POST', `/bookings/${b.id}/cancel`, {})).body.booking.status).toBe('canceled');
    expect(await rig.stripe.deliver(rig.stripe.pay(s.id))).toBe(200);
    await settleJobs(rig.t, b.id);
    const jobs = await rig.t.server.store.read((tx) => tx.payments.forBooking(b.id));
    expect(jobs.find((j) => j.kind === 'expire_checkout')).toMatchObject({
      status: 'done',
      result: { status: 'complete' },
    });
    expect(rig.stripe.refunds.map((r) => r.amount)).toEqual([s.amount_total]);
  });

  it("a booking whose payment window lapses (our own expiry, before Stripe's) closes its session too", async () => {
    const b = await paidBooking(rig.t);
    const s = await sessionOf(rig, b.id);
    rig.t.clock.set(Date.parse(b.expires_at) + 1000);
    expect((await bookingOf(rig.t, b.id)).status).toBe('canceled');
    await settleJobs(rig.t, b.id);
    expect(rig.stripe.sessions.get(s.id)!.status).toBe('expired');
  });

  it('a paid booking canceled later has no session to close', async () => {
    const b = await paidBooking(rig.t);
    const s = await sessionOf(rig, b.id);
    expect(await rig.stripe.deliver(rig.stripe.pay(s.id))).toBe(200);
    expect((await rig.t.call('POST', `/bookings/${b.id}/cancel`, {})).body.booking.status).toBe('canceled');
    await settleJobs(rig.t, b.id);
    expect(expireCalls(rig)).toEqual([]);
  });
});
