/**
 * Booking lifecycle over REST (spec §5, CONFORMANCE §4, decisions D2, D3, D8): create with and
 * without a hold, validation outcomes, reads scoped to the caller, partial update, cancellation
 * policy, reschedule, manual confirmation and expiry of pending bookings. Time only moves through
 * the ManualClock. Every success body is checked against the official OpenAPI document when the
 * spec folder is present.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, BUYER, OTHER_PLATFORM, day, startTestServer, type TestServer } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';
import { conformRestResponse, describeConformance } from '../support/spec.js';

type Res = { status: number; body: any; headers: Headers };

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

let validated = 0;

/**
 * Validates a response against the official artifacts (skipped when the spec folder is absent;
 * the harness prints why in the describeConformance block at the end of this file). Bodies that
 * carry an error message are business outcomes: their messages (and booking, if any) are checked
 * against the schema definitions, since the OpenAPI documents no 200 for creations.
 */
function conform(method: string, path: string, res: Res): void {
  if (conformRestResponse(method, path, res)) validated++;
}

async function availableSlots(t: TestServer, serviceId: string, date: string): Promise<any[]> {
  const r = await t.call('POST', '/availability/query', {
    service_id: serviceId,
    start_date: date,
    end_date: date,
    limit: 500,
  });
  expect(r.status).toBe(200);
  conform('POST', '/availability/query', r);
  return r.body.slots;
}

async function slotIds(t: TestServer, serviceId: string, date: string): Promise<Set<string>> {
  return new Set((await availableSlots(t, serviceId, date)).map((s) => s.id));
}

async function book(
  t: TestServer,
  body: Record<string, unknown>,
  opts: Parameters<TestServer['call']>[3] = {},
): Promise<Res> {
  const r = await t.call('POST', '/bookings', { buyer: BUYER, ...body }, opts);
  conform('POST', '/bookings', r);
  return r;
}

async function bookOk(
  t: TestServer,
  serviceId: string,
  slotId: string,
  extra: Record<string, unknown> = {},
): Promise<any> {
  const r = await book(t, { service_id: serviceId, slot_id: slotId, ...extra });
  expect(r.status).toBe(201);
  expect(r.body.messages ?? []).toEqual([]);
  return r.body.booking;
}

async function getBooking(t: TestServer, id: string, opts: Parameters<TestServer['call']>[3] = {}): Promise<Res> {
  const r = await t.call('GET', `/bookings/${id}`, undefined, opts);
  conform('GET', '/bookings/{booking_id}', r);
  return r;
}

async function storedBookingCount(t: TestServer): Promise<number> {
  return t.server.store.read(async (tx) => (await tx.bookings.recent(1000)).length);
}

function errorCodes(body: any): string[] {
  return (body?.messages ?? []).filter((m: any) => m.type === 'error').map((m: any) => m.code);
}

const HOUR = 3_600_000;

// ---------------------------------------------------------------------------------------------

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});

describe('creating a booking re-checks the slot and occupies it', () => {
  it('without a hold: 201, confirmed, and the slot is gone from availability', async () => {
    const [slot] = await availableSlots(t, 'svc_haircut', day(2));
    const booking = await bookOk(t, 'svc_haircut', slot.id);
    expect(booking.status).toBe('confirmed');
    expect(booking.service_id).toBe('svc_haircut');
    expect(booking.slot.id).toBe(slot.id);
    expect(booking.party_size).toBe(1);
    expect(booking.confirmation_mode).toBe('auto');
    expect(typeof booking.revision).toBe('string');
    expect((await slotIds(t, 'svc_haircut', day(2))).has(slot.id)).toBe(false);
    expect(await storedBookingCount(t)).toBe(1);
  });

  it('with a hold: the hold becomes converted, and repeating the create with that hold returns the same booking', async () => {
    const [slot] = await availableSlots(t, 'svc_haircut', day(2));
    const hold = await t.call('POST', '/availability/holds', { service_id: 'svc_haircut', slot_id: slot.id });
    conform('POST', '/availability/holds', hold);
    expect(hold.status).toBe(201);
    const holdId = hold.body.hold.id;

    const first = await bookOk(t, 'svc_haircut', slot.id, { hold_id: holdId });
    expect(first.status).toBe('confirmed');
    const stored = await t.server.store.read((tx) => tx.holds.get(holdId));
    expect(stored?.hold.status).toBe('converted');

    const again = await book(t, { service_id: 'svc_haircut', slot_id: slot.id, hold_id: holdId });
    expect(again.status).toBe(201);
    expect(again.body.booking.id).toBe(first.id);
    expect(await storedBookingCount(t)).toBe(1);
    expect((await slotIds(t, 'svc_haircut', day(2))).has(slot.id)).toBe(false);
  });
});

