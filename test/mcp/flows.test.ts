/**
 * Booking flows through the MCP door with real SDK clients (spec MCP binding; CONFORMANCE §10):
 * the same lifecycle over stdio, Streamable HTTP and legacy SSE, with v1 and v2 clients. Every
 * result is the dual envelope: structuredContent with `usp` and `messages` (empty on success),
 * and a text summary that names the business time zone and, for a booking awaiting payment,
 * carries the payment link verbatim.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUYER, OTHER_PLATFORM, PLATFORM } from '../support/server.js';
import { ZONE, meta, openEnv, type McpEnv, type SdkLine, type ToolResult, type TransportKind } from './helpers.js';

function expectEnvelope(r: ToolResult): void {
  expect(r.structuredContent, 'structuredContent').toBeTypeOf('object');
  expect(r.structuredContent.usp).toMatchObject({ version: expect.any(String) });
  expect(Array.isArray(r.structuredContent.messages), 'structuredContent.messages is an array').toBe(true);
  expect(r.content[0]).toMatchObject({ type: 'text', text: expect.any(String) });
}

function expectSuccess(r: ToolResult): void {
  expectEnvelope(r);
  expect(r.structuredContent.messages).toEqual([]);
  expect(r.isError ?? false).toBe(false);
}

/** A successful booking result: envelope, no messages, and a summary naming the time zone. */
function expectBooking(r: ToolResult): any {
  expectSuccess(r);
  expect(r.structuredContent.booking).toMatchObject({ id: expect.any(String), status: expect.any(String) });
  expect(r.content[0].text).toContain(ZONE);
  return r.structuredContent.booking;
}

const buyer = (n: number) => ({ first_name: `Guest${n}`, last_name: 'Flow', email: `guest${n}@example.com` });

async function slotsOf(
  env: McpEnv,
  serviceId: string,
  from: number,
  to: number,
  extra: Record<string, unknown> = {},
): Promise<any[]> {
  const q = await env.conn.call('usp_availability_query', {
    service_id: serviceId,
    start_date: env.day(from),
    end_date: env.day(to),
    ...extra,
  });
  expectSuccess(q);
  expect(q.structuredContent.service_id).toBe(serviceId);
  expect(q.content[0].text).toContain(ZONE);
  return q.structuredContent.slots;
}

const FULL: Array<{ name: string; line: SdkLine; kind: TransportKind }> = [
  { name: 'v2 client over stdio', line: 'v2', kind: 'stdio' },
  { name: 'v2 client over Streamable HTTP', line: 'v2', kind: 'http' },
  { name: 'v1 client over Streamable HTTP', line: 'v1', kind: 'http' },
];

