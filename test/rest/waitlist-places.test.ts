/**
 * Freed places go down the waitlist in order (spec 11.1.2): a party that leaves frees as many
 * places as it held, each offered to the next waiting entry, and entries behind one that leaves
 * the line move up and are told so (waitlist.position_changed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';

const SERVICE = 'svc_yoga_class';
const profile = (i: number) => `https://p${i}.example/profile.json`;

async function fullSlot(t: TestServer, parties: number[]) {
  const q = await t.call('POST', '/availability/query', { service_id: SERVICE, start_date: day(3), end_date: day(3) });
  const slot = q.body.slots[0];
  const bookings = [];
  for (const [i, n] of parties.entries()) {
    const b = await t.call(
      'POST',
      '/bookings',
      { service_id: SERVICE, slot_id: slot.id, buyer: BUYER, party_size: n },
      { profile: profile(100 + i) },
    );
    expect(b.status).toBe(201);
    bookings.push({ id: b.body.booking.id, profile: profile(100 + i) });
  }
  return { slot, bookings };
}

async function join(t: TestServer, slotId: string, i: number) {
  const r = await t.call(
    'POST',
    '/waitlist',
    { service_id: SERVICE, slot_id: slotId, buyer: BUYER },
    { profile: profile(i) },
  );
  expect(r.status).toBe(201);
  return { id: r.body.entry.id as string, profile: profile(i) };
}

async function entry(t: TestServer, e: { id: string; profile: string }) {
  return (await t.call('GET', `/waitlist/${e.id}`, undefined, { profile: e.profile })).body.entry;
}

describe('freed places go down the waitlist in order', () => {
  let t: TestServer;
  afterEach(() => t?.close());

  it('a party of three leaving a full class offers three places to the first three entries', async () => {
    t = await startTestServer();
    const { slot, bookings } = await fullSlot(t, [9, 3]);
    const entries = [
      await join(t, slot.id, 1),
      await join(t, slot.id, 2),
      await join(t, slot.id, 3),
      await join(t, slot.id, 4),
    ];
    const c = await t.call('POST', `/bookings/${bookings[1].id}/cancel`, {}, { profile: bookings[1].profile });
    expect(c.body.booking.status).toBe('canceled');
    const states = [];
    for (const e of entries) states.push((await entry(t, e)).status);
    expect(states).toEqual(['offered', 'offered', 'offered', 'waiting']);
  });

  it('when the first entry leaves, the ones behind it move up', async () => {
    t = await startTestServer();
    const { slot } = await fullSlot(t, [12]);
    const entries = [await join(t, slot.id, 1), await join(t, slot.id, 2), await join(t, slot.id, 3)];
    expect((await entry(t, entries[2])).position).toBe(3);
    const left = await t.call('DELETE', `/waitlist/${entries[0].id}`, undefined, { profile: entries[0].profile });
    expect(left.body.entry.status).toBe('removed');
    expect((await entry(t, entries[1])).position).toBe(1);
    expect((await entry(t, entries[2])).position).toBe(2);
    const events = await t.server.store.read((tx) => tx.outbox.recent(50));
    const moved = events.filter((e) => e.event === 'waitlist.position_changed').map((e) => e.payload.entry_id);
    expect(moved).toEqual(expect.arrayContaining([entries[1].id, entries[2].id]));
  });
});
