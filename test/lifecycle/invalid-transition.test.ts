/**
 * Operations the booking's status does not permit (spec-next 5.1.1) answer `invalid_transition`
 * (in the pinned version's 409 / -32600 family, decision D2) and change nothing, on both doors.
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
    const q = await t.call('POST', '/availability/query', { service_id: 'svc_haircut', start_date: day(3), end_date: day(3) });
    const b = await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: q.body.slots[0].id, buyer: BUYER });
    expect(b.body.booking.status).toBe('confirmed');
    return b.body.booking;
  };

  it('canceling a canceled booking: REST 409 invalid_transition naming the status, MCP -32600 with data.code invalid_transition', async () => {
    const b = await haircut();
    expect((await t.call('POST', `/bookings/${b.id}/cancel`, {})).body.booking.status).toBe('canceled');
    const rest = await t.call('POST', `/bookings/${b.id}/cancel`, {});
    expect([rest.status, rest.body.code, rest.body.type, rest.body.current_status, rest.body.allowed_moves]).toEqual([
      409,
      'invalid_transition',
      'https://usp-protocol.dev/errors/invalid-transition',
      'canceled',
      [],
    ]);
    const err = await conn.callError('usp_bookings_cancel', { booking_id: b.id, ...meta() });
    expect([err.code, err.data.code, err.data.current_status]).toEqual([-32600, 'invalid_transition', 'canceled']);
    // A final state says the way on: a new booking, not another try at this one.
    expect(err.message).toMatch(/canceled is final: for another time, make a new booking/);
  });

  it('confirm-payment on a booking with nothing to pay is invalid_transition and changes nothing', async () => {
    const b = await haircut();
    const pr = { payment_result: { status: 'paid', transaction_id: 'txn_x', amount_paid: 6500, currency: 'USD' } };
    const rest = await t.call('POST', `/bookings/${b.id}/confirm-payment`, pr);
    expect([rest.status, rest.body.code]).toEqual([409, 'invalid_transition']);
    const err = await conn.callError('usp_bookings_confirm_payment', { booking_id: b.id, ...pr, ...meta() });
    expect(err.data.code).toBe('invalid_transition');
    expect((await t.call('GET', `/bookings/${b.id}`)).body.booking.revision).toBe(b.revision);
  });

  it('the business confirming an auto-mode booking left pending is invalid_transition and the booking stays pending (flow vector 105)', async () => {
    const b = await haircut();
    // An auto-mode booking left pending (e.g. a checkout elsewhere never completed).
    await t.server.store.transaction(async (tx) => {
      const rec = (await tx.bookings.get(b.id))!;
      rec.booking.status = 'pending';
      await tx.bookings.update(rec);
    });
    const r = await t.call('POST', `/bookings/${b.id}/confirm`, {}, { apiKey: ADMIN_KEY, profile: null });
    expect([r.status, r.body.code, r.body.current_status]).toEqual([409, 'invalid_transition', 'pending']);
    const after = (await t.call('GET', `/bookings/${b.id}`)).body.booking;
    expect([after.status, after.revision]).toEqual(['pending', b.revision]);
  });

  it('updating a completed booking is refused; updating one in progress is permitted', async () => {
    const b = await haircut();
    const admin = (path: string) => t.call('POST', path, undefined, { apiKey: ADMIN_KEY, profile: null });
    expect((await admin(`/admin/bookings/${b.id}/start`)).body.booking.status).toBe('in_progress');
    expect(errorCodes({ structuredContent: (await t.call('PUT', `/bookings/${b.id}`, { notes: 'running late' })).body, content: [] })).toEqual([]);
    expect((await admin(`/admin/bookings/${b.id}/complete`)).body.booking.status).toBe('completed');
    const u = await t.call('PUT', `/bookings/${b.id}`, { notes: 'too late' });
    expect([u.status, u.body.code]).toEqual([409, 'invalid_transition']);
  });
});