describe.each(FULL)('$name: the booking lifecycle runs end to end through MCP tools', ({ line, kind }) => {
  let env: McpEnv;
  beforeAll(async () => {
    env = await openEnv(line, kind);
  }, 120_000);
  afterAll(async () => {
    await env?.close();
  });

  it('list -> query -> hold -> create (a replay with the same idempotency_key returns the same booking) -> get -> reschedule -> cancel', async () => {
    const { conn } = env;
    const list = await conn.call('usp_services_list', {});
    expectSuccess(list);
    expect(list.structuredContent.services.map((s: any) => s.id)).toContain('svc_haircut');

    const slots = await slotsOf(env, 'svc_haircut', 4, 4);
    expect(slots.length).toBeGreaterThan(1);
    const first = slots[0];
    const later = slots.find((s) => s.start !== first.start);
    expect(later, 'a second start time on the same day').toBeDefined();

    const hold = await conn.call('usp_availability_hold', { service_id: 'svc_haircut', slot_id: first.id, ...meta() });
    expectSuccess(hold);
    expect(hold.structuredContent.hold).toMatchObject({
      slot_id: first.id,
      status: 'active',
      expires_at: expect.any(String),
    });
    expect(hold.content[0].text).toContain(ZONE);

    const key = randomUUID();
    const args = {
      service_id: 'svc_haircut',
      slot_id: first.id,
      hold_id: hold.structuredContent.hold.id,
      buyer: BUYER,
      ...meta(PLATFORM, { idempotency_key: key }),
    };
    const booking = expectBooking(await conn.call('usp_bookings_create', args));
    expect(booking.status).toBe('confirmed');
    expect(booking.slot.id).toBe(first.id);

    const replay = expectBooking(await conn.call('usp_bookings_create', args));
    expect(replay.id).toBe(booking.id);
    expect(replay.revision).toBe(booking.revision);

    const got = expectBooking(await conn.call('usp_bookings_get', { booking_id: booking.id, ...meta() }));
    expect(got).toMatchObject({ id: booking.id, status: 'confirmed', revision: booking.revision });

    const moved = expectBooking(
      await conn.call('usp_bookings_reschedule', {
        booking_id: booking.id,
        slot_id: later.id,
        ...meta(PLATFORM, { idempotency_key: randomUUID() }),
      }),
    );
    expect(moved.id).toBe(booking.id);
    expect(moved.slot.start).toBe(later.start);
    expect(moved.revision).not.toBe(booking.revision);

    const canceled = expectBooking(
      await conn.call('usp_bookings_cancel', {
        booking_id: booking.id,
        reason: 'plans changed',
        ...meta(PLATFORM, { idempotency_key: randomUUID() }),
      }),
    );
    expect(canceled.status).toBe('canceled');
    expect(canceled.cancellation).toMatchObject({ canceled_by: 'buyer', fee: 0 });
  });

  it('a group class booking keeps party_size and takes that many places from the class', async () => {
    const { conn } = env;
    const slots = await slotsOf(env, 'svc_yoga_class', 1, 7, { party_size: 3 });
    expect(slots.length).toBeGreaterThan(1);
    const slot = slots[slots.length - 1];
    const before = slot.capacity.remaining;
    expect(before).toBeGreaterThanOrEqual(3);

    const booking = expectBooking(
      await conn.call('usp_bookings_create', {
        service_id: 'svc_yoga_class',
        slot_id: slot.id,
        buyer: buyer(1),
        party_size: 3,
        ...meta(PLATFORM, { idempotency_key: randomUUID() }),
      }),
    );
    expect(booking.party_size).toBe(3);
    expect(booking.slot.id).toBe(slot.id);

    const after = (await slotsOf(env, 'svc_yoga_class', 1, 7)).find((s) => s.id === slot.id);
    expect(after.capacity.remaining).toBe(before - 3);
  });

  it('waitlist: a full class -> join -> a place frees -> the entry is offered -> accepting books it', async () => {
    const { conn } = env;
    const slots = await slotsOf(env, 'svc_yoga_class', 1, 7);
    const slot = slots[0];
    const total = slot.capacity.remaining;
    expect(total).toBeGreaterThan(1);

    // Fill the class: a party of total-1 from one platform and a single place from another.
    expectBooking(
      await conn.call('usp_bookings_create', {
        service_id: 'svc_yoga_class',
        slot_id: slot.id,
        buyer: buyer(2),
        party_size: total - 1,
        ...meta(),
      }),
    );
    const single = expectBooking(
      await conn.call('usp_bookings_create', {
        service_id: 'svc_yoga_class',
        slot_id: slot.id,
        buyer: buyer(3),
        ...meta(OTHER_PLATFORM),
      }),
    );
    const full = (await slotsOf(env, 'svc_yoga_class', 1, 7)).find((s) => s.id === slot.id);
    expect(full).toMatchObject({ state: 'waitlist', capacity: { remaining: 0 } });

    const joined = await conn.call('usp_waitlist_join', {
      service_id: 'svc_yoga_class',
      slot_id: slot.id,
      buyer: buyer(4),
      ...meta(PLATFORM, { idempotency_key: randomUUID() }),
    });
    expectSuccess(joined);
    const entry = joined.structuredContent.entry;
    expect(entry).toMatchObject({ status: 'waiting', position: 1, slot_id: slot.id });

    // The class is within a day (real clock): a cancel inside its 12 h window carries the late-fee warning.
    const canceled = await conn.call('usp_bookings_cancel', { booking_id: single.id, ...meta(OTHER_PLATFORM) });
    expectEnvelope(canceled);
    expect(canceled.structuredContent.booking.status).toBe('canceled');
    for (const m of canceled.structuredContent.messages)
      expect(m).toMatchObject({ type: 'warning', code: 'late_cancellation_fee' });
    expect(canceled.structuredContent.messages.length > 0).toBe(
      canceled.structuredContent.booking.cancellation.fee > 0,
    );

    const offered = await conn.call('usp_waitlist_get', { entry_id: entry.id, ...meta() });
    expectSuccess(offered);
    expect(offered.structuredContent.entry.status).toBe('offered');
    expect(offered.content[0].text).toContain(ZONE);

    const accepted = await conn.call('usp_waitlist_accept', {
      entry_id: entry.id,
      ...meta(PLATFORM, { idempotency_key: randomUUID() }),
    });
    const booking = expectBooking(accepted);
    expect(booking.slot.id).toBe(slot.id);
    expect(['confirmed', 'requires_action', 'pending']).toContain(booking.status);
    expect(accepted.structuredContent.entry.status).toBe('accepted');

    const mine = await conn.call('usp_waitlist_list', { service_id: 'svc_yoga_class', ...meta() });
    expectSuccess(mine);
    expect(mine.structuredContent.entries.map((e: any) => e.id)).toContain(entry.id);
  });

  it('a service paid at booking: requires_action whose text gives the continue_url verbatim, then confirm_payment confirms it', async () => {
    const { conn } = env;
    const [slot] = await slotsOf(env, 'svc_massage_60', 2, 2);
    const created = await conn.call('usp_bookings_create', {
      service_id: 'svc_massage_60',
      slot_id: slot.id,
      buyer: BUYER,
      ...meta(PLATFORM, { idempotency_key: randomUUID() }),
    });
    const booking = expectBooking(created);
    expect(booking.status).toBe('requires_action');
    const action = booking.actions.find((a: any) => a.type === 'payment' && a.status === 'pending');
    expect(action.continue_url).toEqual(expect.any(String));
    expect(created.content[0].text).toContain(action.continue_url);
    expect(created.content[0].text).toMatch(/not confirmed/i);

    const paid = await conn.call('usp_bookings_confirm_payment', {
      booking_id: booking.id,
      payment_result: {
        status: 'paid',
        transaction_id: `txn_${randomUUID()}`,
        amount_paid: action.payment_context.amount_due,
        currency: action.payment_context.currency,
        provider: 'test',
      },
      ...meta(PLATFORM, { idempotency_key: randomUUID() }),
    });
    const confirmed = expectBooking(paid);
    expect(confirmed).toMatchObject({ id: booking.id, status: 'confirmed' });
    expect(confirmed.payment.status).toBe('paid');

    const read = expectBooking(await conn.call('usp_bookings_get', { booking_id: booking.id, ...meta() }));
    expect(read.status).toBe('confirmed');
  });
});

