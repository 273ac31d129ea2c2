/**
 * Payment over REST in Standalone Mode (spec §5.3.7, §8.5; CONFORMANCE §4): a paid-at-booking
 * service waits in requires_action with one payment action; confirm-payment checks the amount and
 * confirms; an unpaid booking expires; deposits; pay-at-service needs no action. On every booking
 * seen here, `requires_action` holds exactly when a pending action exists.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUYER, OTHER_PLATFORM, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';
import { conformRestResponse, describeConformance } from '../support/spec.js';

type Res = { status: number; body: any; headers: Headers };

let validated = 0;

/** Official-artifact validation; skipped (with the harness note below) when the spec folder is absent. */
function conform(method: string, path: string, res: Res): void {
  if (conformRestResponse(method, path, res)) validated++;
}

/** Spec §5.1 invariant: requires_action iff at least one action is pending. */
let invariantChecks = 0;
function checkActionInvariant(b: any): void {
  if (!b) return;
  const pending = (b.actions ?? []).filter((a: any) => a.status === 'pending').length;
  expect(b.status === 'requires_action', `booking ${b.id} status ${b.status} with ${pending} pending action(s)`).toBe(
    pending > 0,
  );
  invariantChecks++;
}

async function call(
  t: TestServer,
  method: string,
  path: string,
  template: string,
  body?: unknown,
  opts: Parameters<TestServer['call']>[3] = {},
): Promise<Res> {
  const r = await t.call(method, path, body, opts);
  conform(method, template, r);
  checkActionInvariant(r.body?.booking);
  return r;
}

async function firstSlot(t: TestServer, serviceId: string, date: string): Promise<any> {
  const r = await call(t, 'POST', '/availability/query', '/availability/query', {
    service_id: serviceId,
    start_date: date,
    end_date: date,
  });
  expect(r.status).toBe(200);
  expect(r.body.slots.length).toBeGreaterThan(0);
  return r.body.slots[0];
}

async function slotIds(t: TestServer, serviceId: string, date: string): Promise<Set<string>> {
  const r = await call(t, 'POST', '/availability/query', '/availability/query', {
    service_id: serviceId,
    start_date: date,
    end_date: date,
    limit: 500,
  });
  return new Set(r.body.slots.map((s: any) => s.id));
}

async function bookOk(t: TestServer, serviceId: string, date: string): Promise<{ booking: any; slot: any }> {
  const slot = await firstSlot(t, serviceId, date);
  const r = await call(t, 'POST', '/bookings', '/bookings', { service_id: serviceId, slot_id: slot.id, buyer: BUYER });
  expect(r.status).toBe(201);
  return { booking: r.body.booking, slot };
}

const getBooking = (t: TestServer, id: string) => call(t, 'GET', `/bookings/${id}`, '/bookings/{booking_id}');
const confirmPayment = (t: TestServer, id: string, result: Record<string, unknown>) =>
  call(t, 'POST', `/bookings/${id}/confirm-payment`, '/bookings/{booking_id}/confirm-payment', {
    payment_result: result,
  });

function errorCodes(body: any): string[] {
  return (body?.messages ?? []).filter((m: any) => m.type === 'error').map((m: any) => m.code);
}

const MASSAGE_PRICE = 11000;
const BRIDAL_PRICE = 18000;
const BRIDAL_DEPOSIT = 4500; // 25 %

const paid = (amount: number, status = 'paid') => ({
  status,
  transaction_id: 'txn_test_1',
  amount_paid: amount,
  currency: 'USD',
  provider: 'test',
});

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});

