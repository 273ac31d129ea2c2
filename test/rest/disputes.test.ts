/**
 * Payment disputes (spec 5.5.2): the business (or the payment processor acting for it) opens a
 * dispute on a paid booking and resolves it. The dispute object on the booking validates against
 * the official Dispute schema; opening changes neither the booking status nor payment.status;
 * resolving for the buyer refunds; each change bumps the revision and writes its event to the
 * outbox in the same transaction. Business-only: a platform is refused.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { conformRestResponse, specErrors, validateSchemaDef } from '../support/spec.js';

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});

const MASSAGE = 11000;
const admin = (path: string, body?: unknown, ifMatch?: string) =>
  t.call('POST', path, body, { profile: null, apiKey: ADMIN_KEY, ifMatch });

async function paidMassage(n = 2): Promise<any> {
  const q = await t.call('POST', '/availability/query', {
    service_id: 'svc_massage_60',
    start_date: day(n),
    end_date: day(n),
  });
  const r = await t.call('POST', '/bookings', {
    service_id: 'svc_massage_60',
    slot_id: q.body.slots[0].id,
    buyer: BUYER,
  });
  expect(r.status).toBe(201);
  const p = await t.call('POST', `/bookings/${r.body.booking.id}/confirm-payment`, {
    payment_result: { status: 'paid', transaction_id: 'txn_d', amount_paid: MASSAGE, currency: 'USD' },
  });
  expect(p.body.booking.status).toBe('confirmed');
  return p.body.booking;
}

async function eventsOf(id: string): Promise<string[]> {
  // recent() is newest first.
  const rows = (await t.server.store.read((tx) => tx.outbox.recent(1000))).reverse();
  return rows.filter((e) => e.order_key === id).map((e) => e.event);
}

function expectOfficialDispute(booking: any): void {
  const errs = specErrors(() => validateSchemaDef('booking.json', 'Dispute', booking.dispute));
  expect(errs, errs.join('\n')).toEqual([]);
}

describe('a dispute is opened on a paid booking without touching its status or payment status', () => {
  it('open: 200, dispute opened with reason and opened_at, status and payment.status unchanged, revision bumped, booking.dispute_opened in the outbox, visible in get_booking', async () => {
    const b = await paidMassage();
    const r = await admin(`/admin/bookings/${b.id}/dispute`, { reason: 'quality_issue' });
    expect(r.status).toBe(200);
    expect(r.body.booking.dispute).toEqual({
      status: 'opened',
      reason: 'quality_issue',
      opened_at: expect.any(String),
    });
    expectOfficialDispute(r.body.booking);
    expect(r.body.booking.status).toBe('confirmed');
    expect(r.body.booking.payment.status).toBe('paid');
    expect(r.body.booking.revision).not.toBe(b.revision);
    expect(await eventsOf(b.id)).toContain('booking.dispute_opened');

    const read = await t.call('GET', `/bookings/${b.id}`);
    conformRestResponse('GET', '/bookings/{booking_id}', read);
    expect(read.body.booking.dispute).toEqual(r.body.booking.dispute);
  });

  it('a booking with nothing collected cannot be disputed (validation_error), and a second open is a 409 dispute_state_conflict', async () => {
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(2),
      end_date: day(2),
    });
    const free = (
      await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: q.body.slots[0].id, buyer: BUYER })
    ).body.booking;
    const none = await admin(`/admin/bookings/${free.id}/dispute`, { reason: 'duplicate' });
    expect(none.status).toBe(200);
    expect(none.body.messages.map((m: any) => m.code)).toEqual(['validation_error']);
    expect((await t.call('GET', `/bookings/${free.id}`)).body.booking.dispute).toBeUndefined();

    const b = await paidMassage();
    expect((await admin(`/admin/bookings/${b.id}/dispute`, { reason: 'duplicate' })).status).toBe(200);
    const again = await admin(`/admin/bookings/${b.id}/dispute`, { reason: 'duplicate' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('dispute_state_conflict');
  });

  it('a platform cannot open or resolve a dispute (business only), and nothing changes', async () => {
    const b = await paidMassage();
    const r = await t.call('POST', `/admin/bookings/${b.id}/dispute`, { reason: 'unauthorized' });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    const read = await t.call('GET', `/bookings/${b.id}`);
    expect(read.body.booking.dispute).toBeUndefined();
    expect(read.body.booking.revision).toBe(b.revision);
  });
});

describe('a dispute is resolved once, and the business must announce it (booking.dispute_resolved)', () => {
  it('for the buyer: resolved_buyer with resolved_at, payment refunded, refund_issued and dispute_resolved in the outbox', async () => {
    const b = await paidMassage();
    const opened = await admin(`/admin/bookings/${b.id}/dispute`, { reason: 'service_not_provided' });
    const review = await admin(`/admin/bookings/${b.id}/dispute/review`);
    expect(review.body.booking.dispute.status).toBe('under_review');
    expect(review.body.booking.revision).not.toBe(opened.body.booking.revision);
    const r = await admin(
      `/admin/bookings/${b.id}/dispute/resolve`,
      { outcome: 'buyer' },
      review.body.booking.revision,
    );
    expect(r.status).toBe(200);
    expect(r.body.booking.dispute).toMatchObject({
      status: 'resolved_buyer',
      reason: 'service_not_provided',
      resolved_at: expect.any(String),
    });
    expectOfficialDispute(r.body.booking);
    expect(r.body.booking.payment.status).toBe('refunded');
    expect(r.body.booking.status).toBe('confirmed');
    const events = await eventsOf(b.id);
    expect(events.slice(-3)).toEqual(['booking.dispute_opened', 'booking.refund_issued', 'booking.dispute_resolved']);
    const resolved = (await t.server.store.read((tx) => tx.outbox.recent(1000))).find(
      (e) => e.order_key === b.id && e.event === 'booking.refund_issued',
    )!;
    expect(resolved.payload).toMatchObject({ refund_amount: MASSAGE });

    const again = await admin(`/admin/bookings/${b.id}/dispute/resolve`, { outcome: 'business' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('dispute_state_conflict');
  });

  it('for the business: resolved_business, payment stays paid, no refund event; a partial refund for the buyer is partially_refunded', async () => {
    const b = await paidMassage(2);
    await admin(`/admin/bookings/${b.id}/dispute`, { reason: 'quality_issue' });
    const r = await admin(`/admin/bookings/${b.id}/dispute/resolve`, { outcome: 'business' });
    expect(r.body.booking.dispute.status).toBe('resolved_business');
    expect(r.body.booking.payment.status).toBe('paid');
    const events = await eventsOf(b.id);
    expect(events).not.toContain('booking.refund_issued');
    expect(events.at(-1)).toBe('booking.dispute_resolved');

    const c = await paidMassage(3);
    await admin(`/admin/bookings/${c.id}/dispute`, { reason: 'quality_issue' });
    const tooMuch = await admin(`/admin/bookings/${c.id}/dispute/resolve`, {
      outcome: 'buyer',
      refund_amount: MASSAGE + 1,
    });
    expect(tooMuch.body.messages.map((m: any) => m.path)).toEqual(['$.refund_amount']);
    const part = await admin(`/admin/bookings/${c.id}/dispute/resolve`, { outcome: 'buyer', refund_amount: 3000 });
    expect(part.body.booking.payment.status).toBe('partially_refunded');
  });

  it('resolving with no dispute open is a 409, and a stale If-Match is a 412 that changes nothing', async () => {
    const b = await paidMassage();
    expect((await admin(`/admin/bookings/${b.id}/dispute/resolve`, { outcome: 'buyer' })).status).toBe(409);
    const stale = await admin(`/admin/bookings/${b.id}/dispute`, { reason: 'duplicate' }, 'rev_stale');
    expect(stale.status).toBe(412);
    expect((await t.call('GET', `/bookings/${b.id}`)).body.booking.dispute).toBeUndefined();
  });
});