describe('invalid bookings are business outcomes (HTTP 200 + message) and store nothing', () => {
  it('at_buyer_location without delivery_address -> validation_error on $.delivery_address', async () => {
    const [slot] = await availableSlots(t, 'svc_home_blowout', day(2));
    const r = await book(t, { service_id: 'svc_home_blowout', slot_id: slot.id });
    expect(r.status).toBe(200);
    expect(r.body.booking).toBeUndefined();
    expect(errorCodes(r.body)).toEqual(['validation_error']);
    expect(r.body.messages[0].path).toBe('$.delivery_address');
    expect(await storedBookingCount(t)).toBe(0);
    expect((await slotIds(t, 'svc_home_blowout', day(2))).has(slot.id)).toBe(true);
  });

  it('at_buyer_location with a delivery_address books and echoes it', async () => {
    const [slot] = await availableSlots(t, 'svc_home_blowout', day(2));
    const address = { line1: '1 Main St', city: 'New York', country: 'US' };
    const r = await book(t, { service_id: 'svc_home_blowout', slot_id: slot.id, delivery_address: address });
    expect(r.status).toBe(201);
    expect(r.body.booking.delivery_address).toMatchObject(address);
  });

  it('a slot that is inside min_advance when booked -> booking_window_violated', async () => {
    const [slot] = await availableSlots(t, 'svc_haircut', day(1));
    t.clock.set(Date.parse(slot.start) - 30 * 60_000); // 30 min before start; min_advance is PT1H
    const r = await book(t, { service_id: 'svc_haircut', slot_id: slot.id });
    expect(r.status).toBe(200);
    expect(errorCodes(r.body)).toEqual(['booking_window_violated']);
    expect(r.body.messages[0].severity).toBe('requires_buyer_input');
    expect(await storedBookingCount(t)).toBe(0);
  });

  it('party_size 2 on an appointment -> validation_error on $.party_size', async () => {
    const [slot] = await availableSlots(t, 'svc_haircut', day(2));
    const r = await book(t, { service_id: 'svc_haircut', slot_id: slot.id, party_size: 2 });
    expect(r.status).toBe(200);
    expect(errorCodes(r.body)).toEqual(['validation_error']);
    expect(r.body.messages[0].path).toBe('$.party_size');
    expect(await storedBookingCount(t)).toBe(0);
  });
});

describe('a booking is visible only to the platform that made it (spec-next 9.4.1: not found in the path is a 404)', () => {
  it('another platform reading it gets 404 booking-not-found and no booking', async () => {
    const [slot] = await availableSlots(t, 'svc_haircut', day(2));
    const booking = await bookOk(t, 'svc_haircut', slot.id);
    const r = await getBooking(t, booking.id, { profile: OTHER_PLATFORM });
    expect([r.status, r.body.type, r.body.code]).toEqual([
      404,
      'https://usp-protocol.dev/errors/booking-not-found',
      'booking_not_found',
    ]);
    expect(r.body.booking).toBeUndefined();

    const own = await getBooking(t, booking.id);
    expect(own.status).toBe(200);
    expect(own.body.booking.id).toBe(booking.id);
  });

  it('an unknown booking id answers 404 booking-not-found the same way', async () => {
    const r = await getBooking(t, 'bkg_doesnotexist');
    expect([r.status, r.body.code]).toEqual([404, 'booking_not_found']);
  });
});

