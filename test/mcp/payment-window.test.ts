/**
 * The payment window fits the appointment (issue 36): a link stays open up to a day after booking,
 * closing an hour before the start if that is sooner, never less than half an hour; the service's
 * text and a hold's say so before booking, the booking and its Stripe Checkout Session expire with
 * it, and a booking whose link lapsed while its time is still free gets a fresh one
 * (uspserver_bookings_renew_payment, and its REST twin), refused in words with a next step
 * otherwise. Through the official SDK client reading content[].text, REST over HTTP and the Stripe
 * emulator, on the fixed test clock.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { parseBusinessFile } from '../../src/server/business-file.js';
import { when } from '../../src/bindings/mcp/format.js';
import { BUYER, demoBusiness } from '../support/server.js';
import { sessionOf, startStripeRig, type StripeRig } from '../payments/helpers.js';
import { connectMcp, meta, nyDate, type McpConn, type ToolResult } from './helpers.js';

const ZONE = 'America/New_York';
/** Tuesday 2026-12-01, 11 PM in New York: a person books at night for the next morning. */
const NIGHT = Date.parse('2026-12-02T04:00:00Z');

let rig: StripeRig;
let conn: McpConn;
beforeEach(async () => {
  rig = await startStripeRig();
  conn = await connectMcp('v2', 'memory', rig.t);
});
afterEach(async () => {
  await conn.close();
  await rig.close();
});

const text = (r: ToolResult) => r.content.map((c) => c.text).join('\n');
const READS = new Set(['usp_services_get', 'usp_services_list', 'usp_availability_query', 'usp_bookings_get']);
/** A write carries an idempotency key (a fresh one unless given); a read carries none. */
const call = (tool: string, args: Record<string, unknown>, key?: string) =>
  conn.call(tool, { ...args, ...meta(undefined, READS.has(tool) ? {} : { idempotency_key: key ?? randomUUID() }) });
const firstSlot = async (service_id: string, date: string) =>
  (await call('usp_availability_query', { service_id, start_date: date, end_date: date })).structuredContent.slots[0];
const book = async (service_id: string, slot_id: string, buyer: Record<string, unknown> = BUYER) =>
  call('usp_bookings_create', { service_id, slot_id, buyer });

describe('the payment window is said before booking', () => {
  it('usp_services_get says the whole window and how a lapsed link is renewed; the list says it compactly for paid services only', async () => {
    const card = text(await call('usp_services_get', { service_id: 'svc_massage_60' }));
    expect(card).toContain(
      'Payment window: the payment link is open up to 24 hours after booking, closing 1 hour before the start if that comes sooner, but never less than 30 minutes after booking (nor past the start)',
    );
    expect(card).toContain('uspserver_bookings_renew_payment');
    const list = text(await call('usp_services_list', {})).split('\n');
    expect(list.find((l) => l.includes('[svc_massage_60]'))).toContain(
      'by a payment link (open up to 24 hours after booking, closing 1 hour before the start if that comes sooner)',
    );
    expect(list.find((l) => l.includes('[svc_bridal_trial]'))).toContain(
      'deposit paid when booking by a payment link (open up to 24 hours after booking',
    );
    expect(list.find((l) => l.includes('[svc_haircut]'))).not.toContain('open up to');
  });

  it('booked at 11 PM for the next morning, the hold says the window, and the booking, its action and its Stripe session close an hour before the start (not half an hour after booking)', async () => {
    rig.t.clock.set(NIGHT);
    const slot = await firstSlot('svc_massage_60', nyDate(NIGHT, 1));
    const startMs = Date.parse(slot.start);
    expect(startMs - NIGHT).toBeLessThan(12 * 3600_000);
    const hold = await call('usp_availability_hold', { service_id: 'svc_massage_60', slot_id: slot.id });
    const closes = new Date(startMs - 3600_000).toISOString();
    expect(text(hold)).toContain(
      'Once booked, it must be paid by a payment link open up to 24 hours after booking, closing 1 hour before the start if that comes sooner, but never less than 30 minutes after booking (nor past the start); unpaid by then, the booking is canceled',
    );
    const r = await call('usp_bookings_create', {
      service_id: 'svc_massage_60',
      slot_id: slot.id,
      hold_id: hold.structuredContent.hold.id,
      buyer: BUYER,
    });
    const b = r.structuredContent.booking;
    expect(b.status).toBe('requires_action');
    expect(Date.parse(b.expires_at)).toBe(startMs - 3600_000);
    expect(Date.parse(b.actions[0].expires_at)).toBe(startMs - 3600_000);
    expect(text(r)).toContain(`before ${when(closes, ZONE)}`);
    const s = await sessionOf(rig, b.id);
    expect(s.expires_at * 1000).toBe(startMs - 3600_000);
  });

  it('a link never closes sooner than the floor, nor past the start', async () => {
    // 70 minutes before the start: "an hour before" is 10 minutes away; the floor gives 30.
    const slot = await firstSlot('svc_massage_60', nyDate(NIGHT, 1));
    const startMs = Date.parse(slot.start);
    rig.t.clock.set(startMs - 70 * 60_000);
    const b = (await book('svc_massage_60', slot.id)).structuredContent.booking;
    expect(Date.parse(b.expires_at)).toBe(startMs - 40 * 60_000);
  });

  it('a business file whose shortest window is longer than its longest is refused, naming the setting', () => {
    const def = demoBusiness();
    const raw = {
      ...JSON.parse(JSON.stringify(def)),
      settings: { payment_ttl_seconds: 3600, payment_min_window_seconds: 7200 },
    };
    expect(() => parseBusinessFile(raw, 'b.json')).toThrow(
      /payment_min_window_seconds must not be longer than payment_ttl_seconds/,
    );
  });
});

