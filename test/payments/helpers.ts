/** A server taking payments through Stripe, against the test emulator, with the shared test clock. */
import { expect } from 'vitest';
import type { BusinessDef } from '../../src/domain/business.js';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { startStripeEmulator, type EmulatedStripe } from '../support/stripe-emulator.js';
import { TEST_NOW } from '../support/time.js';

export interface StripeRig {
  t: TestServer;
  stripe: EmulatedStripe;
  close(): Promise<void>;
}

export async function startStripeRig(opts: { db?: string; business?: BusinessDef } = {}): Promise<StripeRig> {
  let t: TestServer | undefined;
  const stripe = await startStripeEmulator({ now: () => t?.clock.now() ?? TEST_NOW });
  t = await startTestServer({
    db: opts.db,
    business: opts.business,
    payments: {
      provider: 'stripe',
      stripe: { secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, apiUrl: stripe.url },
      startWorker: false,
    },
  });
  stripe.webhookUrl = `${t.url}/payments/stripe/webhook`;
  return { t, stripe, close: async () => (await t!.close(), await stripe.close()) };
}

/** Run the payment worker until the booking's jobs are all answered (done or failed). */
export async function settleJobs(t: TestServer, bookingId: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    await t.server.paymentWorker!.tick();
    const jobs = await t.server.store.read((tx) => tx.payments.forBooking(bookingId));
    if (jobs.every((j) => j.status !== 'pending' || j.attempts > 0)) {
      if (jobs.every((j) => j.status !== 'pending')) return;
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function paidBooking(t: TestServer, extra: Record<string, unknown> = {}) {
  const q = await t.call('POST', '/availability/query', {
    service_id: 'svc_massage_60',
    start_date: day(3),
    end_date: day(3),
  });
  const b = await t.call('POST', '/bookings', {
    service_id: 'svc_massage_60',
    slot_id: q.body.slots[0].id,
    buyer: BUYER,
    ...extra,
  });
  expect(b.status).toBe(201);
  return b.body.booking;
}

/** The booking's checkout session at the emulator, once the worker made it. */
export async function sessionOf(rig: StripeRig, bookingId: string) {
  await settleJobs(rig.t, bookingId);
  const s = [...rig.stripe.sessions.values()].find((x) => x.client_reference_id === bookingId);
  expect(s, 'a checkout session was created').toBeDefined();
  return s!;
}

export async function eventsOf(t: TestServer, bookingId: string): Promise<string[]> {
  const all = await t.server.store.read((tx) => tx.outbox.recent(200));
  // Reminders are scheduled ahead (and withdrawn when the booking ends): not what these tests follow.
  return all
    .filter((e) => e.order_key === bookingId && e.event !== 'booking.reminder')
    .reverse()
    .map((e) => e.event);
}

export const bookingOf = async (t: TestServer, id: string) => (await t.call('GET', `/bookings/${id}`)).body.booking;