describe('update is a partial change of buyer, recipient, delivery address or notes', () => {
  it('a partial buyer change keeps the other buyer fields and the notes, and changes the revision', async () => {
    const [slot] = await availableSlots(t, 'svc_haircut', day(2));
    const booking = await bookOk(t, 'svc_haircut', slot.id, { notes: 'window seat' });
    const r = await t.call('PUT', `/bookings/${booking.id}`, { buyer: { phone_number: '+12125550100' } });
    conform('PUT', '/bookings/{booking_id}', r);
    expect(r.status).toBe(200);
    const updated = r.body.booking;
    expect(updated.buyer).toEqual({ ...BUYER, phone_number: '+12125550100' });
    expect(updated.notes).toBe('window seat');
    expect(updated.slot).toEqual(booking.slot);
    expect(updated.status).toBe('confirmed');
    expect(updated.revision).not.toBe(booking.revision);

    const read = await getBooking(t, booking.id);
    expect(read.body.booking.buyer).toEqual(updated.buyer);
    expect(read.body.booking.revision).toBe(updated.revision);
  });
});

describe('update refuses the members it cannot change with validation_error naming the operation to use (spec 5.3.3)', () => {
  it('status, service_id and slot_id answer one validation_error each, on the field, naming cancel, a new booking and reschedule; nothing changes', async () => {
    const [slot] = await availableSlots(t, 'svc_haircut', day(2));
    const booking = await bookOk(t, 'svc_haircut', slot.id, { notes: 'window seat' });
    const r = await t.call('PUT', `/bookings/${booking.id}`, {
      notes: 'changed',
      status: 'canceled',
      service_id: 'svc_massage_60',
      slot_id: 'x',
    });
    conform('PUT', '/bookings/{booking_id}', r);
    expect(r.status).toBe(200);
    expect(errorCodes(r.body)).toEqual(['validation_error', 'validation_error', 'validation_error']);
    const byPath = Object.fromEntries(r.body.messages.map((m: any) => [m.path, m]));
    expect(Object.keys(byPath).sort()).toEqual(['$.service_id', '$.slot_id', '$.status']);
    expect(byPath['$.status'].content).toMatch(/cancel/);
    expect(byPath['$.service_id'].content).toMatch(/new one/);
    expect(byPath['$.slot_id'].content).toMatch(/reschedule/);
    for (const m of r.body.messages) expect(m.severity).toBe('requires_buyer_input');

    const read = await getBooking(t, booking.id);
    expect(read.body.booking.status).toBe('confirmed');
    expect(read.body.booking.notes).toBe('window seat');
    expect(read.body.booking.revision).toBe(booking.revision);
  });

  it('members that are not booking members at all are still ignored (never stricter than the protocol)', async () => {
    const [slot] = await availableSlots(t, 'svc_haircut', day(2));
    const booking = await bookOk(t, 'svc_haircut', slot.id);
    const r = await t.call('PUT', `/bookings/${booking.id}`, { notes: 'quiet chair', x_vendor_hint: 1 });
    expect(r.status).toBe(200);
    expect(r.body.messages ?? []).toEqual([]);
    expect(r.body.booking.notes).toBe('quiet chair');
  });
});

describe('moves the state machine forbids are HTTP 200 invalid_transition outcomes with the booking unchanged (spec-next 5.1.1, D2)', () => {
  it('update and reschedule of a canceled booking are refused and change nothing', async () => {
    const slots = await availableSlots(t, 'svc_haircut', day(3));
    const booking = await bookOk(t, 'svc_haircut', slots[0].id);
    const c = await t.call('POST', `/bookings/${booking.id}/cancel`, {});
    conform('POST', '/bookings/{booking_id}/cancel', c);
    expect(c.body.booking.status).toBe('canceled');
    const revision = c.body.booking.revision;

    const u = await t.call('PUT', `/bookings/${booking.id}`, { notes: 'too late' });
    conform('PUT', '/bookings/{booking_id}', u);
    expect(u.status).toBe(200);
    expect(u.headers.get('content-type')).toContain('application/json');
    expect(u.body.messages.map((m: any) => m.code)).toEqual(['invalid_transition']);
    expect(u.body.booking.status).toBe('canceled');

    const other = slots.find((s: any) => s.start !== slots[0].start)!;
    const rs = await t.call('POST', `/bookings/${booking.id}/reschedule`, { slot_id: other.id });
    conform('POST', '/bookings/{booking_id}/reschedule', rs);
    expect(rs.status).toBe(200);
    expect(rs.body.messages.map((m: any) => m.code)).toEqual(['invalid_transition']);
    expect(rs.body.booking.status).toBe('canceled');

    const read = await getBooking(t, booking.id);
    expect(read.body.booking.status).toBe('canceled');
    expect(read.body.booking.revision).toBe(revision);
    expect(read.body.booking.notes).toBeUndefined();
    expect(read.body.booking.slot.id).toBe(slots[0].id);
    expect((await slotIds(t, 'svc_haircut', day(3))).has(other.id)).toBe(true);
  });
});

