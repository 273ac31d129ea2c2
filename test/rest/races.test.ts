/**
 * Real concurrency over HTTP (spec §4.4 hold concurrency, §5.3.1 re-validation at booking time):
 * many requests race for one slot; the store must let exactly the right number win.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, day, startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

type Slot = { id: string; start: string; capacity?: { total: number; remaining: number; held: number } };
type Res = { status: number; body: any; headers: Headers };

const profile = (tag: string, i: number) => `https://p${i}.example/profile.json?race=${tag}`;
const buyer = (i: number) => ({ first_name: `Buyer${i}`, last_name: 'Racer', email: `buyer${i}@example.com` });

async function slots(serviceId: string, date: string): Promise<Slot[]> {
  const res = await t.call(
    'POST',
    '/availability/query',
    { service_id: serviceId, start_date: date, end_date: date, limit: 500 },
    { profile: null },
  );
  expect(res.status).toBe(200);
  return res.body.slots;
}

function tally(results: Res[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results) {
    const key = r.status === 201 ? '201' : `${r.status}:${r.body?.messages?.[0]?.code ?? r.body?.code ?? '?'}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

describe('one active hold per appointment slot, however many platforms race (§4.4)', () => {
  it('30 concurrent holds from 30 platforms: exactly one 201, 29 answers of 200 slot_unavailable', async () => {
    const [slot] = await slots('svc_haircut', day(2));
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.call(
          'POST',
          '/availability/holds',
          { service_id: 'svc_haircut', slot_id: slot.id },
          { profile: `https://p${i}.example/profile.json` },
        ),
      ),
    );
    expect(tally(results)).toEqual({ '201': 1, '200:slot_unavailable': 29 });
    for (const r of results.filter((x) => x.status === 200)) {
      expect(r.body.hold).toBeUndefined();
      expect(r.body.messages[0].severity).toBe('recoverable');
    }

    // Stored state: the slot is gone from availability and the winner can turn its hold into a booking.
    expect((await slots('svc_haircut', day(2))).find((s) => s.id === slot.id)).toBeUndefined();
    const winnerIndex = results.findIndex((r) => r.status === 201);
    const winner = `https://p${winnerIndex}.example/profile.json`;
    const holdId = results[winnerIndex].body.hold.id;
    const bk = await t.call(
      'POST',
      '/bookings',
      { service_id: 'svc_haircut', slot_id: slot.id, hold_id: holdId, buyer: buyer(0) },
      { profile: winner },
    );
    expect(bk.status).toBe(201);
    const got = await t.call('GET', `/bookings/${bk.body.booking.id}`, undefined, { profile: winner });
    expect(got.status).toBe(200);
    expect(got.body.booking).toMatchObject({ status: 'confirmed', slot: { id: slot.id } });
    // A loser cannot book the slot either.
    const loser = `https://p${(winnerIndex + 1) % 30}.example/profile.json`;
    const late = await t.call(
      'POST',
      '/bookings',
      { service_id: 'svc_haircut', slot_id: slot.id, buyer: buyer(1) },
      { profile: loser },
    );
    expect(late.status).toBe(200);
    expect(late.body.messages[0].code).toBe('slot_unavailable');
  });
});

describe('bookings without a hold re-validate availability atomically (§5.3.1)', () => {
  it('30 concurrent bookings of one appointment slot: exactly one booking exists afterwards', async () => {
    const [slot] = await slots('svc_massage_60', day(3));
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.call(
          'POST',
          '/bookings',
          { service_id: 'svc_massage_60', slot_id: slot.id, buyer: buyer(i) },
          { profile: profile('bk', i) },
        ),
      ),
    );
    expect(tally(results)).toEqual({ '201': 1, '200:slot_unavailable': 29 });

    const wi = results.findIndex((r) => r.status === 201);
    const booking = results[wi].body.booking;
    expect(booking.slot.id).toBe(slot.id);
    expect(booking.buyer.email).toBe(buyer(wi).email);

    // Stored state, read back: the winner's booking holds the slot; the slot is no longer offered.
    const got = await t.call('GET', `/bookings/${booking.id}`, undefined, { profile: profile('bk', wi) });
    expect(got.status).toBe(200);
    expect(got.body.booking.id).toBe(booking.id);
    expect(got.body.booking.slot.id).toBe(slot.id);
    expect(['requires_action', 'confirmed']).toContain(got.body.booking.status);
    expect((await slots('svc_massage_60', day(3))).find((s) => s.id === slot.id)).toBeUndefined();
    // The business sees the same booking.
    const asBusiness = await t.call('GET', `/bookings/${booking.id}`, undefined, { profile: null, apiKey: ADMIN_KEY });
    expect(asBusiness.body.booking.buyer.email).toBe(buyer(wi).email);
  });

  it('20 concurrent bookings of party 1 on a capacity-12 class: exactly 12 bookings, then remaining 0', async () => {
    const [slot] = await slots('svc_yoga_class', day(4));
    expect(slot.capacity).toEqual({ total: 12, remaining: 12, held: 0 });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.call(
          'POST',
          '/bookings',
          { service_id: 'svc_yoga_class', slot_id: slot.id, party_size: 1, buyer: buyer(i) },
          { profile: profile('yoga', i) },
        ),
      ),
    );
    const won = results.map((r, i) => ({ r, i })).filter(({ r }) => r.status === 201);
    expect(won).toHaveLength(12);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(200);
      expect(['capacity_exceeded', 'slot_unavailable']).toContain(r.body.messages[0].code);
      expect(r.body.booking).toBeUndefined();
    }

    // Stored state: every winner's booking reads back confirmed on that slot, all distinct.
    const ids = new Set<string>();
    for (const { r, i } of won) {
      const got = await t.call('GET', `/bookings/${r.body.booking.id}`, undefined, { profile: profile('yoga', i) });
      expect(got.status).toBe(200);
      expect(got.body.booking).toMatchObject({ status: 'confirmed', party_size: 1, slot: { id: slot.id } });
      ids.add(got.body.booking.id);
    }
    expect(ids.size).toBe(12);

    const after = (await slots('svc_yoga_class', day(4))).find((s) => s.id === slot.id);
    expect(after).toBeDefined();
    expect(after!.capacity).toEqual({ total: 12, remaining: 0, held: 0 });
    const more = await t.call(
      'POST',
      '/bookings',
      { service_id: 'svc_yoga_class', slot_id: slot.id, buyer: buyer(99) },
      { profile: profile('yoga', 99) },
    );
    expect(more.status).toBe(200);
    expect(more.body.messages[0].code).toBe('capacity_exceeded');
  });

  it('concurrent holds and bookings on one class never oversell', async () => {
    const [slot] = await slots('svc_yoga_class', day(5));
    const calls: Array<Promise<Res>> = [];
    for (let i = 0; i < 10; i++) {
      calls.push(
        t.call(
          'POST',
          '/availability/holds',
          { service_id: 'svc_yoga_class', slot_id: slot.id, spots: 2 },
          { profile: profile('mix-h', i) },
        ),
      );
      calls.push(
        t.call(
          'POST',
          '/bookings',
          { service_id: 'svc_yoga_class', slot_id: slot.id, buyer: buyer(i) },
          { profile: profile('mix-b', i) },
        ),
      );
    }
    const results = await Promise.all(calls);
    let taken = 0;
    for (const r of results) {
      if (r.status !== 201) continue;
      taken += r.body.hold ? r.body.hold.spots : r.body.booking.party_size;
    }
    expect(taken).toBeLessThanOrEqual(12);
    const after = (await slots('svc_yoga_class', day(5))).find((s) => s.id === slot.id)!;
    expect(after.capacity!.total - after.capacity!.remaining).toBe(taken);
    expect(taken).toBeGreaterThanOrEqual(11); // whatever order they ran in, the class ends (almost) full
  });
});
