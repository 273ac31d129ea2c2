/**
 * The availability cache never answers differently from a fresh computation: two servers share one
 * SQLite file, one with the cache (the default) and one without, and every answer of the first is
 * compared with the second's after each kind of change an answer depends on: a booking (made by
 * this server or by the other store instance), its cancellation, a hold and its expiry by the clock
 * alone, run-time schedule exceptions and time off, the clock crossing the minimum notice and the
 * booking window's far end. The cache must actually be used (hits are counted) and stay within its
 * memory budget.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, BUYER, PLATFORM, day, startTestServer, type TestServer } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';
import { AvailabilityCache } from '../../src/operations/index.js';
import type { SlotCandidate } from '../../src/domain/index.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

let dir: string;
let cached: TestServer;
let fresh: TestServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'usp-avail-cache-'));
  const db = join(dir, 'shop.db');
  // No webhook dispatchers: two stores of one SQLite file in one process must never write at once
  // (one's synchronous busy wait would block the event loop the other needs to commit). Every
  // write here is a call the test makes and awaits.
  cached = await startTestServer({ db, webhooks: { enabled: false } });
  fresh = await startTestServer({ db, availabilityCacheBytes: 0, webhooks: { enabled: false } });
});
afterAll(async () => {
  await cached?.close();
  await fresh?.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => setNow(TEST_NOW));

function setNow(ms: number): void {
  cached.clock.set(ms);
  fresh.clock.set(ms);
}

const hits = () => cached.server.availabilityCache!.stats().hits;

async function query(t: TestServer, body: Record<string, unknown>): Promise<any> {
  const res = await t.call('POST', '/availability/query', body, { profile: null });
  expect(res.status).toBe(200);
  return res.body;
}

/** The cached server's answer, checked against the uncached one's at the same instant on the same database. */
async function answer(body: Record<string, unknown>): Promise<{ slots: any[]; pagination: any }> {
  const a = await query(cached, body);
  const b = await query(fresh, body);
  expect({ slots: a.slots, pagination: a.pagination, opening_hours: a.opening_hours, messages: a.messages }).toEqual({
    slots: b.slots,
    pagination: b.pagination,
    opening_hours: b.opening_hours,
    messages: b.messages,
  });
  return a;
}

const ids = (r: { slots: any[] }) => r.slots.map((s) => s.id as string);
const haircut = (n: number, extra: Record<string, unknown> = {}) => ({
  service_id: 'svc_haircut',
  start_date: day(n),
  end_date: day(n),
  limit: 500,
  ...extra,
});

describe('the cache is used: a repeated identical query is answered from it', () => {
  it('the second of two identical queries is a hit, and both answers equal a fresh computation', async () => {
    await answer(haircut(1));
    const before = hits();
    const again = await answer(haircut(1));
    expect(hits()).toBe(before + 1);
    expect(again.slots.length).toBeGreaterThan(0);
  });

  it('pages of one query share its cached list: each page equals the fresh page', async () => {
    const first = await answer(haircut(1, { limit: 7 }));
    expect(first.pagination.has_more).toBe(true);
    const second = await answer(haircut(1, { limit: 7, cursor: first.pagination.cursor }));
    expect(second.slots).toHaveLength(7);
    expect(ids(second)).not.toEqual(ids(first));
    const all = await answer(haircut(1));
    expect([...ids(first), ...ids(second)]).toEqual(ids(all).slice(0, 14));
  });

  it('another time zone, resource filter or party size is answered right from the same store state', async () => {
    await answer(haircut(2));
    await answer(haircut(2, { timezone: 'Europe/Paris' }));
    await answer(haircut(2, { resource_id: 'res_stylist_ben' }));
    await answer({ service_id: 'svc_yoga_class', start_date: day(2), end_date: day(2), party_size: 11 });
    await answer({ service_id: 'svc_yoga_class', start_date: day(2), end_date: day(2) });
  });
});