const SSE: Array<{ name: string; line: SdkLine }> = [
  { name: 'v2 client over legacy HTTP+SSE', line: 'v2' },
  { name: 'v1 client over legacy HTTP+SSE', line: 'v1' },
];

describe.each(SSE)('$name: the legacy SSE transport serves the same tools', ({ line }) => {
  let env: McpEnv;
  beforeAll(async () => {
    env = await openEnv(line, 'sse');
  }, 60_000);
  afterAll(async () => {
    await env?.close();
  });

  it('list -> query -> create -> cancel', async () => {
    const { conn } = env;
    const list = await conn.call('usp_services_list', { query: 'haircut' });
    expectSuccess(list);
    expect(list.structuredContent.services.map((s: any) => s.id)).toContain('svc_haircut');

    const [slot] = await slotsOf(env, 'svc_haircut', 3, 3);
    const booking = expectBooking(
      await conn.call('usp_bookings_create', {
        service_id: 'svc_haircut',
        slot_id: slot.id,
        buyer: BUYER,
        ...meta(PLATFORM, { idempotency_key: randomUUID() }),
      }),
    );
    expect(booking.status).toBe('confirmed');

    const canceled = expectBooking(await conn.call('usp_bookings_cancel', { booking_id: booking.id, ...meta() }));
    expect(canceled.status).toBe('canceled');
  });
});
