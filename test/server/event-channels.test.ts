/**
 * Channels, not named workers (issue 38, item 3): the pipeline tells the scope's registered channels
 * when a write commits, and nobody when a call only read. Through the REST door of a server with
 * mail (to the SMTP capture) and payments (to the Stripe emulator): a booking wakes the mail and
 * payment workers and the webhook dispatcher; reads and a replayed answer wake none of them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { startStripeEmulator, type EmulatedStripe } from '../support/stripe-emulator.js';
import { TEST_NOW } from '../support/time.js';
import { sweep } from '../../src/operations/index.js';

let t: TestServer;
let sink: SmtpSink;
let stripe: EmulatedStripe;
let woken: { mail: () => number; payments: () => number; webhooks: () => number };

beforeAll(async () => {
  sink = await startSmtpSink();
  stripe = await startStripeEmulator({ now: () => t?.clock.now() ?? TEST_NOW });
  t = await startTestServer({
    mail: { smtpUrl: sink.url, startWorker: false },
    payments: {
      provider: 'stripe',
      stripe: { secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, apiUrl: stripe.url },
      startWorker: false,
    },
  });
  const mail = vi.spyOn(t.server.mailWorker!, 'nudge');
  const payments = vi.spyOn(t.server.paymentWorker!, 'nudge');
  // The webhooks channel is told with every channel (`channels.committed`); the dispatcher's own
  // nudge is not counted, as it nudges itself whenever one of its deliveries ends.
  const webhooks = vi.spyOn(t.server.scope.channels, 'committed');
  woken = {
    mail: () => mail.mock.calls.length,
    payments: () => payments.mock.calls.length,
    webhooks: () => webhooks.mock.calls.length,
  };
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
  await stripe?.close();
});
beforeEach(() => vi.clearAllMocks());

const nobodyWoken = () =>
  expect({ mail: woken.mail(), payments: woken.payments(), webhooks: woken.webhooks() }).toEqual({
    mail: 0,
    payments: 0,
    webhooks: 0,
  });

async function bookPaid(key: string) {
  const q = await t.call('POST', '/availability/query', {
    service_id: 'svc_massage_60',
    start_date: day(3),
    end_date: day(3),
  });
  expect(q.status).toBe(200);
  const body = { service_id: 'svc_massage_60', slot_id: q.body.slots[0].id, buyer: BUYER };
  const b = await t.call('POST', '/bookings', body, { idempotencyKey: key });
  expect(b.status).toBe(201);
  return { ...(b.body.booking as { id: string }), body };
}

describe('a read wakes no worker; a committed write wakes the channels registered with the scope', () => {
  test('reads (a service, availability, a booking) wake neither the mail nor the payment worker nor the dispatcher', async () => {
    const booking = await bookPaid('channels-read-1');
    vi.clearAllMocks();
    expect((await t.call('GET', '/services/svc_haircut')).status).toBe(200);
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(4),
      end_date: day(4),
    });
    expect(q.status).toBe(200);
    expect(q.body.slots.length).toBeGreaterThan(0);
    expect((await t.call('GET', `/bookings/${booking.id}`)).status).toBe(200);
    nobodyWoken();
  });

  test('a booking that waits for its payment wakes the mail and payment workers and the dispatcher, each once', async () => {
    const booking = await bookPaid('channels-write-1');
    expect({ mail: woken.mail(), payments: woken.payments(), webhooks: woken.webhooks() }).toEqual({
      mail: 1,
      payments: 1,
      webhooks: 1,
    });
    // What the channels were woken for is there: the payment job and the buyer's message, written in the booking's transaction.
    const jobs = await t.server.store.read((tx) => tx.payments.forBooking(booking.id));
    expect(jobs.map((j) => j.kind)).toEqual(['checkout']);
    const mails = await t.server.store.read((tx) => tx.mail.forSubject(booking.id));
    expect(mails.map((m) => m.kind)).toContain('payment_needed');
  });

  test('the same booking replayed under its idempotency key commits nothing new and wakes nobody', async () => {
    const first = await bookPaid('channels-replay-1');
    vi.clearAllMocks();
    const again = await t.call('POST', '/bookings', first.body, { idempotencyKey: 'channels-replay-1' });
    expect(again.status).toBe(201);
    expect(again.body.booking.id).toBe(first.id);
    nobodyWoken();
  });

  // Last: it moves the shared server's clock on.
  test("the sweeper hands its expiries to the same channels: a lapsed booking's checkout is closed by a job and its workers woken; a sweep with nothing due wakes nobody", async () => {
    const booking = await bookPaid('channels-sweep-1');
    await t.server.paymentWorker!.tick(); // the checkout session is made, so closing it is a job
    const scope = t.server.scope;
    const target = () => ({
      store: scope.store,
      biz: scope.business!.current(),
      channels: scope.channels,
      clock: t.clock,
      ids: t.server.ids,
    });
    t.clock.advance(86_400_000);
    vi.clearAllMocks();
    const events = await sweep(target());
    expect(events.map((e) => [e.event, e.payload.booking_id])).toContainEqual(['booking.canceled', booking.id]);
    const jobs = await t.server.store.read((tx) => tx.payments.forBooking(booking.id));
    expect(jobs.map((j) => j.kind)).toContain('expire_checkout');
    // The mail channel wrote the buyer's message in the sweep's transaction.
    const mails = await t.server.store.read((tx) => tx.mail.forSubject(booking.id));
    expect(mails.map((m) => m.kind)).toContain('booking_canceled');
    expect({ mail: woken.mail(), payments: woken.payments(), webhooks: woken.webhooks() }).toEqual({
      mail: 1,
      payments: 1,
      webhooks: 1,
    });
    vi.clearAllMocks();
    expect(await sweep(target())).toEqual([]);
    nobodyWoken();
  });
});
