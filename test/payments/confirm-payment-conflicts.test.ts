/**
 * The newer text's confirm-payment conflicts (spec-next 5.3.7, 9.4.3), on both doors: a payment with
 * no price to check it against is 409 `payment_unverifiable`, a payment the booking cannot follow
 * to its post-payment status is 409 `confirmation_failed` (MCP -32002 with that data.code); in
 * both the booking is not confirmed and nothing is recorded.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, meta, type McpConn } from '../mcp/helpers.js';

const paid = (amount: number) => ({
  payment_result: { status: 'paid', transaction_id: 'txn_conflict', amount_paid: amount, currency: 'USD' },
});

describe('confirm-payment conflicts', () => {
  let t: TestServer;
  let conn: McpConn;
  beforeEach(async () => {
    t = await startTestServer();
    conn = await connectMcp('v2', 'memory', t);
  });
  afterEach(async () => {
    await conn.close();
    await t.close();
  });

  /** A massage booking awaiting its payment, changed in the store by `corrupt`. */
  async function awaitingPayment(corrupt: (rec: any) => void): Promise<any> {
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_massage_60',
      start_date: day(3),
      end_date: day(3),
    });
    const b = (
      await t.call('POST', '/bookings', { service_id: 'svc_massage_60', slot_id: q.body.slots[0].id, buyer: BUYER })
    ).body.booking;
    expect(b.status).toBe('requires_action');
    await t.server.store.transaction(async (tx) => {
      const rec = (await tx.bookings.get(b.id))!;
      corrupt(rec);
      await tx.bookings.update(rec);
    });
    return (await t.call('GET', `/bookings/${b.id}`)).body.booking;
  }

  async function refused(b: any, amount: number, code: string, status: string) {
    const rest = await t.call('POST', `/bookings/${b.id}/confirm-payment`, paid(amount));
    expect([rest.status, rest.headers.get('content-type'), rest.body.type, rest.body.code]).toEqual([
      409,
      'application/problem+json',
      `https://usp-protocol.dev/errors/${code.replace(/_/g, '-')}`,
      code,
    ]);
    expect(rest.body.detail).toMatch(/not confirmed.*refund/);
    const err = await conn.callError('usp_bookings_confirm_payment', { booking_id: b.id, ...paid(amount), ...meta() });
    expect([err.code, err.data.code]).toEqual([-32002, code]);
    const after = (await t.call('GET', `/bookings/${b.id}`)).body.booking;
    expect([after.status, after.revision, after.actions[0].status]).toEqual([status, b.revision, 'pending']);
  }

  it('no price to check the payment against: 409 payment_unverifiable, the booking stays unconfirmed', async () => {
    const b = await awaitingPayment((rec) => delete rec.booking.actions[0].payment_context.amount_due);
    await refused(b, 12000, 'payment_unverifiable', 'requires_action');
  });

  it('paid, but the booking cannot reach its post-payment status: 409 confirmation_failed, nothing recorded', async () => {
    // A pending payment on a booking already started: completing the action cannot confirm it.
    const b = await awaitingPayment((rec) => (rec.booking.status = 'in_progress'));
    await refused(b, b.actions[0].payment_context.amount_due, 'confirmation_failed', 'in_progress');
  });
});