describe('a lapsed payment link is renewed while the time is still free', () => {
  async function lapsed() {
    const slot = await firstSlot('svc_massage_60', nyDate(rig.t.clock.now(), 3));
    const b = (await book('svc_massage_60', slot.id)).structuredContent.booking;
    rig.t.clock.set(Date.parse(b.expires_at) + 1000);
    const got = await call('usp_bookings_get', { booking_id: b.id });
    expect(got.structuredContent.booking.status).toBe('canceled');
    return { slot, booking: got };
  }

  it('the canceled booking names the tool; the tool makes it again with a fresh link and a Stripe session, and a replay or a second call answers the same booking', async () => {
    const { booking } = await lapsed();
    const old = booking.structuredContent.booking;
    expect(text(booking)).toContain(`uspserver_bookings_renew_payment with booking_id ${old.id}`);
    const key = randomUUID();
    const r = await call('uspserver_bookings_renew_payment', { booking_id: old.id }, key);
    expect(r.isError).toBeFalsy();
    const fresh = r.structuredContent.booking;
    expect(fresh.id).not.toBe(old.id);
    expect([fresh.status, fresh.slot.id, fresh.buyer.email]).toEqual(['requires_action', old.slot.id, BUYER.email]);
    expect(Date.parse(fresh.expires_at)).toBeGreaterThan(rig.t.clock.now());
    const t = text(r);
    expect(t).toContain(`made again as ${fresh.id} with a fresh payment link`);
    expect(t).toContain(`must pay $110.00 at ${fresh.actions[0].continue_url} before ${when(fresh.expires_at, ZONE)}`);
    expect((await sessionOf(rig, fresh.id)).client_reference_id).toBe(fresh.id);
    const replay = await call('uspserver_bookings_renew_payment', { booking_id: old.id }, key);
    expect(replay.structuredContent.booking.id).toBe(fresh.id);
    expect(text(replay)).toBe(t);
    const again = await call('uspserver_bookings_renew_payment', { booking_id: old.id });
    expect(again.structuredContent.booking.id).toBe(fresh.id);
    expect(text(again)).toContain(`already made again as ${fresh.id}`);
    expect((await call('usp_bookings_get', { booking_id: old.id })).structuredContent.booking.status).toBe('canceled');
  });

  it('refused in words, with what to do next, once the time was taken, and for a booking with nothing to pay', async () => {
    const { slot, booking } = await lapsed();
    await book('svc_massage_60', slot.id, { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' });
    const taken = await call('uspserver_bookings_renew_payment', { booking_id: booking.structuredContent.booking.id });
    expect(taken.isError).toBe(true);
    expect(text(taken)).toMatch(
      /\[slot_unavailable\] The time of booking \S+ .* was taken after its payment link lapsed.* Next: pick another time from usp_availability_query/,
    );
    const plain = (await book('svc_haircut', (await firstSlot('svc_haircut', nyDate(rig.t.clock.now(), 4))).id))
      .structuredContent.booking;
    const refused = await call('uspserver_bookings_renew_payment', { booking_id: plain.id });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(
      /\[invalid_transition\] Booking \S+ is confirmed: nothing waits to be paid on it.* Next: /,
    );
  });

  it('a link still open is answered with the booking and its link, unchanged', async () => {
    const slot = await firstSlot('svc_massage_60', nyDate(rig.t.clock.now(), 3));
    const b = (await book('svc_massage_60', slot.id)).structuredContent.booking;
    const r = await call('uspserver_bookings_renew_payment', { booking_id: b.id });
    expect(r.structuredContent.booking.id).toBe(b.id);
    expect(text(r)).toContain(`still open until`);
    expect(text(r)).toContain(b.actions[0].continue_url);
  });

  it('the REST twin renews under the same rules, and an idempotent replay answers the original result', async () => {
    const q = await rig.t.call('POST', '/availability/query', {
      service_id: 'svc_massage_60',
      start_date: nyDate(rig.t.clock.now(), 5),
      end_date: nyDate(rig.t.clock.now(), 5),
    });
    const made = await rig.t.call('POST', '/bookings', {
      service_id: 'svc_massage_60',
      slot_id: q.body.slots[0].id,
      buyer: BUYER,
    });
    rig.t.clock.set(Date.parse(made.body.booking.expires_at) + 1000);
    const key = randomUUID();
    const path = `/ext/usp-server/bookings/${made.body.booking.id}/renew-payment`;
    const r = await rig.t.call('POST', path, {}, { idempotencyKey: key });
    expect(r.status).toBe(200);
    expect(r.body.booking.status).toBe('requires_action');
    expect(r.body.booking.id).not.toBe(made.body.booking.id);
    const replay = await rig.t.call('POST', path, {}, { idempotencyKey: key });
    expect(replay.body).toEqual(r.body);
  });
});