describe('claims: every booking, cancellation, hold and expiry shows in the very next answer', () => {
  it('a booking made through this server between two identical queries removes its slot; cancelling frees it again', async () => {
    const before = await answer(haircut(3));
    const slot = before.slots[0];
    const booked = await cached.call('POST', '/bookings', {
      service_id: 'svc_haircut',
      slot_id: slot.id,
      buyer: BUYER,
    });
    expect(booked.status).toBe(201);
    const after = await answer(haircut(3));
    expect(ids(after)).not.toContain(slot.id);
    const canceled = await cached.call('POST', `/bookings/${booked.body.booking.id}/cancel`, {}, { profile: PLATFORM });
    expect(canceled.status).toBe(200);
    expect(ids(await answer(haircut(3)))).toContain(slot.id);
  });

  it('a booking made by another store instance on the same database removes its slot from this server’s next answer', async () => {
    const before = await answer(haircut(4));
    await answer(haircut(4)); // cached now
    const slot = before.slots[5];
    const booked = await fresh.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER });
    expect(booked.status).toBe(201);
    expect(ids(await answer(haircut(4)))).not.toContain(slot.id);
    expect(
      (await fresh.call('POST', `/bookings/${booked.body.booking.id}/cancel`, {}, { profile: PLATFORM })).status,
    ).toBe(200);
    expect(ids(await answer(haircut(4)))).toContain(slot.id);
  });

  it('a held slot comes back when the hold expires, with no write in between: the clock alone ends the cached answer', async () => {
    const before = await answer(haircut(5));
    const slot = before.slots[2];
    const held = await cached.call(
      'POST',
      '/availability/holds',
      { service_id: 'svc_haircut', slot_id: slot.id },
      { profile: 'https://expiry.example/profile.json' },
    );
    expect(held.status).toBe(201);
    const expires = Date.parse(held.body.hold.expires_at);
    expect(ids(await answer(haircut(5)))).not.toContain(slot.id);
    setNow(expires - 1);
    expect(ids(await answer(haircut(5)))).not.toContain(slot.id);
    const h = hits();
    expect(ids(await answer(haircut(5)))).not.toContain(slot.id);
    expect(hits()).toBe(h + 1);
    setNow(expires);
    expect(ids(await answer(haircut(5)))).toContain(slot.id);
  });

  it('spots held and booked in a group class show in its remaining capacity at once', async () => {
    const yoga = { service_id: 'svc_yoga_class', start_date: day(6), end_date: day(6) };
    const [slot] = (await answer(yoga)).slots;
    const held = await cached.call(
      'POST',
      '/availability/holds',
      { service_id: 'svc_yoga_class', slot_id: slot.id, spots: 3 },
      { profile: 'https://yoga.example/profile.json' },
    );
    expect(held.status).toBe(201);
    const after = (await answer(yoga)).slots.find((s: any) => s.id === slot.id);
    expect(after.capacity.remaining).toBe(slot.capacity.remaining - 3);
    expect(after.capacity.held).toBe(slot.capacity.held + 3);
  });
});

describe('run-time schedule changes made through the admin API show in the next answer', () => {
  it('a schedule exception closing a stylist for a day removes her slots; removing it brings them back', async () => {
    const before = await answer(haircut(7));
    expect(before.slots.some((s: any) => s.resources[0].id === 'res_stylist_ava')).toBe(true);
    const added = await cached.call(
      'POST',
      '/admin/schedule-exceptions',
      { resource_id: 'res_stylist_ava', date: day(7), hours: [] },
      { apiKey: ADMIN_KEY },
    );
    expect(added.status).toBe(201);
    const closed = await answer(haircut(7));
    expect(closed.slots.some((s: any) => s.resources[0].id === 'res_stylist_ava')).toBe(false);
    expect(closed.slots.length).toBeGreaterThan(0);
    const removed = await fresh.call('DELETE', `/admin/schedule-changes/${added.body.change.id}`, undefined, {
      apiKey: ADMIN_KEY,
    });
    expect(removed.status).toBe(200);
    expect(ids(await answer(haircut(7)))).toEqual(ids(before));
  });

  it('time off added by the other store instance removes the slots it covers', async () => {
    const before = await answer(haircut(8));
    const ben = before.slots.filter((s: any) => s.resources[0].id === 'res_stylist_ben');
    const from = ben[0].start;
    const to = ben[3].end;
    const added = await fresh.call(
      'POST',
      '/admin/time-off',
      { resource_id: 'res_stylist_ben', start: from, end: to },
      { apiKey: ADMIN_KEY },
    );
    expect(added.status).toBe(201);
    const after = await answer(haircut(8));
    expect(ids(after)).not.toContain(ben[0].id);
  });
});