describe('cancellation follows the service policy and frees the slot', () => {
  it('inside the free window: canceled by buyer, fee 0, slot free again', async () => {
    const [slot] = await availableSlots(t, 'svc_haircut', day(3));
    const booking = await bookOk(t, 'svc_haircut', slot.id);
    expect((await slotIds(t, 'svc_haircut', day(3))).has(slot.id)).toBe(false);

    const r = await t.call('POST', `/bookings/${booking.id}/cancel`, { reason: 'plans changed' });
    conform('POST', '/bookings/{booking_id}/cancel', r);
    expect(r.status).toBe(200);
    const b = r.body.booking;
    expect(b.status).toBe('canceled');
    expect(b.cancellation).toMatchObject({ canceled_by: 'buyer', fee: 0, refund_amount: 0, reason: 'plans changed' });
    expect(b.cancellation.canceled_at).toBe(new Date(TEST_NOW).toISOString().replace('.000Z', 'Z'));
    expect((await slotIds(t, 'svc_haircut', day(3))).has(slot.id)).toBe(true);
    expect((await getBooking(t, booking.id)).body.booking.status).toBe('canceled');
  });

  it('a haircut canceled less than 24 h before its start is charged the late fee', async () => {
    const [slot] = await availableSlots(t, 'svc_haircut', day(2));
    const booking = await bookOk(t, 'svc_haircut', slot.id);
    t.clock.set(Date.parse(slot.start) - 10 * HOUR);
    const r = await t.call('POST', `/bookings/${booking.id}/cancel`, {});
    conform('POST', '/bookings/{booking_id}/cancel', r);
    expect(r.status).toBe(200);
    expect(r.body.booking.status).toBe('canceled');
    expect(r.body.booking.cancellation).toMatchObject({ canceled_by: 'buyer', fee: 2000, refund_amount: 0 });
  });

  it('the late fee is announced by a warning, and the payment block shows it as due instead of not_required', async () => {
    const [slot] = await availableSlots(t, 'svc_haircut', day(2));
    const booking = await bookOk(t, 'svc_haircut', slot.id);
    expect(booking.payment).toMatchObject({ status: 'not_required', amount_due: 0 });
    t.clock.set(Date.parse(slot.start) - 10 * HOUR);
    const r = await t.call('POST', `/bookings/${booking.id}/cancel`, {});
    conform('POST', '/bookings/{booking_id}/cancel', r);
    expect(r.status).toBe(200);
    expect(errorCodes(r.body)).toEqual([]);
    expect(r.body.messages).toHaveLength(1);
    expect(r.body.messages[0]).toMatchObject({
      type: 'warning',
      code: 'late_cancellation_fee',
      severity: 'requires_buyer_review',
    });
    expect(r.body.messages[0].content).toContain('$20.00');
    expect(r.body.messages[0].content).toContain('24 hours');
    expect(r.body.booking.payment).toMatchObject({ status: 'pending', amount_due: 2000, currency: 'USD' });
    const read = await getBooking(t, booking.id);
    expect(read.body.booking.payment).toEqual(r.body.booking.payment);
  });

  it('inside the free window no fee warning is given and the payment block stays not_required', async () => {
    const [slot] = await availableSlots(t, 'svc_haircut', day(3));
    const booking = await bookOk(t, 'svc_haircut', slot.id);
    const r = await t.call('POST', `/bookings/${booking.id}/cancel`, {});
    expect(r.body.messages ?? []).toEqual([]);
    expect(r.body.booking.payment).toMatchObject({ status: 'not_required', amount_due: 0 });
  });

  it('the business canceling with its admin key is canceled_by business with fee 0, even late', async () => {
    const [slot] = await availableSlots(t, 'svc_haircut', day(2));
    const booking = await bookOk(t, 'svc_haircut', slot.id);
    t.clock.set(Date.parse(slot.start) - 10 * HOUR);
    const r = await t.call('POST', `/bookings/${booking.id}/cancel`, { reason: 'stylist ill' }, { apiKey: ADMIN_KEY });
    conform('POST', '/bookings/{booking_id}/cancel', r);
    expect(r.status).toBe(200);
    expect(r.body.booking.status).toBe('canceled');
    expect(r.body.booking.cancellation).toMatchObject({ canceled_by: 'business', fee: 0 });
    expect((await slotIds(t, 'svc_haircut', day(2))).has(slot.id)).toBe(true);
  });
});

