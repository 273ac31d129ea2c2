/**
 * Who may say a payment was made. Where the business collects through its own checkout (a Stripe
 * Checkout Session, an external checkout), a platform's confirm-payment with a payment_result of its
 * own is refused with `platform_payment_not_accepted` on both doors, the booking and the session unchanged:
 * only the provider's signed event, or the business itself, completes the action. A business that
 * publishes `embedded` (settings.platform_payments) takes the platform's word, as the sandbox does.
 * Outside a sandbox the same holds for a platform authenticated with a key of its own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/security/index.js';
import { connectMcp, meta, type McpConn } from '../mcp/helpers.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { ADMIN_KEY, BUYER, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';
import { startStripeEmulator, type EmulatedStripe } from '../support/stripe-emulator.js';
import { TEST_NOW } from '../support/time.js';
import { bookingOf, eventsOf, paidBooking, sessionOf, settleJobs, startStripeRig, type StripeRig } from './helpers.js';

const reported = (b: any) => ({
  payment_result: {
    status: 'paid',
    transaction_id: 'txn_made_up_1',
    amount_paid: b.actions[0].payment_context.amount_due,
    currency: b.actions[0].payment_context.currency,
  },
});

describe('confirm-payment where the business collects through Stripe', () => {
  let rig: StripeRig;
  let conn: McpConn | undefined;
  afterEach(async () => {
    await conn?.close();
    conn = undefined;
    await rig.close();
  });

  it('the profile publishes only redirect', async () => {
    rig = await startStripeRig();
    expect((await rig.t.call('GET', '/.well-known/usp')).body.usp.checkout_systems).toEqual(['redirect']);
  });

  it('REST: a platform reporting its own paid payment_result gets platform_payment_not_accepted; the booking stays requires_action and the session open', async () => {
    rig = await startStripeRig();
    const b = await paidBooking(rig.t);
    const s = await sessionOf(rig, b.id);
    const res = await rig.t.call('POST', `/bookings/${b.id}/confirm-payment`, reported(b));
    expect(res.status).toBe(200);
    expect(res.body.messages).toEqual([
      expect.objectContaining({ type: 'error', code: 'platform_payment_not_accepted', path: '$.payment_result' }),
    ]);
    const after = await bookingOf(rig.t, b.id);
    expect([after.status, after.revision, after.payment.status, after.actions[0].status]).toEqual([
      'requires_action',
      b.revision,
      'pending',
      'pending',
    ]);
    expect(await eventsOf(rig.t, b.id)).toEqual([]);
    expect(rig.stripe.sessions.get(s.id)!.status).toBe('open');
    // The provider's own signed event still completes it.
    expect(await rig.stripe.deliver(rig.stripe.pay(s.id))).toBe(200);
    expect((await bookingOf(rig.t, b.id)).status).toBe('confirmed');
  });

  it('MCP: usp_bookings_confirm_payment with a made-up payment is refused the same way (isError, nothing confirmed)', async () => {
    rig = await startStripeRig();
    conn = await connectMcp('v2', 'http', rig.t);
    const q = await conn.call('usp_availability_query', {
      service_id: 'svc_massage_60',
      start_date: day(3),
      end_date: day(3),
      ...meta(),
    });
    const made = await conn.call('usp_bookings_create', {
      service_id: 'svc_massage_60',
      slot_id: q.structuredContent.slots[0].id,
      buyer: BUYER,
      ...meta(),
    });
    const b = made.structuredContent.booking;
    await sessionOf(rig, b.id);
    const res = await conn.call('usp_bookings_confirm_payment', { booking_id: b.id, ...reported(b), ...meta() });
    expect(res.isError).toBe(true);
    expect(res.structuredContent.messages[0]).toMatchObject({ type: 'error', code: 'platform_payment_not_accepted' });
    expect(res.structuredContent.booking.status).toBe('requires_action');
    expect((await bookingOf(rig.t, b.id)).status).toBe('requires_action');
  });

  it('the business itself (its admin key) may still report a payment it received', async () => {
    rig = await startStripeRig();
    const b = await paidBooking(rig.t);
    const res = await rig.t.call('POST', `/bookings/${b.id}/confirm-payment`, reported(b), { apiKey: ADMIN_KEY });
    expect(res.body.booking.status).toBe('confirmed');
  });

  it('a business publishing embedded (settings.platform_payments) takes the platform report', async () => {
    rig = await startStripeRig({ business: demoBusiness({ platform_payments: true }) });
    expect((await rig.t.call('GET', '/.well-known/usp')).body.usp.checkout_systems).toEqual(['redirect', 'embedded']);
    const b = await paidBooking(rig.t);
    const res = await rig.t.call('POST', `/bookings/${b.id}/confirm-payment`, reported(b));
    expect([res.body.booking.status, res.body.booking.payment.status]).toEqual(['confirmed', 'paid']);
  });
});

describe('confirm-payment elsewhere', () => {
  let t: TestServer;
  afterEach(() => t?.close());

  it('an external checkout: a platform report is refused; the external system reports with the business key', async () => {
    t = await startTestServer({
      business: demoBusiness({ checkout_url_template: 'https://pay.example/{booking_id}' }),
    });
    const b = await paidBooking(t);
    const refused = await t.call('POST', `/bookings/${b.id}/confirm-payment`, reported(b));
    expect(refused.body.messages[0].code).toBe('platform_payment_not_accepted');
    expect((await bookingOf(t, b.id)).status).toBe('requires_action');
    const ok = await t.call('POST', `/bookings/${b.id}/confirm-payment`, reported(b), { apiKey: ADMIN_KEY });
    expect(ok.body.booking.status).toBe('confirmed');
  });

  it('the sandbox page (no money moves) publishes embedded and takes the platform report', async () => {
    t = await startTestServer();
    expect((await t.call('GET', '/.well-known/usp')).body.usp.checkout_systems).toEqual(['redirect', 'embedded']);
    const b = await paidBooking(t);
    expect((await t.call('POST', `/bookings/${b.id}/confirm-payment`, reported(b))).body.booking.status).toBe(
      'confirmed',
    );
  });
});

describe('outside a sandbox, a platform with a key of its own', () => {
  const KEY = 'throwaway-platform-key-0123456789';
  let profiles: ProfileServer;
  let stripe: EmulatedStripe;
  let t: TestServer;
  afterEach(async () => {
    await t?.close();
    await stripe?.close();
    await profiles?.close();
  });

  it('cannot confirm a Stripe-paid booking it made with its own payment_result', async () => {
    profiles = await startProfileServer();
    const profile = profiles.addProfile('/throwaway.json');
    stripe = await startStripeEmulator({ now: () => t?.clock.now() ?? TEST_NOW });
    t = await startTestServer({
      sandbox: false,
      business: { ...demoBusiness(), platform_api_keys: [{ id: 'plat_throwaway', sha256: hashApiKey(KEY) }] },
      security: { allowLoopbackProfiles: true },
      payments: {
        provider: 'stripe',
        stripe: { secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, apiUrl: stripe.url },
        startWorker: false,
      },
    });
    const as = { profile, apiKey: KEY };
    const q = await t.call(
      'POST',
      '/availability/query',
      { service_id: 'svc_massage_60', start_date: day(3), end_date: day(3) },
      as,
    );
    const made = await t.call(
      'POST',
      '/bookings',
      { service_id: 'svc_massage_60', slot_id: q.body.slots[0].id, buyer: BUYER },
      as,
    );
    expect(made.status).toBe(201);
    const b = made.body.booking;
    await settleJobs(t, b.id);
    const res = await t.call('POST', `/bookings/${b.id}/confirm-payment`, reported(b), as);
    expect(res.body.messages[0]).toMatchObject({ type: 'error', code: 'platform_payment_not_accepted' });
    const after = await t.call('GET', `/bookings/${b.id}`, undefined, as);
    expect([after.body.booking.status, after.body.booking.payment.status]).toEqual(['requires_action', 'pending']);
    expect([...stripe.sessions.values()].map((x) => x.status)).toEqual(['open']);
  });
});