describe('a service paid at booking waits in requires_action with one payment action', () => {
  it('carries a pending payment action with continue_url, expires_at and payment_context, and a pending payment', async () => {
    const { booking, slot } = await bookOk(t, 'svc_massage_60', day(2));
    expect(booking.status).toBe('requires_action');
    expect(typeof booking.expires_at).toBe('string');
    expect(Date.parse(booking.expires_at)).toBeGreaterThan(TEST_NOW);

    expect(booking.actions).toHaveLength(1);
    const [action] = booking.actions;
    expect(action.type).toBe('payment');
    expect(action.status).toBe('pending');
    // The demo sets no public URL: the checkout link is on the address the server listens on.
    expect(action.continue_url.startsWith(`${t.url}/checkout/`)).toBe(true);
    expect(new URL(action.continue_url).search).toBe('');
    expect(Date.parse(action.expires_at)).toBeGreaterThan(TEST_NOW);
    expect(Date.parse(action.expires_at)).toBeLessThanOrEqual(Date.parse(booking.expires_at));

    const ctx = action.payment_context;
    expect(ctx.amount_due).toBe(MASSAGE_PRICE);
    expect(ctx.currency).toBe('USD');
    expect(ctx.line_items.length).toBeGreaterThan(0);
    expect(ctx.line_items.reduce((sum: number, li: any) => sum + li.amount * (li.quantity ?? 1), 0)).toBe(
      MASSAGE_PRICE,
    );
    expect(ctx.metadata.booking_id).toBe(booking.id);
    expect(ctx.metadata.service_id).toBe('svc_massage_60');

    expect(booking.payment).toMatchObject({
      status: 'pending',
      timing: 'at_booking',
      amount: MASSAGE_PRICE,
      amount_due: MASSAGE_PRICE,
      currency: 'USD',
    });
    expect((await slotIds(t, 'svc_massage_60', day(2))).has(slot.id)).toBe(false);
  });

  it('an https public_url gives an https continue_url with no query string', async () => {
    await t.close();
    t = await startTestServer({ business: demoBusiness({ public_url: 'https://salon.example' }) });
    const { booking } = await bookOk(t, 'svc_massage_60', day(2));
    const url = new URL(booking.actions[0].continue_url);
    expect(url.protocol).toBe('https:');
    expect(url.host).toBe('salon.example');
    expect(url.search).toBe('');
  });
});

describe('confirm-payment validates the amount, then confirms the booking', () => {
  it('a wrong amount -> payment_amount_mismatch and the booking is unchanged', async () => {
    const { booking } = await bookOk(t, 'svc_massage_60', day(2));
    const r = await confirmPayment(t, booking.id, paid(MASSAGE_PRICE - 1));
    expect(r.status).toBe(200);
    expect(errorCodes(r.body)).toEqual(['payment_amount_mismatch']);
    expect(r.body.messages[0].severity).toBe('requires_buyer_input');

    expect(r.body.messages[0].path).toBe('$.payment_result.amount_paid');

    const wrongCurrency = await confirmPayment(t, booking.id, { ...paid(MASSAGE_PRICE), currency: 'EUR' });
    expect(errorCodes(wrongCurrency.body)).toEqual(['payment_amount_mismatch']);

    const read = await getBooking(t, booking.id);
    expect(read.body.booking.status).toBe('requires_action');
    expect(read.body.booking.revision).toBe(booking.revision);
    expect(read.body.booking.actions).toEqual(booking.actions);
    expect(read.body.booking.payment).toEqual(booking.payment);
  });

  it('the right amount -> confirmed, payment paid, action completed; repeating it is invalid_transition (spec-next 5.1.1: no payment is pending) and changes nothing', async () => {
    const { booking } = await bookOk(t, 'svc_massage_60', day(2));
    const r = await confirmPayment(t, booking.id, { ...paid(MASSAGE_PRICE), order_reference: 'ord_1' });
    expect(r.status).toBe(200);
    expect(r.body.messages ?? []).toEqual([]);
    const b = r.body.booking;
    expect(b.status).toBe('confirmed');
    expect(b.expires_at).toBeUndefined();
    expect(b.payment).toMatchObject({
      status: 'paid',
      amount_due: 0,
      amount: MASSAGE_PRICE,
      transaction_id: 'txn_test_1',
    });
    expect(b.actions.map((a: any) => a.status)).toEqual(['completed']);
    expect(b.revision).not.toBe(booking.revision);

    const stored = await t.server.store.read((tx) => tx.bookings.get(booking.id));
    expect(stored?.booking.status).toBe('confirmed');
    expect(stored?.priv.amount_paid).toBe(MASSAGE_PRICE);

    const again = await confirmPayment(t, booking.id, paid(MASSAGE_PRICE));
    expect([again.status, again.body.messages?.map((m: any) => m.code), again.body.booking?.status]).toEqual([
      200,
      ['invalid_transition'],
      'confirmed',
    ]);
    expect(stored?.booking.revision).toBe(b.revision);
    const after = await t.server.store.read((tx) => tx.bookings.get(booking.id));
    expect(after?.priv.amount_paid).toBe(MASSAGE_PRICE);

    // A confirmed booking stays confirmed after the old payment deadline.
    t.clock.set(Date.parse(booking.expires_at) + 60_000);
    expect((await getBooking(t, booking.id)).body.booking.status).toBe('confirmed');
  });

  it('another platform cannot confirm payment: 404 booking_not_found and nothing changes', async () => {
    const { booking } = await bookOk(t, 'svc_massage_60', day(2));
    const r = await call(
      t,
      'POST',
      `/bookings/${booking.id}/confirm-payment`,
      '/bookings/{booking_id}/confirm-payment',
      { payment_result: paid(MASSAGE_PRICE) },
      { profile: OTHER_PLATFORM },
    );
    expect([r.status, r.body.code]).toEqual([404, 'booking_not_found']);
    expect(r.body.booking).toBeUndefined();
    expect((await getBooking(t, booking.id)).body.booking.status).toBe('requires_action');
  });
});