describe('reschedule keeps the booking id and swaps the slots, up to max_reschedules', () => {
  it('moves the slot, counts the reschedule, frees the old slot, and refuses past the limit', async () => {
    const slots = await availableSlots(t, 'svc_haircut', day(3));
    const a = slots[0];
    const b = slots.find((s: any) => Date.parse(s.start) >= Date.parse(a.start) + 2 * HOUR)!;
    const c = slots.find((s: any) => Date.parse(s.start) >= Date.parse(b.start) + 2 * HOUR)!;
    const d = slots.find((s: any) => Date.parse(s.start) >= Date.parse(c.start) + 2 * HOUR)!;
    const booking = await bookOk(t, 'svc_haircut', a.id);

    const r1 = await t.call('POST', `/bookings/${booking.id}/reschedule`, { slot_id: b.id });
    conform('POST', '/bookings/{booking_id}/reschedule', r1);
    expect(r1.status).toBe(200);
    expect(r1.body.messages ?? []).toEqual([]);
    expect(r1.body.booking.id).toBe(booking.id);
    expect(r1.body.booking.slot.id).toBe(b.id);
    expect(r1.body.booking.status).toBe('confirmed');
    expect(r1.body.booking.revision).not.toBe(booking.revision);
    let stored = await t.server.store.read((tx) => tx.bookings.get(booking.id));
    expect(stored?.priv.reschedule_count).toBe(1);
    let free = await slotIds(t, 'svc_haircut', day(3));
    expect(free.has(a.id)).toBe(true);
    expect(free.has(b.id)).toBe(false);

    const r2 = await t.call('POST', `/bookings/${booking.id}/reschedule`, { slot_id: c.id });
    conform('POST', '/bookings/{booking_id}/reschedule', r2);
    expect(r2.body.booking.slot.id).toBe(c.id);
    stored = await t.server.store.read((tx) => tx.bookings.get(booking.id));
    expect(stored?.priv.reschedule_count).toBe(2);

    // svc_haircut allows max_reschedules: 2
    const r3 = await t.call('POST', `/bookings/${booking.id}/reschedule`, { slot_id: d.id });
    conform('POST', '/bookings/{booking_id}/reschedule', r3);
    expect(r3.status).toBe(200);
    expect(errorCodes(r3.body)).toEqual(['reschedule_limit_reached']);
    expect(r3.body.messages[0].severity).toBe('requires_buyer_review');
    expect(r3.body.booking.slot.id).toBe(c.id);
    stored = await t.server.store.read((tx) => tx.bookings.get(booking.id));
    expect(stored?.priv.reschedule_count).toBe(2);
    expect(stored?.booking.slot.id).toBe(c.id);
    free = await slotIds(t, 'svc_haircut', day(3));
    expect(free.has(b.id)).toBe(true);
    expect(free.has(c.id)).toBe(false);
    expect(free.has(d.id)).toBe(true);
    expect(await storedBookingCount(t)).toBe(1);
  });
});

