/**
 * Availability queries over REST (spec §4): slot shape and order, resource combinations,
 * capacity, filters, errors, time zones, pagination and DST.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { day, startTestServer, type TestServer } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';

const ERRORS = 'https://usp-protocol.dev/errors/';
const STYLISTS = ['res_stylist_ava', 'res_stylist_ben', 'res_stylist_carla'];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());
afterEach(() => t.clock.set(TEST_NOW));

type Slot = {
  id: string;
  service_id: string;
  start: string;
  end: string;
  duration: string;
  state: string;
  capacity?: { total: number; remaining: number; held: number };
  resources?: Array<{ id: string; type: string; name: string }>;
  location?: { id: string; name: string };
};

async function query(body: Record<string, unknown>): Promise<{ status: number; body: any; headers: Headers }> {
  return t.call('POST', '/availability/query', body, { profile: null });
}

async function slotsOf(body: Record<string, unknown>): Promise<Slot[]> {
  const res = await query({ limit: 500, ...body });
  expect(res.status).toBe(200);
  return res.body.slots;
}

/** Local wall time "HH:MM" and offset of an RFC 3339 string as returned (no conversion). */
function wall(rfc3339: string): { hhmm: string; offset: string } {
  const m = /^\d{4}-\d{2}-\d{2}T(\d{2}:\d{2}):\d{2}(Z|[+-]\d{2}:\d{2})$/.exec(rfc3339);
  expect(m, `not an RFC 3339 date-time with offset: ${rfc3339}`).not.toBeNull();
  return { hhmm: m![1], offset: m![2] };
}

