/**
 * Buyers who share one OAuth client (one hosted assistant for many people) never act on each
 * other's bookings or waitlist entries: a buyer-linked token acts for that buyer through that
 * client, so buyer B holding buyer A's booking id gets booking_not_found and changes nothing.
 * A platform's own client_credentials token still acts as the platform (the DPoP test in
 * authorization-server.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BUYER } from '../support/server.js';
import { buyerToken, firstSlotAt, mcpCallAt, register, startOAuthServer, type OAuthTestServer } from './support.js';

let t: OAuthTestServer;
let a: Record<string, string>;
let b: Record<string, string>;

beforeAll(async () => {
  t = await startOAuthServer();
  // One hosted assistant, two people signed in through it.
  const assistant = await register(t.url, { client_name: 'Hosted Assistant' });
  a = { authorization: `Bearer ${(await buyerToken(t, assistant, { email: 'buyer-a@example.com' })).access_token}` };
  b = { authorization: `Bearer ${(await buyerToken(t, assistant, { email: 'buyer-b@example.com' })).access_token}` };
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const codesOf = (r: { body: any }) => (r.body.result?.structuredContent?.messages ?? []).map((m: any) => m.code);
/** A JSON-RPC error's number and data.code: an unknown id in the path is -32602 naming what is missing (spec-next 9.4.3). */
const errorOf = (r: { body: any }) => [r.body.error?.code, r.body.error?.data?.code];

describe('two buyers signed in through the same client cannot reach each other’s bookings', () => {
  test('buyer B’s get, update, reschedule and cancel of buyer A’s booking answer booking_not_found and change nothing', async () => {
    const made = await mcpCallAt(
      t.url,
      'usp_bookings_create',
      { service_id: 'svc_haircut', slot_id: await firstSlotAt(t.url, 3), buyer: BUYER },
      a,
    );
    const booking = made.body.result.structuredContent.booking;
    expect(booking.status).toBe('confirmed');
    const before = await t.server.store.read((tx) => tx.bookings.get(booking.id));

    const other = await firstSlotAt(t.url, 4);
    for (const [tool, args] of [
      ['usp_bookings_get', { booking_id: booking.id }],
      ['usp_bookings_update', { booking_id: booking.id, notes: 'B was here' }],
      ['usp_bookings_reschedule', { booking_id: booking.id, slot_id: other }],
      ['usp_bookings_cancel', { booking_id: booking.id }],
    ] as const) {
      const r = await mcpCallAt(t.url, tool, args, b);
      expect(r.status, tool).toBe(200);
      expect(errorOf(r), tool).toEqual([-32602, 'booking_not_found']);
    }
    const after = await t.server.store.read((tx) => tx.bookings.get(booking.id));
    expect(after?.booking).toEqual(before?.booking);
    // A still reaches it, and B's history does not list it.
    expect(
      (await mcpCallAt(t.url, 'usp_bookings_get', { booking_id: booking.id }, a)).body.result.structuredContent.booking
        .id,
    ).toBe(booking.id);
    expect((await mcpCallAt(t.url, 'usp_bookings_list', {}, b)).body.result.structuredContent.bookings).toEqual([]);
  });

  test('buyer B reusing buyer A’s idempotency key does not get A’s booking replayed to it', async () => {
    const key = { _meta: { usp: { idempotency_key: 'shared-key-0001' } } };
    const slot = await firstSlotAt(t.url, 5);
    const first = await mcpCallAt(
      t.url,
      'usp_bookings_create',
      { service_id: 'svc_haircut', slot_id: slot, buyer: BUYER, ...key },
      a,
    );
    const mine = first.body.result.structuredContent.booking.id;
    const again = await mcpCallAt(
      t.url,
      'usp_bookings_create',
      { service_id: 'svc_haircut', slot_id: slot, buyer: BUYER, ...key },
      b,
    );
    expect(again.body.result?.structuredContent?.booking?.id).not.toBe(mine);
    // Run afresh for B: the slot is A's.
    expect(codesOf(again)).toEqual(['slot_unavailable']);
  });

  test('buyer B cannot read, list or leave buyer A’s waitlist entry', async () => {
    const joined = await mcpCallAt(t.url, 'usp_waitlist_join', { service_id: 'svc_yoga_class', buyer: BUYER }, a);
    const entry = joined.body.result.structuredContent.entry;
    expect(entry.id).toBeTruthy();
    expect(errorOf(await mcpCallAt(t.url, 'usp_waitlist_get', { entry_id: entry.id }, b))).toEqual([
      -32602,
      'entry_not_found',
    ]);
    expect(errorOf(await mcpCallAt(t.url, 'usp_waitlist_leave', { entry_id: entry.id }, b))).toEqual([
      -32602,
      'entry_not_found',
    ]);
    const listed = await mcpCallAt(t.url, 'usp_waitlist_list', {}, b);
    expect(listed.body.result.structuredContent.entries.map((e: any) => e.id)).not.toContain(entry.id);
    const still = await mcpCallAt(t.url, 'usp_waitlist_get', { entry_id: entry.id }, a);
    expect(still.body.result.structuredContent.entry.status).toBe(entry.status);
  });
});
