/**
 * Stripe Connect on a hosting deployment, on SQLite and on PostgreSQL (skipped, saying why, without
 * USP_TEST_PG_URL): each business's connected account is in the deployment's directory, `createHosting`
 * has only the platform's keys, and Stripe (the emulator) sends every account's events, signed with the
 * platform's endpoint secret, to the deployment's one Connect endpoint, which hands each to the business
 * its account names. Everything through HTTP at the businesses' host names.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { ManualClock } from '../../src/operations/index.js';
import type { DeploymentDirectory } from '../../src/store/index.js';
import type { Hosting } from '../../src/server/hosting.js';
import type { recorder } from '../support/log-recorder.js';
import { BUYER, PLATFORM, day } from '../support/server.js';
import { TEST_NOW, waitFor } from '../support/time.js';
import { hostCall, hostFetch } from '../support/host-fetch.js';
import { startStripeEmulator, type EmulatedStripe } from '../support/stripe-emulator.js';
import { PG_URL, noteSkipped } from '../pg/helpers.js';
import {
  NORD_FILE,
  OPERATOR_HOST,
  OPERATOR_KEY,
  deployHosting,
  nordPaidAtBooking,
  salonEntry,
  undeploy,
} from '../support/hosting.js';

const SALON = { id: 'biz_maple_pine', host: 'salon.localhost', paid: 'svc_massage_60', account: 'acct_1SalonMaple' };
const NORD = { id: 'biz_nord_studio', host: 'nord.localhost', paid: 'svc_nord_trim', account: 'acct_1NordStudio' };
type Biz = typeof SALON;
const AGENT = { 'USP-Agent': `profile="${PLATFORM}"` };

interface Rig {
  hosting: Hosting;
  directory: DeploymentDirectory;
  stripe: EmulatedStripe;
  logs: ReturnType<typeof recorder>;
  url(b: Biz): string;
  op(path: string, method: string, body?: unknown): ReturnType<typeof hostCall>;
  /** The deployment's directory opened again, as another process (`host payment-account`) opens it. */
  another(): Promise<DeploymentDirectory>;
  close(): Promise<void>;
}

async function deploy(db: string | undefined): Promise<Rig> {
  const clock = new ManualClock(TEST_NOW);
  const stripe = await startStripeEmulator({ now: () => clock.now() });
  const d = await deployHosting({
    db,
    businesses: (dir) => [salonEntry({ paymentAccount: SALON.account }), nordPaidAtBooking(dir)],
    server: { clock, payments: { provider: 'sandbox', startWorker: false } },
    // The platform's keys only: each business's account comes from the directory.
    paymentConnect: {
      provider: 'stripe',
      options: { secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, apiUrl: stripe.url },
    },
    operator: true,
    prefix: 'usp-hosting-connect-',
  });
  await d.directory.setPaymentAccount(NORD.id, NORD.account);
  return {
    hosting: d.hosting,
    directory: d.directory,
    stripe,
    logs: d.log,
    url: (b) => d.url(b.host),
    op: (path, method, body) =>
      hostCall(`${d.url(OPERATOR_HOST)}${path}`, {
        method,
        body,
        headers: { Authorization: `Bearer ${OPERATOR_KEY}` },
      }),
    another: d.another,
    async close() {
      await undeploy(d);
      await stripe.close();
    },
  };
}

const bookingAt = async (r: Rig, b: Biz, id: string) => hostCall(`${r.url(b)}/bookings/${id}`, { headers: AGENT });

/** A paid booking at `b` and its Checkout Session, made by the business's payment worker on its account. */
async function paidBooking(r: Rig, b: Biz, n: number) {
  const q = await hostCall(`${r.url(b)}/availability/query`, {
    method: 'POST',
    headers: AGENT,
    body: { service_id: b.paid, start_date: day(n), end_date: day(n), limit: 1 },
  });
  expect(q.status, q.text).toBe(200);
  const made = await hostCall(`${r.url(b)}/bookings`, {
    method: 'POST',
    headers: AGENT,
    body: { service_id: b.paid, slot_id: q.body.slots[0].id, buyer: BUYER },
  });
  expect(made.status, made.text).toBe(201);
  const booking = made.body.booking;
  expect(booking.status).toBe('requires_action');
  const session = () => [...r.stripe.sessions.values()].find((s) => s.client_reference_id === booking.id);
  await waitFor(
    async () => {
      await r.hosting.pool.peek(b.id, (s) => s.paymentWorker!.tick());
      return session() !== undefined;
    },
    5000,
    'the checkout session made',
  );
  const create = r.stripe.requests.find(
    (q) => q.path === '/v1/checkout/sessions' && q.body.client_reference_id === booking.id,
  );
  expect(create?.account).toBe(b.account);
  return { booking, session: session()! };
}

