/**
 * The platform client library against our own server run as an operator runs it
 * (`usp-server serve --demo --require-auth`, its own process and clock, payments through the Stripe
 * emulator), on each binding in turn: discover, query, hold, book, pay, reschedule, cancel, and a
 * waitlist offer accepted, every privileged call proved with the platform's key (DPoP on REST, the
 * proof in `_meta.usp` on MCP) and every scoped call with the credential the business issued.
 * The business's signed webhooks reach the library's receiver and are verified against its profile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BusinessClient,
  PlatformIdentity,
  ProfileCache,
  WebhookReceiver,
  isBookingEvent,
  isWaitlistEvent,
  memoryCredentials,
  servePlatform,
  type PlatformServer,
  type WebhookEvent,
} from '../../src/client/index.js';
import { ensureBuilt } from '../support/build.js';
import { startServeCli, type RunningCli } from '../support/cli.js';
import { startStripeEmulator, type EmulatedStripe } from '../support/stripe-emulator.js';

const BUYER = { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' };
const ZONE = 'America/New_York';
/** A day `n` days from now in the business's zone (the server runs on the real clock). */
const dayAhead = (n: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(Date.now() + n * 86_400_000),
  );

async function until<T>(f: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await f();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

let stripe: EmulatedStripe;
let cli: RunningCli;
let platform: PlatformServer;
const identity = new PlatformIdentity();
const profiles = new ProfileCache();
const events: WebhookEvent[] = [];
const refusals: string[] = [];

beforeAll(async () => {
  ensureBuilt();
  stripe = await startStripeEmulator({ now: Date.now });
  cli = await startServeCli([
    '--demo',
    '--require-auth',
    '--allow-loopback-profiles',
    '--db',
    ':memory:',
    '--port',
    '0',
    '--payments',
    'stripe',
    '--stripe-secret-key',
    stripe.secretKey,
    '--stripe-webhook-secret',
    stripe.webhookSecret,
    '--stripe-api-url',
    stripe.url,
  ]);
  stripe.webhookUrl = `${cli.url}/payments/stripe/webhook`;
  const receiver = new WebhookReceiver({ businesses: () => [cli.url], profiles, onEvent: (e) => void events.push(e) });
  const receive = receiver.receive.bind(receiver);
  receiver.receive = async (req) => {
    const a = await receive(req);
    if (a.error) refusals.push(`${a.error.code}: ${a.error.message}`);
    return a;
  };
  platform = await servePlatform(identity, { receiver });
}, 120_000);

afterAll(async () => {
  await cli?.stop();
  await stripe?.close();
  await platform?.close();
});

describe.each([
  ['rest', 3],
  ['mcp', 6],
] as const)('the whole booking lifecycle through the client on %s against serve --require-auth', (binding, ahead) => {
  it('discovers, queries, holds, books, pays, reschedules, cancels, and accepts a waitlist offer', async () => {
    const biz = await BusinessClient.connect(cli.url, {
      identity,
      profiles,
      credentials: memoryCredentials(),
      prefer: binding,
    });
    try {
      expect(biz.binding).toBe(binding);
      expect(Object.keys(biz.negotiated.capabilities)).toEqual(
        expect.arrayContaining(['dev.usp-protocol.services.bookings', 'dev.usp-protocol.services.waitlist']),
      );

      const services = await biz.call('list_services', { pagination: { limit: 100 } });
      expect(services.error).toBeNull();
      expect(services.data.services.map((s: any) => s.id)).toEqual(
        expect.arrayContaining(['svc_haircut', 'svc_massage_60', 'svc_yoga_class']),
      );

      // Query, hold, book on the hold.
      const day = dayAhead(ahead);
      const q = await biz.call('query_availability', { service_id: 'svc_haircut', start_date: day, end_date: day });
      expect(q.ok).toBe(true);
      const [first, , second] = q.data.slots;
      const hold = await biz.call('hold_slot', { service_id: 'svc_haircut', slot_id: first.id });
      expect(hold.error).toBeNull();
      const made = await biz.call('create_booking', {
        service_id: 'svc_haircut',
        slot_id: first.id,
        hold_id: hold.data.hold.id,
        buyer: BUYER,
      });
      expect(made.error).toBeNull();
      const booking = made.data.booking;
      expect(booking.status).toBe('confirmed');

      // Reschedule and cancel under the booking's credential, each conditional on the revision last read.
      const read = await biz.call('get_booking', { booking_id: booking.id });
      expect(read.data.booking.revision).toBe(booking.revision);
      const moved = await biz.call(
        'reschedule_booking',
        { booking_id: booking.id, slot_id: second.id },
        { ifMatch: booking.revision },
      );
      expect(moved.error).toBeNull();
      expect(moved.data.booking.slot.start).toBe(second.start);
      const stale = await biz.call('cancel_booking', { booking_id: booking.id }, { ifMatch: booking.revision });
      expect(stale.error).toMatchObject({ kind: 'protocol', code: 'revision_mismatch', next: 'reread' });
      const canceled = await biz.call(
        'cancel_booking',
        { booking_id: booking.id, reason: 'plans changed' },
        { ifMatch: moved.data.booking.revision },
      );
      expect(canceled.error).toBeNull();
      expect(canceled.data.booking.status).toBe('canceled');

      // A paid service: the booking waits for payment, the buyer pays at the (emulated) provider.
      const mq = await biz.call('query_availability', { service_id: 'svc_massage_60', start_date: day, end_date: day });
      const paid = await biz.call('create_booking', {
        service_id: 'svc_massage_60',
        slot_id: mq.data.slots[0].id,
        buyer: BUYER,
      });
      expect(paid.data.booking.status).toBe('requires_action');
      const session = await until(
        () => [...stripe.sessions.values()].find((s) => s.client_reference_id === paid.data.booking.id),
        'the checkout session',
      );
      expect(await stripe.deliver(stripe.pay(session.id))).toBe(200);
      const after = await biz.call('get_booking', { booking_id: paid.data.booking.id });
      expect(after.data.booking.status).toBe('confirmed');

      // A full class: join its waitlist, a place frees, the offer is accepted (which books).
      const yq = await biz.call('query_availability', { service_id: 'svc_yoga_class', start_date: day, end_date: day });
      const cls = yq.data.slots[0];
      const group = await biz.call('create_booking', {
        service_id: 'svc_yoga_class',
        slot_id: cls.id,
        buyer: BUYER,
        party_size: cls.capacity!.remaining! - 1,
      });
      const single = await biz.call('create_booking', {
        service_id: 'svc_yoga_class',
        slot_id: cls.id,
        buyer: { ...BUYER, email: 'single@example.com' },
      });
      expect([group.error, single.error]).toEqual([null, null]);
      const joined = await biz.call('join_waitlist', {
        service_id: 'svc_yoga_class',
        slot_id: cls.id,
        buyer: { ...BUYER, email: 'waiting@example.com' },
      });
      expect(joined.data.entry.status).toBe('waiting');
      await biz.call('cancel_booking', { booking_id: single.data.booking.id });
      // The offer reaches the platform as a verified webhook, and reads the same from the business.
      await until(
        () =>
          events.some(
            (e) => isWaitlistEvent(e) && e.entry_id === joined.data.entry.id && e.event === 'waitlist.spot_offered',
          ),
        'the offer webhook',
      );
      const offered = await biz.call('get_waitlist_entry', { entry_id: joined.data.entry.id });
      expect(offered.data.entry.status).toBe('offered');
      const accepted = await biz.call(
        'accept_waitlist_offer',
        { entry_id: joined.data.entry.id },
        { ifMatch: offered.data.entry.revision },
      );
      expect(accepted.error).toBeNull();
      expect(accepted.data.entry.status).toBe('accepted');
      expect(accepted.data.booking.status).toBe('confirmed');

      // The business's webhooks for these bookings arrived signed, and were verified and handed on once.
      const paidId = paid.data.booking.id;
      await until(
        () => events.some((e) => isBookingEvent(e) && e.booking_id === paidId && e.data?.status === 'confirmed'),
        'the paid booking confirmed webhook',
      );
      await until(
        () =>
          events.some(
            (e) => isWaitlistEvent(e) && e.entry_id === joined.data.entry.id && e.event === 'waitlist.converted',
          ),
        'the waitlist conversion webhook',
      );
      expect(refusals).toEqual([]);
      expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
    } finally {
      await biz.close();
    }
  }, 60_000);
});
