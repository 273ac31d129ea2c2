/**
 * Operations the booking's status does not permit (every "No" cell of spec-next 5.1.1) answer
 * `invalid_transition` as a business outcome (spec-next 5.1.1, 9.4.1, 9.4.2): HTTP 200 with the
 * code in `messages[]` and the booking as it is, an MCP result (not a JSON-RPC error), and nothing
 * changes (decision D2).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorCodes, meta, type McpConn } from '../mcp/helpers.js';

describe('invalid_transition on both doors', () => {
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

  const haircut = async () => {
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(3),
      end_date: day(3),
    });
    const b = await t.call('POST', '/bookings', {
      service_id: 'svc_haircut',
      slot_id: q.body.slots[0].id,
      buyer: BUYER,
    });
    expect(b.body.booking.status).toBe('confirmed');
    return b.body.booking;
  };

  /** REST and MCP both answer the refusal as a business outcome naming the booking unchanged. */
  async function refusedOnBothDoors(
    path: string,
    tool: string,
    args: Record<string, unknown>,
    b: any,
    status: string,
    opts: { admin?: boolean } = {},
  ) {
    const rest = opts.admin
      ? await t.call('POST', path, args, { apiKey: ADMIN_KEY, profile: null })
      : await t.call('POST', path, args);
    expect([
      rest.status,
      rest.body.messages?.map((m: any) => [m.type, m.code, m.severity]),
      rest.body.booking?.id,
      rest.body.booking?.status,
      rest.body.usp?.version,
    ]).toEqual([200, [['error', 'invalid_transition', 'requires_buyer_review']], b.id, status, '2026-08-20']);
    expect(rest.body.type).toBeUndefined();
    if (!opts.admin) {
      const r = await conn.call(tool, { booking_id: b.id, ...args, ...meta() });
      expect([r.isError, errorCodes(r), r.structuredContent.booking.status]).toEqual([
        true,
        ['invalid_transition'],
        status,
      ]);
    }
    const after = (await t.call('GET', `/bookings/${b.id}`)).body.booking;
    expect([after.status, after.revision]).toEqual([status, b.revision]);
    return rest;
  }

  it('canceling a canceled booking: HTTP 200 with invalid_transition in messages[], on MCP a result (not a JSON-RPC error)', async () => {
    const b = await haircut();
    const canceled = (await t.call('POST', `/bookings/${b.id}/cancel`, {})).body.booking;
    expect(canceled.status).toBe('canceled');
    const rest = await refusedOnBothDoors(`/bookings/${b.id}/cancel`, 'usp_bookings_cancel', {}, canceled, 'canceled');
    // A final state says the way on: a new booking, not another try at this one.
    expect(rest.body.messages[0].content).toMatch(/canceled is final: for another time, make a new booking/);
  });

  it('every "No" cell reachable from canceled (cancel, reschedule, confirm-payment, update, confirm) answers 200 invalid_transition', async () => {
    const b = await haircut();
    const canceled = (await t.call('POST', `/bookings/${b.id}/cancel`, {})).body.booking;
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(4),
      end_date: day(4),
    });
    const pr = { payment_result: { status: 'paid', transaction_id: 'txn_x', amount_paid: 6500, currency: 'USD' } };
    await refusedOnBothDoors(
      `/bookings/${b.id}/reschedule`,
      'usp_bookings_reschedule',
      { slot_id: q.body.slots[0].id },
      canceled,
      'canceled',
    );
    await refusedOnBothDoors(
      `/bookings/${b.id}/confirm-payment`,
      'usp_bookings_confirm_payment',
      pr,
      canceled,
      'canceled',
    );
    await refusedOnBothDoors(`/bookings/${b.id}/confirm`, 'usp_bookings_confirm', {}, canceled, 'canceled', {
      admin: true,
    });
    const u = await t.call('PUT', `/bookings/${b.id}`, { notes: 'too late' });
    expect([u.status, errorCodes({ structuredContent: u.body, content: [] })]).toEqual([200, ['invalid_transition']]);
    const r = await conn.call('usp_bookings_update', { booking_id: b.id, notes: 'too late', ...meta() });
    expect(errorCodes(r)).toEqual(['invalid_transition']);
  });

  it('confirm-payment on a booking with nothing to pay is invalid_transition and changes nothing', async () => {
    const b = await haircut();
    const pr = { payment_result: { status: 'paid', transaction_id: 'txn_x', amount_paid: 6500, currency: 'USD' } };
    await refusedOnBothDoors(`/bookings/${b.id}/confirm-payment`, 'usp_bookings_confirm_payment', pr, b, 'confirmed');
  });

  it('the business confirming an auto-mode booking left pending is invalid_transition and the booking stays pending (flow vector 105)', async () => {
    const b = await haircut();
    // An auto-mode booking left pending (e.g. a checkout elsewhere never completed).
    await t.server.store.transaction(async (tx) => {
      const rec = (await tx.bookings.get(b.id))!;
      rec.booking.status = 'pending';
      await tx.bookings.update(rec);
    });
    await refusedOnBothDoors(`/bookings/${b.id}/confirm`, 'usp_bookings_confirm', {}, b, 'pending', { admin: true });
  });

  it('updating a completed booking is refused; updating one in progress is permitted', async () => {
    const b = await haircut();
    const admin = (path: string) => t.call('POST', path, undefined, { apiKey: ADMIN_KEY, profile: null });
    expect((await admin(`/admin/bookings/${b.id}/start`)).body.booking.status).toBe('in_progress');
    expect(
      errorCodes({
        structuredContent: (await t.call('PUT', `/bookings/${b.id}`, { notes: 'running late' })).body,
        content: [],
      }),
    ).toEqual([]);
    expect((await admin(`/admin/bookings/${b.id}/complete`)).body.booking.status).toBe('completed');
    const u = await t.call('PUT', `/bookings/${b.id}`, { notes: 'too late' });
    expect([u.status, errorCodes({ structuredContent: u.body, content: [] }), u.body.booking.status]).toEqual([
      200,
      ['invalid_transition'],
      'completed',
    ]);
  });
});
