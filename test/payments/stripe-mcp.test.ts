/**
 * The paid flow through MCP: a booking made with usp_bookings_create gets its Stripe session after
 * commit, the buyer pays on it, and the platform's MCP session hears booking.confirmed from the
 * signed checkout.session.completed, then booking.refund_issued once Stripe confirms the refund of a
 * cancellation made with usp_bookings_cancel.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectMcp, meta, waitFor, type McpConn } from '../mcp/helpers.js';
import { BUYER, day } from '../support/server.js';
import { sessionOf, settleJobs, startStripeRig, type StripeRig } from './helpers.js';

describe('a paid booking through MCP and Stripe', () => {
  let rig: StripeRig;
  let conn: McpConn;
  beforeEach(async () => {
    rig = await startStripeRig();
    conn = await connectMcp('v2', 'http', rig.t);
  });
  afterEach(async () => {
    await conn.close();
    await rig.close();
  });

  it('usp_bookings_create -> Stripe session -> signed completed event -> confirmed, and the cancel refund is announced', async () => {
    const q = await conn.call('usp_availability_query', {
      service_id: 'svc_massage_60',
      start_date: day(3),
      end_date: day(3),
      ...meta(),
    });
    const slot = q.structuredContent.slots[0];
    const made = await conn.call('usp_bookings_create', {
      service_id: 'svc_massage_60',
      slot_id: slot.id,
      buyer: BUYER,
      ...meta(),
    });
    const booking = made.structuredContent.booking;
    expect(booking.status).toBe('requires_action');
    const s = await sessionOf(rig, booking.id);
    expect(await rig.stripe.deliver(rig.stripe.pay(s.id))).toBe(200);
    await rig.t.server.dispatcher.tick();
    await waitFor(() => conn.notifications.some((n) => n.event === 'booking.confirmed' && n.booking_id === booking.id));
    const got = await conn.call('usp_bookings_get', { booking_id: booking.id, ...meta() });
    expect(got.structuredContent.booking.payment.status).toBe('paid');

    const canceled = await conn.call('usp_bookings_cancel', { booking_id: booking.id, ...meta() });
    expect(canceled.structuredContent.booking.status).toBe('canceled');
    await settleJobs(rig.t, booking.id);
    await rig.t.server.dispatcher.tick();
    await waitFor(() =>
      conn.notifications.some((n) => n.event === 'booking.refund_issued' && n.refund_amount === 11000),
    );
  });
});
