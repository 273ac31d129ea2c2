/**
 * Minor-unit money amounts on input are a JSON integer or a string of digits, and a business MUST
 * accept both (spec-next 1.1, `^-?[0-9]+$`): confirm-payment's `amount_paid`, the business's refund,
 * a dispute's refund, the catalog's price filter, and the money of a service the business adds (its
 * price, fees and fixed deposit). A string that is not digits, a fraction or an amount past 2^53 - 1
 * is a clear `invalid_request` naming the member, on both doors. Counts stay integers.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectMcp, meta, type McpConn } from '../mcp/helpers.js';
import { ADMIN_KEY, BUYER, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';

const MASSAGE_PRICE = 11000;

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});

const admin = (method: string, path: string, body?: unknown) =>
  t.call(method, path, body, { apiKey: ADMIN_KEY, profile: null, idempotencyKey: randomUUID() });
const paid = (amount: unknown) => ({
  payment_result: {
    status: 'paid',
    transaction_id: `txn_${randomUUID().slice(0, 8)}`,
    amount_paid: amount,
    currency: 'USD',
  },
});

/** A massage booking waiting for its payment (requires_action). */
async function unpaidMassage(n: number): Promise<string> {
  const q = await t.call('POST', '/availability/query', {
    service_id: 'svc_massage_60',
    start_date: day(n),
    end_date: day(n),
  });
  const b = await t.call(
    'POST',
    '/bookings',
    { service_id: 'svc_massage_60', slot_id: q.body.slots[0].id, buyer: BUYER },
    { idempotencyKey: randomUUID() },
  );
  expect(b.body.booking?.status, JSON.stringify(b.body)).toBe('requires_action');
  return b.body.booking.id;
}

function expectRefused(r: { status: number; body: any }, field: string): void {
  expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([400, 'invalid_request']);
  expect(r.body.errors.map((e: any) => e.field)).toContain(field);
  expect(r.body.detail).toContain(field);
}

describe('REST: an amount is an integer or a string of digits', () => {
  it('confirm-payment with amount_paid as a digit string confirms the booking, as the integer does', async () => {
    const id = await unpaidMassage(2);
    const r = await t.call('POST', `/bookings/${id}/confirm-payment`, paid(String(MASSAGE_PRICE)), {
      idempotencyKey: randomUUID(),
    });
    expect([r.status, r.body.messages ?? [], r.body.booking?.status], JSON.stringify(r.body)).toEqual([
      200,
      [],
      'confirmed',
    ]);
    expect(r.body.booking.payment.amount_paid ?? MASSAGE_PRICE).toBe(MASSAGE_PRICE);
  });

  it('a digit string that is not the amount due is payment_amount_mismatch, compared as a number', async () => {
    const id = await unpaidMassage(3);
    const r = await t.call('POST', `/bookings/${id}/confirm-payment`, paid('10999'), { idempotencyKey: randomUUID() });
    expect(r.body.messages.map((m: any) => m.code)).toEqual(['payment_amount_mismatch']);
  });

  it('amount_paid that is not digits, a fraction, negative or past 2^53 - 1 is invalid_request naming payment_result.amount_paid, and nothing changes', async () => {
    const id = await unpaidMassage(4);
    for (const bad of [
      '110.00',
      '11,000',
      'eleven thousand',
      '',
      ' 11000',
      '1e4',
      '-11000',
      110.5,
      '99999999999999999999',
      2 ** 53,
    ]) {
      const r = await t.call('POST', `/bookings/${id}/confirm-payment`, paid(bad), { idempotencyKey: randomUUID() });
      expectRefused(r, 'payment_result.amount_paid');
    }
    expect((await t.call('GET', `/bookings/${id}`)).body.booking.status).toBe('requires_action');
  });

  it("the business's refund takes a digit string; a word is refused naming amount", async () => {
    const id = await unpaidMassage(5);
    await t.call('POST', `/bookings/${id}/confirm-payment`, paid(MASSAGE_PRICE), { idempotencyKey: randomUUID() });
    expectRefused(
      await admin('POST', `/admin/bookings/${id}/refund`, { amount: 'all of it', reason: 'goodwill' }),
      'amount',
    );
    expectRefused(
      await admin('POST', `/admin/bookings/${id}/dispute/resolve`, { outcome: 'buyer', refund_amount: '10.00' }),
      'refund_amount',
    );
    const r = await admin('POST', `/admin/bookings/${id}/refund`, { amount: '1000', reason: 'goodwill' });
    expect([r.status, r.body.messages ?? []], JSON.stringify(r.body)).toEqual([200, []]);
    const events = await t.server.store.read((tx) => tx.outbox.recent(20));
    expect(events.find((e) => e.event === 'booking.refund_issued' && e.order_key === id)?.payload).toMatchObject({
      refund_amount: 1000,
    });
  });

  it('the catalog price filter takes digit strings as it takes integers', async () => {
    const ids = async (price: unknown) =>
      ((await t.call('POST', '/services/list', { filters: { price } })).body.services ?? [])
        .map((s: any) => s.id)
        .sort();
    const asNumbers = await ids({ max: 5000 });
    expect(asNumbers.length).toBeGreaterThan(0);
    expect(await ids({ max: '5000' })).toEqual(asNumbers);
    expectRefused(
      await t.call('POST', '/services/list', { filters: { price: { max: '50.00' } } }),
      'filters.price.max',
    );
  });

  it('a service the business adds may state its price, fees and fixed deposit as digit strings; they are stored and published as integers', async () => {
    const base = structuredClone(demoBusiness().services.find((s) => s.id === 'svc_bridal_trial')!);
    const svc: any = { ...base, id: 'svc_string_money', name: 'String money' };
    svc.pricing = { ...svc.pricing, amount: '18000', deposit: { type: 'fixed', value: '4500' } };
    svc.policies.cancellation = { ...svc.policies.cancellation, late_cancellation_fee: '2500' };
    delete svc.policies.cancellation.late_cancellation_fee_percentage;
    const made = await admin('POST', '/admin/services', svc);
    expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
    const got = (await t.call('GET', '/services/svc_string_money', undefined, { profile: null })).body.service;
    expect([got.pricing.amount, got.pricing.deposit.value, got.policies.cancellation.late_cancellation_fee]).toEqual([
      18000, 4500, 2500,
    ]);
    const bad = await admin('POST', '/admin/services', {
      ...svc,
      id: 'svc_bad_money',
      pricing: { ...svc.pricing, amount: '180.00' },
    });
    expectRefused(bad, 'pricing.amount');
  });
});

describe('MCP: the same amounts as digit strings', () => {
  let conn: McpConn;
  afterEach(async () => {
    await conn?.close();
  });

  it('usp_bookings_confirm_payment takes amount_paid as a digit string; a non-digit string is -32600 naming the member', async () => {
    conn = await connectMcp('v2', 'http', t.url);
    const id = await unpaidMassage(6);
    const e = await conn.callError('usp_bookings_confirm_payment', {
      booking_id: id,
      ...paid('11000 USD'),
      ...meta(undefined, { idempotency_key: randomUUID() }),
    });
    expect([e.code, e.data.code]).toEqual([-32600, 'invalid_request']);
    expect(e.data.errors.map((x: any) => x.field)).toContain('payment_result.amount_paid');
    const r = await conn.call('usp_bookings_confirm_payment', {
      booking_id: id,
      ...paid(String(MASSAGE_PRICE)),
      ...meta(undefined, { idempotency_key: randomUUID() }),
    });
    expect([r.isError ?? false, r.structuredContent.booking.status]).toEqual([false, 'confirmed']);
  });
});