/** POST a payload to the deployment's Connect endpoint at host `at`, signed with `secret` (default the platform's). */
async function post(r: Rig, at: Biz, event: object, secret?: string) {
  const payload = JSON.stringify(event);
  const signature = r.stripe.sign(payload, secret ? { secret } : {});
  return hostFetch(`${r.url(at)}/stripe/connect/webhook`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature },
    body: payload,
  });
}

function connect(engine: string, db: () => string | undefined) {
  describe(`Stripe Connect on a hosting deployment: one webhook endpoint for every business (${engine})`, () => {
    let r: Rig;
    beforeAll(async () => {
      vi.stubGlobal('fetch', hostFetch);
      r = await deploy(db());
    }, 60_000);
    afterAll(async () => {
      await r?.close();
      vi.unstubAllGlobals();
    });

    test("each business's paid booking completes through the one Connect endpoint, and lands only at its own business", async () => {
      const salon = await paidBooking(r, SALON, 4);
      const nord = await paidBooking(r, NORD, 4);
      const salonPaid = r.stripe.pay(salon.session.id);
      const nordPaid = r.stripe.pay(nord.session.id);
      expect([salonPaid.account, nordPaid.account]).toEqual([SALON.account, NORD.account]);
      // A business's own endpoint still refuses another account's event.
      r.stripe.webhookUrl = `${r.url(SALON)}/payments/stripe/webhook`;
      expect(await r.stripe.deliver(nordPaid)).toBe(400);
      // Nord's event, posted at Salon's host name: routed by its account, not by the host.
      const first = await post(r, SALON, nordPaid);
      expect(first.status, await first.text()).toBe(200);
      expect((await bookingAt(r, NORD, nord.booking.id)).body.booking.status).toBe('confirmed');
      expect((await bookingAt(r, SALON, nord.booking.id)).status).toBe(404);
      const salonStill = await bookingAt(r, SALON, salon.booking.id);
      expect(salonStill.body.booking.status).toBe('requires_action');
      expect(salonStill.body.booking.payment.status).not.toBe('paid');
      expect((await post(r, NORD, salonPaid)).status).toBe(200);
      const after = await bookingAt(r, SALON, salon.booking.id);
      expect(after.body.booking.status).toBe('confirmed');
      expect(after.body.booking.payment.status).toBe('paid');
      expect((await bookingAt(r, NORD, salon.booking.id)).status).toBe(404);
    });

    test('an event of an account no business has is acknowledged (200), logged, and changes nothing', async () => {
      const { booking, session } = await paidBooking(r, SALON, 5);
      const paid = r.stripe.pay(session.id);
      const stray = { ...paid, id: 'evt_stray_account_1', account: 'acct_1NobodyHere' };
      expect((await post(r, NORD, stray)).status).toBe(200);
      expect((await bookingAt(r, SALON, booking.id)).body.booking.status).toBe('requires_action');
      expect(
        r.logs.lines.some(
          (e) => e.msg.includes('no hosted business') && JSON.stringify(e).includes('acct_1NobodyHere'),
        ),
      ).toBe(true);
      // The event of the platform itself (no account) too.
      const platform = Object.fromEntries(
        Object.entries({ ...paid, id: 'evt_platform_own_1' }).filter(([k]) => k !== 'account'),
      );
      expect((await post(r, NORD, platform)).status).toBe(200);
      expect((await bookingAt(r, SALON, booking.id)).body.booking.status).toBe('requires_action');
    });

    test('a forged signature is refused (400) and changes nothing; only POST is answered', async () => {
      const { booking, session } = await paidBooking(r, NORD, 6);
      const paid = r.stripe.pay(session.id);
      expect((await post(r, SALON, paid, 'whsec_forged_0123456789')).status).toBe(400);
      const unsigned = await hostFetch(`${r.url(SALON)}/stripe/connect/webhook`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(paid),
      });
      expect(unsigned.status).toBe(400);
      expect((await hostFetch(`${r.url(SALON)}/stripe/connect/webhook`)).status).toBe(405);
      expect((await bookingAt(r, NORD, booking.id)).body.booking.status).toBe('requires_action');
      expect((await post(r, SALON, paid)).status).toBe(200);
      expect((await bookingAt(r, NORD, booking.id)).body.booking.status).toBe('confirmed');
    });

    test("the operator API sets, forgets and checks a business's connected account; the Connect endpoint follows it", async () => {
      const lina = JSON.parse(readFileSync(NORD_FILE, 'utf8'));
      lina.business.id = 'biz_lina_studio';
      const bad = await r.op('/businesses', 'POST', {
        business: lina,
        hosts: ['lina.localhost'],
        payment_account: 'acct_not-valid',
      });
      expect(bad.status, bad.text).toBe(400);
      expect(r.directory.get('biz_lina_studio')).toBeUndefined();
      const taken = await r.op('/businesses', 'POST', {
        business: lina,
        hosts: ['lina.localhost'],
        payment_account: SALON.account,
      });
      expect(taken.status, taken.text).toBe(409);
      expect(r.directory.get('biz_lina_studio')).toBeUndefined();
      const made = await r.op('/businesses', 'POST', {
        business: lina,
        hosts: ['lina.localhost'],
        payment_account: 'acct_1LinaStudio',
      });
      expect(made.status, made.text).toBe(201);
      expect(made.body.business.payment_account).toBe('acct_1LinaStudio');
      expect(
        (await r.op('/businesses/biz_lina_studio/payment-account', 'PUT', { payment_account: NORD.account })).status,
      ).toBe(409);
      expect((await r.op('/businesses/biz_lina_studio/payment-account', 'PUT', { payment_account: 42 })).status).toBe(
        400,
      );
      expect(
        (await r.op('/businesses/biz_nobody/payment-account', 'PUT', { payment_account: 'acct_1Nobody' })).status,
      ).toBe(404);
      // Salon's account forgotten: an event naming it is acknowledged and applied nowhere.
      const { booking, session } = await paidBooking(r, SALON, 7);
      const forgot = await r.op(`/businesses/${SALON.id}/payment-account`, 'PUT', { payment_account: null });
      expect(forgot.status, forgot.text).toBe(200);
      expect(forgot.body.business.payment_account).toBeUndefined();
      expect((await post(r, SALON, r.stripe.pay(session.id))).status).toBe(200);
      expect((await bookingAt(r, SALON, booking.id)).body.booking.status).toBe('requires_action');
      const back = await r.op(`/businesses/${SALON.id}/payment-account`, 'PUT', { payment_account: SALON.account });
      expect(back.body.business.payment_account).toBe(SALON.account);
    });

    test('an account changed by another process is followed by the loaded business: its next paid booking is on the new account', async () => {
      await paidBooking(r, NORD, 8);
      const loaded = await r.hosting.pool.peek(NORD.id, async (s) => s);
      expect(loaded).toBeDefined();
      const moved = { ...NORD, account: 'acct_1NordMoved' };
      const other = await r.another();
      try {
        expect(await other.setPaymentAccount(NORD.id, moved.account)).toBe(true);
      } finally {
        await other.close();
      }
      await waitFor(
        () => r.directory.get(NORD.id)?.paymentAccount === moved.account,
        5000,
        "this process's directory showing the new account",
      );
      const { session } = await paidBooking(r, moved, 9);
      expect(await r.hosting.pool.peek(NORD.id, async (s) => s)).not.toBe(loaded);
      // The new account's event, through the one Connect endpoint, is taken by the business composed on it.
      const paid = r.stripe.pay(session.id);
      expect(paid.account).toBe(moved.account);
      expect((await post(r, SALON, paid)).status).toBe(200);
      const nordBooking = [...r.stripe.sessions.values()].find((s) => s.id === session.id)!.client_reference_id;
      expect((await bookingAt(r, NORD, nordBooking)).body.booking.status).toBe('confirmed');
      const back = await r.another();
      try {
        await back.setPaymentAccount(NORD.id, NORD.account);
      } finally {
        await back.close();
      }
    });
  });
}

connect('SQLite', () => undefined);
if (PG_URL) connect('PostgreSQL', () => PG_URL);
else
  describe.skip(
    noteSkipped('Stripe Connect on a hosting deployment: one webhook endpoint for every business (PostgreSQL)'),
    () => {
      test('each business is paid through the one Connect endpoint', () => {});
    },
  );
