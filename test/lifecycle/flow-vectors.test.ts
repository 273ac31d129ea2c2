/**
 * The newer text's flow vectors 101 to 105 (tests/vectors/flow), each run as its scenario against
 * our server: the vector's `given` mapped onto the demo business (its services stand in for the
 * vector's), its `when` steps made through the REST door with the test clock, and its `then`
 * compared with what we answer and store (105: HTTP 200 with the code in messages, DECISIONS D2).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN_KEY,
  BUYER,
  OTHER_PLATFORM,
  PLATFORM,
  day,
  startTestServer,
  type TestServer,
} from '../support/server.js';
import { describeSpecNext, specNextVector } from '../support/spec-next.js';
import { formatInstant, localToUtcMs, parseInstant } from '../../src/domain/index.js';

const ZONE = 'America/New_York';
const codesOf = (body: any): string[] =>
  ((body?.messages ?? []) as any[]).filter((m) => m.type === 'error').map((m) => m.code);
const flow = (id: string) => specNextVector(`flow/${id}`);

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const slotsOf = async (service_id: string, d: number): Promise<any[]> =>
  (await t.call('POST', '/availability/query', { service_id, start_date: day(d), end_date: day(d) })).body.slots;
const hold = (body: Record<string, unknown>, profile = PLATFORM) =>
  t.call('POST', '/availability/holds', body, { profile });
const book = (body: Record<string, unknown>, profile = PLATFORM) =>
  t.call('POST', '/bookings', { buyer: BUYER, ...body }, { profile, idempotencyKey: randomUUID() });

describeSpecNext('flow vectors 101-105 of the newer text, run against our server', () => {
  it('101 hold expiry during checkout: booking with a lapsed hold on a still-free paid slot is hold_expired (HTTP 200), nothing is booked or charged, and the slot can be held again', async () => {
    const v = flow('101-hold-expiry-during-checkout');
    expect(v.then.outcome_code).toBe('hold_expired');
    const [slot] = await slotsOf('svc_massage_60', 5);
    const h = await hold({ service_id: 'svc_massage_60', slot_id: slot.id });
    expect(h.body.hold.status).toBe('active');
    t.clock.set(Date.parse(h.body.hold.expires_at) + 60_000);
    const r = await book({ service_id: 'svc_massage_60', slot_id: slot.id, hold_id: h.body.hold.id });
    expect([r.status, codesOf(r.body)]).toEqual([v.then.http_status, [v.then.outcome_code]]);
    expect(r.body.booking).toBeUndefined();
    const onSlot = (await t.server.store.read((tx) => tx.bookings.recent(1000))).filter(
      (b) => b.booking.slot.id === slot.id,
    );
    expect(onSlot).toEqual([]);
    // The slot never became unavailable: it is offered, and a new hold on it is accepted (platform_may_retry).
    expect((await slotsOf('svc_massage_60', 5)).some((s) => s.id === slot.id)).toBe(v.then.platform_may_retry);
    expect((await hold({ service_id: 'svc_massage_60', slot_id: slot.id })).body.hold.status).toBe('active');
  });

  it('102 concurrent holds for the last place of a group slot: exactly one is accepted, the other is slot_unavailable, and remaining is 0', async () => {
    const v = flow('102-concurrent-holds-one-slot');
    const [yoga] = await slotsOf('svc_yoga_class', 6);
    const fill = await book({
      service_id: 'svc_yoga_class',
      slot_id: yoga.id,
      party_size: yoga.capacity.remaining - 1,
    });
    expect(fill.body.booking.status).toBe('confirmed');
    const [a, b] = await Promise.all([
      hold({ service_id: 'svc_yoga_class', slot_id: yoga.id, spots: 1 }),
      hold({ service_id: 'svc_yoga_class', slot_id: yoga.id, spots: 1 }, OTHER_PLATFORM),
    ]);
    const outcomes = [a, b].map((r) => (r.body.hold ? 'accepted' : codesOf(r.body).join(','))).sort();
    expect(outcomes).toEqual(['accepted', v.then.outcome_code]);
    const after = (await slotsOf('svc_yoga_class', 6)).find((s) => s.id === yoga.id);
    expect(after?.capacity?.remaining ?? 0).toBe(v.then.slot_capacity_remaining);
  });

  it('103 DST-spanning slots: each timestamp carries the offset of its instant, and durations are end minus start as instants', () => {
    const v = flow('103-dst-spanning-slot');
    expect(v.given.business_timezone).toBe(ZONE);
    for (const c of v.cases) {
      const [start, end] = [Date.parse(c.start_utc), Date.parse(c.end_utc)];
      expect(formatInstant(start, ZONE), c.case).toBe(c.slot.start);
      expect(formatInstant(end, ZONE), c.case).toBe(c.slot.end);
      expect([parseInstant(c.slot.start), parseInstant(c.slot.end)]).toEqual([start, end]);
      expect((end - start) / 60_000, c.case).toBe(c.true_duration_minutes);
    }
    // No local start exists in the spring-forward gap: 02:30 on 2026-03-08 is not a New York clock reading.
    expect(formatInstant(localToUtcMs('2026-03-08', '02:30', ZONE), ZONE)).not.toMatch(/T02:/);
  });

  it('104 no charge without a booking: a paid booking whose write is refused (slot taken) creates no payment and no checkout', async () => {
    const v = flow('104-charge-without-booking');
    const refused = v.then.permitted_resolutions.find((p: any) => p.charge_reversed);
    expect(refused.outcome_code).toBe('slot_unavailable');
    const [slot] = await slotsOf('svc_massage_60', 7);
    const first = await book({ service_id: 'svc_massage_60', slot_id: slot.id }, OTHER_PLATFORM);
    expect(first.body.booking.status).toBe('requires_action');
    const jobsBefore = (await t.server.store.read((tx) => tx.payments.forBooking(first.body.booking.id))).length;
    const r = await book({ service_id: 'svc_massage_60', slot_id: slot.id });
    expect([r.status, codesOf(r.body)]).toEqual([200, [refused.outcome_code]]);
    expect(r.body.booking).toBeUndefined();
    // Only the booking that was written has its payment; the refused one reached no provider.
    const all = await t.server.store.read((tx) => tx.bookings.recent(1000));
    expect(all.filter((b) => b.booking.slot.id === slot.id).map((b) => b.booking.id)).toEqual([first.body.booking.id]);
    expect((await t.server.store.read((tx) => tx.payments.forBooking(first.body.booking.id))).length).toBe(jobsBefore);
  });

  it('105 confirmation-mode guard: the business confirming an auto-mode pending booking is invalid_transition and changes nothing; and a manual-mode pending booking confirms', async () => {
    const v = flow('105-confirmation-mode-guard');
    const [cut] = await slotsOf('svc_haircut', 8);
    const b = (await book({ service_id: 'svc_haircut', slot_id: cut.id })).body;
    await t.server.store.transaction(async (tx) => {
      const rec = (await tx.bookings.get(b.booking.id))!;
      rec.booking.status = 'pending';
      await tx.bookings.update(rec);
    });
    const r = await t.call('POST', `/bookings/${b.booking.id}/confirm`, {}, { apiKey: ADMIN_KEY, profile: null });
    // A business outcome: HTTP 200 with the code in messages[] (spec-next 5.1.1, D2).
    expect([r.status, r.body.messages?.map((m: any) => m.code)]).toEqual([200, [v.then.outcome_code]]);
    expect((await t.call('GET', `/bookings/${b.booking.id}`)).body.booking.status).toBe(v.then.booking_status);
    // The manual variant: a pending booking of a manual-confirmation service is confirmed.
    const manual = v.variants.find((x: any) => x.given?.booking?.confirmation_mode === 'manual');
    const [consult] = await slotsOf('svc_color_consult', 8);
    const p = (await book({ service_id: 'svc_color_consult', slot_id: consult.id })).body.booking;
    expect(p.status).toBe('pending');
    const ok = await t.call('POST', `/bookings/${p.id}/confirm`, {}, { apiKey: ADMIN_KEY, profile: null });
    expect(ok.body.booking.status).toBe(manual.then.booking_status);
  });
});