describe('the clock: answers narrow exactly as a fresh computation as time passes', () => {
  it('crossing the minimum notice, minute by minute, drops each start exactly when a fresh computation does', async () => {
    const today = haircut(0);
    const h0 = hits();
    let previous = (await answer(today)).slots.length;
    let dropped = 0;
    for (let m = 1; m <= 120; m += 1) {
      setNow(TEST_NOW + m * MIN);
      const n = (await answer(today)).slots.length;
      if (n < previous) dropped++;
      previous = n;
    }
    expect(dropped).toBeGreaterThan(4);
    // Moving the clock alone does not end the entry: it is narrowed on use.
    expect(hits() - h0).toBeGreaterThan(100);
  });

  it('one millisecond before and at a start’s notice boundary', async () => {
    const today = haircut(0);
    const [first] = (await answer(today)).slots;
    const boundary = Date.parse(first.start) - HOUR; // min_advance PT1H
    setNow(boundary);
    expect(ids(await answer(today))[0]).toBe(first.id);
    setNow(boundary + 1);
    expect(ids(await answer(today))).not.toContain(first.id);
  });

  it('at the booking window’s far end (60 days) new starts appear as the clock moves, as in a fresh computation', async () => {
    const far = { service_id: 'svc_haircut', start_date: day(59), end_date: day(62), limit: 500 };
    const first = (await answer(far)).slots.length;
    let last = first;
    for (let m = 10; m <= 4 * 60; m += 10) {
      setNow(TEST_NOW + m * MIN);
      last = (await answer(far)).slots.length;
    }
    expect(last).toBeGreaterThan(first);
  });

  it('a clock set back before an entry was computed is answered afresh', async () => {
    setNow(TEST_NOW + 3 * HOUR);
    await answer(haircut(0));
    setNow(TEST_NOW);
    await answer(haircut(0));
  });
});

describe('the cache is bounded', () => {
  it('a small budget keeps its bytes under the cap, evicts the least recently used, and every answer stays exact', async () => {
    const small = await startTestServer({ availabilityCacheBytes: 1024 * 1024 });
    const plain = await startTestServer({ availabilityCacheBytes: 0 });
    try {
      const cache = small.server.availabilityCache!;
      for (let n = 1; n <= 40; n++) {
        const body = haircut(n);
        const a = await small.call('POST', '/availability/query', body, { profile: null });
        const b = await plain.call('POST', '/availability/query', body, { profile: null });
        expect(a.body.slots).toEqual(b.body.slots);
        expect(cache.stats().bytes).toBeLessThanOrEqual(1024 * 1024);
      }
      const s = cache.stats();
      expect(s.evictions).toBeGreaterThan(0);
      expect(s.entries).toBeLessThan(40);
      // The most recent is kept, the oldest went first.
      const h = s.hits;
      await small.call('POST', '/availability/query', haircut(40), { profile: null });
      expect(cache.stats().hits).toBe(h + 1);
      await small.call('POST', '/availability/query', haircut(1), { profile: null });
      expect(cache.stats().hits).toBe(h + 1);
    } finally {
      await small.close();
      await plain.close();
    }
  });

  it('with the cache turned off nothing is kept', async () => {
    expect(fresh.server.availabilityCache).toBeUndefined();
  });
});

describe('AvailabilityCache on its own', () => {
  const service = cachedService();
  function cachedService() {
    return {
      policies: { booking_window: { min_advance: 'PT1H', max_advance: 'P60D', slot_interval: 'PT15M' } },
    } as any;
  }
  const slot = (startMs: number): SlotCandidate => ({
    key: `k${startMs}`,
    id: `slot_${startMs}`,
    serviceId: 's',
    startMs,
    endMs: startMs + MIN,
    durationMs: MIN,
    resourceIds: ['r'],
    state: 'available',
  });

  it('an entry is used only under the version it was computed at, and not before its computation or from a claim expiry on', () => {
    const c = new AvailabilityCache(1 << 20);
    const now = TEST_NOW;
    const slots = [slot(now + 2 * HOUR), slot(now + 3 * HOUR)];
    c.store('k', 7, now, service, now, now + 86_400_000, { slots, claimsChangeAtMs: now + 30 * MIN });
    expect(c.view('k', 7, now)?.length).toBe(2);
    expect(c.view('k', 8, now)).toBeUndefined();
    // The newer version dropped the entry.
    expect(c.view('k', 7, now)).toBeUndefined();
    c.store('k', 7, now, service, now, now + 86_400_000, { slots, claimsChangeAtMs: now + 30 * MIN });
    expect(c.view('k', 7, now - 1)).toBeUndefined();
    expect(c.view('k', 7, now + 30 * MIN - 1)?.length).toBe(2);
    expect(c.view('k', 7, now + 30 * MIN)).toBeUndefined();
  });

  it('presented slots are frozen: one answer cannot change another’s', () => {
    const c = new AvailabilityCache(1 << 20);
    const v = c.store('k', 1, TEST_NOW, service, TEST_NOW, TEST_NOW + 86_400_000, {
      slots: [slot(TEST_NOW + 2 * HOUR)],
      claimsChangeAtMs: Infinity,
    });
    const p = v.present(0, 'UTC', (s) => ({ id: s.id }));
    expect(Object.isFrozen(p)).toBe(true);
    expect(c.view('k', 1, TEST_NOW)!.present(0, 'UTC', () => ({ id: 'other' }))).toBe(p);
  });
});