describe('an unpaid booking expires: canceled by the system, still readable, slot released', () => {
  it('after expires_at the booking reads as canceled and confirm-payment answers payment_expired with it', async () => {
    const { booking, slot } = await bookOk(t, 'svc_massage_60', day(2));
    t.clock.set(Date.parse(booking.expires_at) + 1000);

    const r = await getBooking(t, booking.id);
    expect(r.status).toBe(200);
    const b = r.body.booking;
    expect(b.status).toBe('canceled');
    expect(b.cancellation).toMatchObject({ canceled_by: 'system', fee: 0 });
    expect(b.actions.map((a: any) => a.status)).toEqual(['expired']);
    expect(b.expires_at).toBeUndefined();
    expect((await slotIds(t, 'svc_massage_60', day(2))).has(slot.id)).toBe(true);

    const late = await confirmPayment(t, booking.id, paid(MASSAGE_PRICE));
    expect(late.status).toBe(200);
    expect(errorCodes(late.body)).toEqual(['payment_expired']);
    expect(late.body.messages[0].severity).toBe('recoverable');
    expect(late.body.booking.id).toBe(booking.id);
    expect(late.body.booking.status).toBe('canceled');
    const stored = await t.server.store.read((tx) => tx.bookings.get(booking.id));
    expect(stored?.priv.amount_paid).toBe(0);
    expect(stored?.booking.status).toBe('canceled');
  });

  it('one second before expires_at it is still payable', async () => {
    const { booking } = await bookOk(t, 'svc_massage_60', day(2));
    t.clock.set(Date.parse(booking.expires_at) - 1000);
    const r = await confirmPayment(t, booking.id, paid(MASSAGE_PRICE));
    expect(r.body.booking.status).toBe('confirmed');
  });
});

describe('a deposit service collects the deposit first', () => {
  it('amount_due is the deposit, payment.deposit_amount is set, and paying it leaves deposit_paid', async () => {
    const { booking } = await bookOk(t, 'svc_bridal_trial', day(10));
    expect(booking.status).toBe('requires_action');
    expect(booking.payment).toMatchObject({
      status: 'pending',
      timing: 'deposit_required',
      amount: BRIDAL_PRICE,
      amount_due: BRIDAL_DEPOSIT,
      deposit_amount: BRIDAL_DEPOSIT,
    });
    expect(booking.actions).toHaveLength(1);
    expect(booking.actions[0].payment_context.amount_due).toBe(BRIDAL_DEPOSIT);

    const full = await confirmPayment(t, booking.id, paid(BRIDAL_PRICE));
    expect(errorCodes(full.body)).toEqual(['payment_amount_mismatch']);

    const r = await confirmPayment(t, booking.id, paid(BRIDAL_DEPOSIT, 'deposit_paid'));
    expect(r.status).toBe(200);
    expect(r.body.booking.status).toBe('confirmed');
    expect(r.body.booking.payment.status).toBe('deposit_paid');
    expect(r.body.booking.actions.map((a: any) => a.status)).toEqual(['completed']);
  });
});

