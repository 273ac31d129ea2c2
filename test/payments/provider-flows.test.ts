/**
 * The payment flows every provider adapter must carry, run against each (Stripe, and Acme Pay whose
 * adapter lives only under test/): a checkout is made after commit for exactly what is due, within
 * the provider's own checkout life; a signed "paid" event confirms the booking; a cancellation
 * refunds through the provider; a delivery the provider did not sign is refused; the provider's
 * expiry lapses the booking, and a booking that ends closes its checkout at the provider.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectMcp, meta } from '../mcp/helpers.js';
import { ADMIN_KEY } from '../support/server.js';
import { bookingOf, eventsOf, paidBooking, settleJobs } from './helpers.js';
import { PROVIDERS, startProviderRig, type Checkout, type ProviderRig } from './providers.js';

describe.each(PROVIDERS)('payments through %s', (name) => {
  let rig: ProviderRig;
  beforeEach(async () => {
    rig = await startProviderRig(name);
  });
  afterEach(() => rig.close());

  const checkoutOf = async (bookingId: string): Promise<Checkout> => {
    const c = await rig.checkout(bookingId);
    expect(c, 'the provider made a checkout').toBeDefined();
    return c!;
  };
  const post = (body: string, signature?: string) =>
    fetch(rig.webhookUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(signature ? { [rig.signatureHeader]: signature } : {}) },
      body,
    });

  it("checkout created: after commit, for exactly amount_due, keyed by the action, living as long as the provider's limits allow", async () => {
    const b = await paidBooking(rig.t);
    expect(b.status).toBe('requires_action');
    expect(rig.calls()).toEqual([]);
    const now = rig.t.clock.now();
    const c = await checkoutOf(b.id);
    const due = b.actions[0].payment_context;
    expect([c.amount, c.currency.toUpperCase(), c.bookingId]).toEqual([due.amount_due, due.currency, b.id]);
    expect(c.actionId).toMatch(/^act_/);
    expect(rig.calls()[0].key).toBe(`checkout:${c.actionId}`);
    // The 30-minute payment window is shorter than either provider's floor: the checkout gets the provider's.
    expect(c.expiresMs).toBeGreaterThanOrEqual(now + rig.ttl.min);
    expect(c.expiresMs).toBeLessThanOrEqual(now + rig.ttl.max);
    expect(new URL(b.actions[0].continue_url).pathname).toBe(`/checkout/${b.id}`);
    const html = await (await fetch(b.actions[0].continue_url, { headers: { Accept: 'text/html' } })).text();
    expect(html).toContain(`href="${c.url}"`);
  });

  it('paid via webhook: the signed event confirms the booking, audited as the provider', async () => {
    const b = await paidBooking(rig.t);
    const c = await checkoutOf(b.id);
    const { event, paymentRef } = rig.pay(c.id);
    expect(await rig.deliver(event)).toBe(200);
    const after = await bookingOf(rig.t, b.id);
    expect([after.status, after.actions[0].status]).toEqual(['confirmed', 'completed']);
    expect(after.payment).toMatchObject({
      status: 'paid',
      amount_due: 0,
      transaction_id: paymentRef,
      order_reference: c.id,
    });
    expect(await eventsOf(rig.t, b.id)).toEqual(['booking.confirmed']);
    const audit = await rig.t.server.store.read((tx) => tx.admin.auditLog(10));
    expect(audit.some((a) => a.actor === `payment_provider:${name}` && a.outcome === 'ok')).toBe(true);
  });

  it('refund on cancel: a free cancellation refunds the payment through the provider once, then booking.refund_issued', async () => {
    const b = await paidBooking(rig.t);
    const c = await checkoutOf(b.id);
    const { event, paymentRef } = rig.pay(c.id);
    expect(await rig.deliver(event)).toBe(200);
    const canceled = await rig.t.call('POST', `/bookings/${b.id}/cancel`, {});
    expect(canceled.body.booking.cancellation.refund_amount).toBe(c.amount);
    expect(rig.refunds()).toEqual([]);
    await settleJobs(rig.t, b.id);
    expect(rig.refunds()).toEqual([{ amount: c.amount, paymentRef }]);
    expect(rig.calls().find((x) => x.path.endsWith('/refunds'))?.key).toBe(`refund:${b.id}:1`);
    expect((await bookingOf(rig.t, b.id)).payment.status).toBe('refunded');
    expect(await eventsOf(rig.t, b.id)).toEqual(['booking.confirmed', 'booking.canceled', 'booking.refund_issued']);
  });

  it('bad signature refused: unsigned, forged and tampered deliveries answer 400 and change nothing', async () => {
    const b = await paidBooking(rig.t);
    const c = await checkoutOf(b.id);
    const payload = JSON.stringify(rig.pay(c.id).event);
    expect((await post(payload)).status).toBe(400);
    expect((await post(payload, rig.sign(payload, 'a-secret-that-is-not-the-providers'))).status).toBe(400);
    const tampered = payload.replace(`${c.amount}`, '1');
    expect(tampered).not.toBe(payload);
    expect((await post(tampered, rig.sign(payload))).status).toBe(400);
    const after = await bookingOf(rig.t, b.id);
    expect([after.status, after.revision]).toEqual(['requires_action', b.revision]);
    expect(await eventsOf(rig.t, b.id)).toEqual([]);
    // The same delivery, signed: applied.
    expect((await post(payload, rig.sign(payload))).status).toBe(200);
    expect((await bookingOf(rig.t, b.id)).status).toBe('confirmed');
  });

  it("expiry: the provider's expiry of the checkout lapses the action, canceled by the system", async () => {
    const b = await paidBooking(rig.t);
    const c = await checkoutOf(b.id);
    // The checkout runs out a minute before the payment window does (the provider's cap, or the window itself).
    rig.t.clock.set(Date.parse(b.expires_at) - 60_000);
    expect(await rig.deliver(rig.expire(c.id))).toBe(200);
    const after = await bookingOf(rig.t, b.id);
    expect([after.status, after.cancellation.canceled_by, after.actions[0].status]).toEqual([
      'canceled',
      'system',
      'expired',
    ]);
    expect(await eventsOf(rig.t, b.id)).toEqual(['booking.canceled']);
  });

  it('a booking that ends while its payment is due closes its checkout at the provider, after commit', async () => {
    const b = await paidBooking(rig.t);
    const c = await checkoutOf(b.id);
    const callsBefore = rig.calls().length;
    expect((await rig.t.call('POST', `/bookings/${b.id}/cancel`, {})).body.booking.status).toBe('canceled');
    expect(rig.calls()).toHaveLength(callsBefore);
    await settleJobs(rig.t, b.id);
    expect(rig.closedAtProvider(c.id)).toBe(true);
    expect(rig.calls().at(-1)?.key).toBe(`expire:${c.id}`);
    expect(rig.refunds()).toEqual([]);
  });

  it("the business's reconciliation (POST /admin/payments/events) takes only its own provider's name", async () => {
    const b = await paidBooking(rig.t);
    const c = await checkoutOf(b.id);
    const event = {
      type: 'checkout_expired',
      event_id: 'evt_reconciled_1',
      booking_id: b.id,
      action_id: c.actionId,
      session_id: c.id,
    };
    const other = PROVIDERS.find((p) => p !== name)!;
    const refused = await rig.t.call(
      'POST',
      '/admin/payments/events',
      { provider: other, event },
      { apiKey: ADMIN_KEY },
    );
    expect([refused.status, refused.body.error?.code ?? refused.body.code]).toEqual([400, 'invalid_request']);
    expect(JSON.stringify(refused.body)).toContain(JSON.stringify(`must be "${name}"`).slice(1, -1));
    expect((await bookingOf(rig.t, b.id)).status).toBe('requires_action');
    const applied = await rig.t.call(
      'POST',
      '/admin/payments/events',
      { provider: name, event },
      { apiKey: ADMIN_KEY },
    );
    expect(applied.status).toBe(200);
    // Applied: the session ran out before the payment window, so the action gets a fresh checkout.
    const jobs = await rig.t.server.store.read((tx) => tx.payments.forBooking(b.id));
    expect(jobs.filter((j) => j.kind === 'checkout')).toHaveLength(2);
  });

  it("the service's terms (MCP usp_services_get) say the refund goes back through the provider, by its label", async () => {
    const conn = await connectMcp('v2', 'http', rig.t);
    try {
      const r = await conn.call('usp_services_get', { service_id: 'svc_massage_60', ...meta() });
      const words = (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');
      expect(words).toContain(`through ${rig.label}, and is recorded once ${rig.label} confirms it`);
    } finally {
      await conn.close();
    }
  });
});