describe('query returns ascending slots, one per resource combination (§4.1, §4.3)', () => {
  it('slots are sorted by start and carry the TimeSlot members', async () => {
    const res = await query({ service_id: 'svc_haircut', start_date: day(1), end_date: day(1), limit: 500 });
    expect(res.status).toBe(200);
    expect(res.body.service_id).toBe('svc_haircut');
    const slots: Slot[] = res.body.slots;
    expect(slots.length).toBeGreaterThan(0);
    const starts = slots.map((s) => Date.parse(s.start));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    for (const s of slots) {
      expect(s.service_id).toBe('svc_haircut');
      expect(s.id).toMatch(/^slot_/);
      expect(s.duration).toBe('PT45M');
      expect(Date.parse(s.end) - Date.parse(s.start)).toBe(45 * 60_000);
      expect(['available', 'limited']).toContain(s.state);
      expect(s.start.slice(0, 10)).toBe(day(1));
    }
  });

  it('each haircut start time appears once per stylist, never twice for the same stylist', async () => {
    const slots = await slotsOf({ service_id: 'svc_haircut', start_date: day(1), end_date: day(1) });
    const byStart = new Map<string, string[]>();
    for (const s of slots) {
      expect(s.resources).toHaveLength(1);
      expect(s.resources![0].type).toBe('staff');
      const list = byStart.get(s.start) ?? [];
      list.push(s.resources![0].id);
      byStart.set(s.start, list);
    }
    for (const [, stylists] of byStart) {
      expect(new Set(stylists).size).toBe(stylists.length);
      for (const id of stylists) expect(STYLISTS).toContain(id);
    }
    // Wednesday 11:00: Ava (9-18), Ben (11-20) and Carla (9-13) all work.
    const eleven = slots.filter((s) => wall(s.start).hhmm === '11:00');
    expect(eleven.map((s) => s.resources![0].id).sort()).toEqual(STYLISTS);
    // 19:00: only Ben works that late.
    const seven = slots.filter((s) => wall(s.start).hhmm === '19:00');
    expect(seven.map((s) => s.resources![0].id)).toEqual(['res_stylist_ben']);
  });

  it('slot ids are stable across two identical queries', async () => {
    const a = await slotsOf({ service_id: 'svc_massage_60', start_date: day(2), end_date: day(3) });
    const b = await slotsOf({ service_id: 'svc_massage_60', start_date: day(2), end_date: day(3) });
    expect(a.length).toBeGreaterThan(0);
    expect(b.map((s) => s.id)).toEqual(a.map((s) => s.id));
    expect(new Set(a.map((s) => s.id)).size).toBe(a.length);
  });

  it('answers opening_hours with lowercase weekdays and HH:MM times', async () => {
    const res = await query({ service_id: 'svc_haircut', start_date: day(1), end_date: day(1) });
    const oh = res.body.opening_hours;
    expect(Array.isArray(oh)).toBe(true);
    expect(oh.length).toBeGreaterThan(0);
    const days = new Set<string>();
    for (const e of oh) {
      expect(e.opens).toMatch(/^\d{2}:\d{2}$/);
      expect(e.closes).toMatch(/^\d{2}:\d{2}$/);
      for (const d of e.day_of_week) {
        expect(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']).toContain(d);
        days.add(d);
      }
    }
    expect(days.size).toBe(7);
    const monday = oh.filter((e: { day_of_week: string[] }) => e.day_of_week.includes('monday'));
    expect(monday).toEqual([{ day_of_week: expect.arrayContaining(['monday']), opens: '09:00', closes: '20:00' }]);
  });
});

describe('group classes carry capacity {total, remaining, held} (§4.1)', () => {
  it('an untouched class slot has the full capacity remaining', async () => {
    const slots = await slotsOf({ service_id: 'svc_yoga_class', start_date: day(1), end_date: day(1) });
    expect(slots.length).toBeGreaterThan(0);
    for (const s of slots) {
      expect(s.capacity).toEqual({ total: 12, remaining: 12, held: 0 });
      expect(s.state).toBe('available');
      expect(s.location).toEqual({ id: 'loc_uptown', name: 'Maple & Pine Uptown Studio' });
      expect(s.resources!.map((r) => r.type).sort()).toEqual(['room', 'staff']);
    }
    expect(new Set(slots.map((s) => wall(s.start).hhmm))).toEqual(new Set(['07:00', '18:00']));
  });

  it('party_size 13 on the capacity-12 class gives waitlist-state slots', async () => {
    const slots = await slotsOf({ service_id: 'svc_yoga_class', start_date: day(1), end_date: day(1), party_size: 13 });
    expect(slots.length).toBeGreaterThan(0);
    for (const s of slots) {
      expect(s.state).toBe('waitlist');
      expect(s.capacity!.remaining).toBe(12);
    }
  });

  it('party_size within capacity keeps the slots bookable', async () => {
    const slots = await slotsOf({ service_id: 'svc_yoga_class', start_date: day(1), end_date: day(1), party_size: 12 });
    for (const s of slots) expect(s.state).not.toBe('waitlist');
  });
});

describe('filters: resource_id and location_id (§4.3, §2.6)', () => {
  it('resource_id keeps only slots with that stylist', async () => {
    const slots = await slotsOf({
      service_id: 'svc_haircut',
      start_date: day(1),
      end_date: day(1),
      resource_id: 'res_stylist_ben',
    });
    expect(slots.length).toBeGreaterThan(0);
    for (const s of slots) expect(s.resources!.map((r) => r.id)).toEqual(['res_stylist_ben']);
    expect(wall(slots[0].start).hhmm).toBe('11:00');
  });

  it('a resource that does not deliver the service yields no slots', async () => {
    const slots = await slotsOf({
      service_id: 'svc_haircut',
      start_date: day(1),
      end_date: day(1),
      resource_id: 'res_therapist_dana',
    });
    expect(slots).toEqual([]);
  });

  it('location_id keeps only slots at that location', async () => {
    const downtown = await slotsOf({
      service_id: 'svc_haircut',
      start_date: day(1),
      end_date: day(1),
      location_id: 'loc_downtown',
    });
    expect(downtown.length).toBeGreaterThan(0);
    for (const s of downtown) expect(s.location!.id).toBe('loc_downtown');
    const uptown = await slotsOf({
      service_id: 'svc_haircut',
      start_date: day(1),
      end_date: day(1),
      location_id: 'loc_uptown',
    });
    expect(uptown).toEqual([]);
  });
});

describe('errors: protocol problems vs business outcomes (§4.3, §9.4, D11)', () => {
  it('a range wider than max_query_days is a 422 range-too-wide problem', async () => {
    const res = await query({ service_id: 'svc_haircut', start_date: day(1), end_date: day(40) });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.type.startsWith(ERRORS)).toBe(true);
    expect(res.body.type.endsWith('/range-too-wide')).toBe(true);
    expect(res.body.status).toBe(422);
  });

  it('a range of exactly max_query_days is accepted', async () => {
    const res = await query({ service_id: 'svc_haircut', start_date: day(1), end_date: day(31), limit: 1 });
    expect(res.status).toBe(200);
  });

  it('end_date before start_date is invalid_request 400 naming end_date', async () => {
    const res = await query({ service_id: 'svc_haircut', start_date: day(3), end_date: day(1) });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe(`${ERRORS}invalid-request`);
    expect(res.body.code).toBe('invalid_request');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('end_date');
  });

  it('an unknown service in the body is a business outcome: 200 with service_unresolved (never the 404 code service_not_found, spec-next 9.4.1) and no slots', async () => {
    const res = await query({ service_id: 'svc_nope', start_date: day(1), end_date: day(1) });
    expect(res.status).toBe(200);
    expect(res.body.slots).toEqual([]);
    expect(res.body.messages[0].code).toBe('service_unresolved');
    expect(res.body.messages[0].type).toBe('error');
  });

  it('an unknown time zone is invalid_request naming timezone', async () => {
    const res = await query({
      service_id: 'svc_haircut',
      start_date: day(1),
      end_date: day(1),
      timezone: 'Mars/Olympus',
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('timezone');
  });
});

describe('timezone: returned times are written in the requested zone (§4.3)', () => {
  it('business zone by default, the requested zone when given; the instants are the same slots', async () => {
    const ny = await slotsOf({ service_id: 'svc_haircut', start_date: day(1), end_date: day(1) });
    for (const s of ny) {
      expect(wall(s.start).offset).toBe('-05:00');
      expect(wall(s.end).offset).toBe('-05:00');
    }
    const tokyo = await slotsOf({
      service_id: 'svc_haircut',
      start_date: day(1),
      end_date: day(2),
      timezone: 'Asia/Tokyo',
    });
    expect(tokyo.length).toBeGreaterThan(0);
    for (const s of tokyo) {
      expect(wall(s.start).offset).toBe('+09:00');
      expect(wall(s.end).offset).toBe('+09:00');
    }
    const tokyoById = new Map(tokyo.map((s) => [s.id, s]));
    const common = ny.filter((s) => tokyoById.has(s.id));
    expect(common.length).toBeGreaterThan(0);
    for (const s of common) {
      expect(Date.parse(tokyoById.get(s.id)!.start)).toBe(Date.parse(s.start));
      expect(tokyoById.get(s.id)!.start).not.toBe(s.start);
    }
  });
});

describe('pagination: limit and opaque cursor (§9.1.2)', () => {
  it('pages of 10 concatenate to the unpaginated list, with has_more until the last page', async () => {
    const all = await slotsOf({ service_id: 'svc_haircut', start_date: day(1), end_date: day(1) });
    expect(all.length).toBeGreaterThan(20);
    const collected: Slot[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const res: { status: number; body: any } = await query({
        service_id: 'svc_haircut',
        start_date: day(1),
        end_date: day(1),
        limit: 10,
        ...(cursor ? { cursor } : {}),
      });
      expect(res.status).toBe(200);
      expect(res.body.slots.length).toBeLessThanOrEqual(10);
      collected.push(...res.body.slots);
      pages++;
      if (!res.body.pagination.has_more) {
        expect(res.body.pagination.cursor).toBeNull();
        break;
      }
      cursor = res.body.pagination.cursor;
      expect(typeof cursor).toBe('string');
      expect(pages).toBeLessThan(100);
    }
    expect(pages).toBe(Math.ceil(all.length / 10));
    expect(collected.map((s) => s.id)).toEqual(all.map((s) => s.id));
  });

  it('the default page holds a whole day of one service, and a week is paged at 200 slots', async () => {
    const dayRes = await query({ service_id: 'svc_haircut', start_date: day(1), end_date: day(1) });
    expect(dayRes.body.slots.length).toBeGreaterThan(50);
    expect(dayRes.body.pagination.has_more).toBe(false);
    const week = await query({ service_id: 'svc_haircut', start_date: day(1), end_date: day(7) });
    expect(week.body.slots).toHaveLength(200);
    expect(week.body.pagination.has_more).toBe(true);
  });

  it('a cursor the business never issued is invalid_request', async () => {
    const res = await query({ service_id: 'svc_haircut', start_date: day(1), end_date: day(1), cursor: 'garbage' });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe(`${ERRORS}invalid-request`);
  });
});

describe('DST: opening hours are local wall-clock times across offset changes', () => {
  async function firstHaircut(date: string): Promise<{ hhmm: string; offset: string }> {
    const slots = await slotsOf({ service_id: 'svc_haircut', start_date: date, end_date: date, limit: 1 });
    expect(slots.length).toBe(1);
    expect(slots[0].start.slice(0, 10)).toBe(date);
    return wall(slots[0].start);
  }

  it('spring forward (2026-03-08): Monday 03-09 opens at the same local hour as Saturday 03-07', async () => {
    t.clock.set(Date.parse('2026-03-02T15:00:00Z'));
    const before = await firstHaircut('2026-03-07');
    const after = await firstHaircut('2026-03-09');
    expect(before).toEqual({ hhmm: '09:00', offset: '-05:00' });
    expect(after).toEqual({ hhmm: '09:00', offset: '-04:00' });
  });

  it('fall back (2026-11-01): Monday 11-02 opens at the same local hour as Saturday 10-31', async () => {
    t.clock.set(Date.parse('2026-10-26T15:00:00Z'));
    const before = await firstHaircut('2026-10-31');
    const after = await firstHaircut('2026-11-02');
    expect(before).toEqual({ hhmm: '09:00', offset: '-04:00' });
    expect(after).toEqual({ hhmm: '09:00', offset: '-05:00' });
  });

  it('the changeover Sunday itself keeps the local grid (10:00 first slot on both Sundays)', async () => {
    t.clock.set(Date.parse('2026-03-02T15:00:00Z'));
    expect(await firstHaircut('2026-03-08')).toEqual({ hhmm: '10:00', offset: '-04:00' });
    t.clock.set(Date.parse('2026-10-26T15:00:00Z'));
    expect(await firstHaircut('2026-11-01')).toEqual({ hhmm: '10:00', offset: '-05:00' });
  });
});