describe('confirm-payment in the wrong currency points at the currency, not the amount', () => {
  it('the right amount in EUR for a USD payment -> payment_amount_mismatch on $.payment_result.currency naming both currencies', async () => {
    const { booking } = await bookOk(t, 'svc_massage_60', day(2));
    const r = await confirmPayment(t, booking.id, { ...paid(MASSAGE_PRICE), currency: 'EUR' });
    expect(r.status).toBe(200);
    expect(errorCodes(r.body)).toEqual(['payment_amount_mismatch']);
    expect(r.body.messages[0].path).toBe('$.payment_result.currency');
    expect(r.body.messages[0].content).toMatch(/USD/);
    expect(r.body.messages[0].content).toMatch(/EUR/);
    const read = await getBooking(t, booking.id);
    expect(read.body.booking.status).toBe('requires_action');
    expect(read.body.booking.revision).toBe(booking.revision);
  });

  it('a lower-case currency code of the right currency is accepted', async () => {
    const { booking } = await bookOk(t, 'svc_massage_60', day(2));
    const r = await confirmPayment(t, booking.id, { ...paid(MASSAGE_PRICE), currency: 'usd' });
    expect(errorCodes(r.body)).toEqual([]);
    expect(r.body.booking.status).toBe('confirmed');
  });
});

describe('a late cancellation of a paid booking keeps the fee from the payment and says so', () => {
  it('massage paid in full, canceled 10 h before: fee 5500 kept, 5500 refunded, partially_refunded, nothing due, a warning naming both sums', async () => {
    const { booking, slot } = await bookOk(t, 'svc_massage_60', day(2));
    expect(errorCodes((await confirmPayment(t, booking.id, paid(MASSAGE_PRICE))).body)).toEqual([]);
    t.clock.set(Date.parse(slot.start) - 10 * 3_600_000);
    const r = await call(t, 'POST', `/bookings/${booking.id}/cancel`, '/bookings/{booking_id}/cancel', {});
    expect(r.status).toBe(200);
    expect(r.body.booking.cancellation).toMatchObject({ fee: 5500, refund_amount: 5500 });
    expect(r.body.booking.payment).toMatchObject({ status: 'partially_refunded', amount_due: 0 });
    expect(r.body.messages).toHaveLength(1);
    expect(r.body.messages[0]).toMatchObject({ type: 'warning', code: 'late_cancellation_fee' });
    expect(r.body.messages[0].content).toMatch(/\$55\.00.*kept.*\$55\.00 is refunded/);
  });
});

describe('a service paid at the service is confirmed at once with nothing to pay', () => {
  it('haircut: confirmed, payment not_required or amount_due 0, no pending actions', async () => {
    const { booking } = await bookOk(t, 'svc_haircut', day(2));
    expect(booking.status).toBe('confirmed');
    expect(booking.expires_at).toBeUndefined();
    expect(booking.actions ?? []).toEqual([]);
    if (booking.payment !== undefined) {
      expect(booking.payment.status === 'not_required' || booking.payment.amount_due === 0).toBe(true);
      expect(booking.payment.amount_due).toBe(0);
    }
    // Nothing to pay: confirm-payment is not permitted from confirmed (spec-next 5.1.1).
    const again = await confirmPayment(t, booking.id, paid(6500));
    expect([again.status, again.body.messages?.map((m: any) => m.code), again.body.booking?.status]).toEqual([
      200,
      ['invalid_transition'],
      'confirmed',
    ]);
  });
});

describe('the requires_action invariant', () => {
  it('was checked on every booking seen in this file', () => {
    expect(invariantChecks).toBeGreaterThan(10);
  });
});

describeConformance('payments: response bodies match the official OpenAPI document', () => {
  it('validated the bodies received above', () => {
    expect(validated).toBeGreaterThan(0);
  });
});