describe('manual confirmation: pending until the business confirms, canceled when it never does', () => {
  it('books as pending with expires_at; only the business may confirm; confirming twice returns the current state', async () => {
    const [slot] = await availableSlots(t, 'svc_color_consult', day(3));
    const booking = await bookOk(t, 'svc_color_consult', slot.id);
    expect(booking.status).toBe('pending');
    expect(booking.confirmation_mode).toBe('manual');
    expect(booking.payment).toBeUndefined();
    expect(typeof booking.expires_at).toBe('string');
    expect(Date.parse(booking.expires_at)).toBeGreaterThan(TEST_NOW);
    expect(Date.parse(booking.expires_at)).toBeLessThanOrEqual(Date.parse(slot.start));
    expect((await slotIds(t, 'svc_color_consult', day(3))).has(slot.id)).toBe(false);

    const byPlatform = await t.call('POST', `/bookings/${booking.id}/confirm`, {});
    conform('POST', '/bookings/{booking_id}/confirm', byPlatform);
    expect(byPlatform.status).toBe(401);
    expect(byPlatform.body.type).toBe('https://usp-protocol.dev/errors/authentication-required');
    expect((await getBooking(t, booking.id)).body.booking.status).toBe('pending');

    const confirmed = await t.call(
      'POST',
      `/bookings/${booking.id}/confirm`,
      { notes: 'see you then' },
      { apiKey: ADMIN_KEY },
    );
    conform('POST', '/bookings/{booking_id}/confirm', confirmed);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.booking.status).toBe('confirmed');
    expect(confirmed.body.booking.expires_at).toBeUndefined();

    const again = await t.call('POST', `/bookings/${booking.id}/confirm`, {}, { apiKey: ADMIN_KEY });
    conform('POST', '/bookings/{booking_id}/confirm', again);
    expect(again.status).toBe(200);
    expect(again.body.booking.status).toBe('confirmed');
    expect(again.body.booking.revision).toBe(confirmed.body.booking.revision);
    expect(again.body.messages.map((m: any) => m.type)).toEqual(['info']);

    // Confirmation removed the expiry: the booking survives past the old deadline.
    t.clock.set(Date.parse(booking.expires_at) + 60_000);
    expect((await getBooking(t, booking.id)).body.booking.status).toBe('confirmed');
  });

  it('a pending booking whose expires_at passes reads as canceled by the system, stays readable, and frees its slot', async () => {
    const [slot] = await availableSlots(t, 'svc_color_consult', day(3));
    const booking = await bookOk(t, 'svc_color_consult', slot.id);
    expect(booking.status).toBe('pending');

    t.clock.set(Date.parse(booking.expires_at) - 1000);
    expect((await getBooking(t, booking.id)).body.booking.status).toBe('pending');

    t.clock.set(Date.parse(booking.expires_at) + 1000);
    const r = await getBooking(t, booking.id);
    expect(r.status).toBe(200);
    const b = r.body.booking;
    expect(b.id).toBe(booking.id);
    expect(b.status).toBe('canceled');
    expect(b.cancellation).toMatchObject({ canceled_by: 'system', fee: 0 });
    expect(b.expires_at).toBeUndefined();
    expect(b.revision).not.toBe(booking.revision);
    expect((await slotIds(t, 'svc_color_consult', day(3))).has(slot.id)).toBe(true);

    const stored = await t.server.store.read((tx) => tx.bookings.get(booking.id));
    expect(stored?.booking.status).toBe('canceled');

    const late = await t.call('POST', `/bookings/${booking.id}/confirm`, {}, { apiKey: ADMIN_KEY });
    expect([late.status, late.body.messages?.[0]?.code, late.body.booking?.status]).toEqual([
      200,
      'invalid_transition',
      'canceled',
    ]);
  });
});

describeConformance('bookings: response bodies match the official OpenAPI document', () => {
  it('validated the bodies received above', () => {
    expect(validated).toBeGreaterThan(0);
  });
});
