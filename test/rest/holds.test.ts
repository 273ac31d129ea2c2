/**
 * Holds over REST (spec §4.4, §10.1.2): creation and expiry, concurrency per service type,
 * release, abuse limits and ownership.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTHER_PLATFORM, PLATFORM, day, startTestServer, type TestServer } from '../support/server.js';

const ERRORS = 'https://usp-protocol.dev/errors/';
const HOLD_TTL_MS = 600_000;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

type Slot = { id: string; start: string; state: string; capacity?: { total: number; remaining: number; held: number } };
type Res = { status: number; body: any; headers: Headers };

/** A fresh platform profile per test keeps the per-platform hold limit out of the way. */
let n = 0;
const platform = (name: string) => `https://${name}-${++n}.example/profile.json`;

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

async function firstFree(serviceId: string, date: string): Promise<Slot> {
  const [slot] = await slots(serviceId, date);
  expect(slot).toBeDefined();
  return slot;
}

async function slotById(serviceId: string, date: string, id: string): Promise<Slot | undefined> {
  return (await slots(serviceId, date)).find((s) => s.id === id);
}

function hold(serviceId: string, slotId: string, profile: string, spots?: number): Promise<Res> {
  return t.call(
    'POST',
    '/availability/holds',
    { service_id: serviceId, slot_id: slotId, ...(spots ? { spots } : {}) },
    { profile },
  );
}

function release(holdId: string, profile: string): Promise<Res> {
  return t.call('DELETE', `/availability/holds/${holdId}`, undefined, { profile });
}

describe('a hold reserves an appointment slot for the hold TTL (§4.4)', () => {
  it('answers 201 with an active hold expiring now + 600 s, and the slot leaves availability', async () => {
    const [slot] = await slots('svc_haircut', day(2));
    const res = await hold('svc_haircut', slot.id, PLATFORM);
    expect(res.status).toBe(201);
    const h = res.body.hold;
    expect(h.id).toMatch(/^hld_/);
    expect(h.slot_id).toBe(slot.id);
    expect(h.service_id).toBe('svc_haircut');
    expect(h.spots).toBe(1);
    expect(h.status).toBe('active');
    expect(Date.parse(h.expires_at)).toBe(t.clock.now() + HOLD_TTL_MS);
    expect(res.body.usp.capabilities['dev.usp-protocol.services.availability']).toBeDefined();
    expect(await slotById('svc_haircut', day(2), slot.id)).toBeUndefined();
    await release(h.id, PLATFORM);
  });

  it('a second platform holding the same appointment slot gets 200 slot_unavailable; the first hold stays active', async () => {
    const [slot] = await slots('svc_haircut', day(3));
    const first = await hold('svc_haircut', slot.id, PLATFORM);
    expect(first.status).toBe(201);
    const second = await hold('svc_haircut', slot.id, OTHER_PLATFORM);
    expect(second.status).toBe(200);
    expect(second.body.hold).toBeUndefined();
    expect(second.body.messages[0]).toMatchObject({ type: 'error', code: 'slot_unavailable', severity: 'recoverable' });
    // The first hold is untouched: releasing it reports it was still active until now.
    expect(await slotById('svc_haircut', day(3), slot.id)).toBeUndefined();
    const rel = await release(first.body.hold.id, PLATFORM);
    expect(rel.body.hold.status).toBe('released');
  });

  it('holds on different stylists at the same start time do not conflict', async () => {
    const all = await slots('svc_haircut', day(4));
    const start = all.find((s) => all.filter((o) => o.start === s.start).length === 3)!.start;
    const same = all.filter((s) => s.start === start);
    const p = platform('stylists');
    const held = await Promise.all(same.map((s, i) => hold('svc_haircut', s.id, i === 0 ? p : platform('stylists'))));
    expect(held.map((r) => r.status)).toEqual([201, 201, 201]);
    const after = await slots('svc_haircut', day(4));
    expect(after.filter((s) => s.start === start)).toEqual([]);
  });
});

describe('group classes: holds take spots up to capacity (§4.4 hold concurrency)', () => {
  it('holds decrement remaining and count in held; a hold for more spots than remain answers slot_unavailable (spec 4.2)', async () => {
    const [slot] = await slots('svc_yoga_class', day(2));
    expect(slot.capacity).toEqual({ total: 12, remaining: 12, held: 0 });
    const a = await hold('svc_yoga_class', slot.id, platform('yoga'), 5);
    expect(a.status).toBe(201);
    expect(a.body.hold.spots).toBe(5);
    expect((await slotById('svc_yoga_class', day(2), slot.id))!.capacity).toEqual({ total: 12, remaining: 7, held: 5 });

    const pb = platform('yoga');
    const b = await hold('svc_yoga_class', slot.id, pb, 5);
    expect(b.status).toBe(201);
    const mid = (await slotById('svc_yoga_class', day(2), slot.id))!;
    expect(mid.capacity).toEqual({ total: 12, remaining: 2, held: 10 });
    expect(mid.state).toBe('limited');

    const tooMany = await hold('svc_yoga_class', slot.id, platform('yoga'), 3);
    expect(tooMany.status).toBe(200);
    expect(tooMany.body.messages[0]).toMatchObject({
      type: 'error',
      code: 'slot_unavailable',
      severity: 'recoverable',
      path: '$.spots',
    });

    const c = await hold('svc_yoga_class', slot.id, platform('yoga'), 2);
    expect(c.status).toBe(201);
    const full = (await slotById('svc_yoga_class', day(2), slot.id))!;
    expect(full.capacity).toEqual({ total: 12, remaining: 0, held: 12 });
    expect(full.state).toBe('waitlist');

    const d = await hold('svc_yoga_class', slot.id, platform('yoga'));
    expect(d.status).toBe(200);
    expect(['capacity_exceeded', 'slot_unavailable']).toContain(d.body.messages[0].code);
    expect(d.body.messages[0].severity).toBe('recoverable');

    // Releasing restores the spots at once.
    const rel = await release(b.body.hold.id, pb);
    expect(rel.body.hold.status).toBe('released');
    expect((await slotById('svc_yoga_class', day(2), slot.id))!.capacity).toEqual({ total: 12, remaining: 5, held: 7 });
  });

  it('spots above 1 on an appointment are a validation_error outcome', async () => {
    const [slot] = await slots('svc_haircut', day(5));
    const res = await hold('svc_haircut', slot.id, platform('spots'), 2);
    expect(res.status).toBe(200);
    expect(res.body.messages[0]).toMatchObject({ type: 'error', code: 'validation_error', path: '$.spots' });
  });
});

describe('release is idempotent and gives the slot back (§4.4)', () => {
  it('release answers 200 released, the slot returns, and a second release still answers released', async () => {
    const p = platform('release');
    const [slot] = await slots('svc_massage_60', day(2));
    const h = await hold('svc_massage_60', slot.id, p);
    expect(h.status).toBe(201);
    expect(await slotById('svc_massage_60', day(2), slot.id)).toBeUndefined();

    const r1 = await release(h.body.hold.id, p);
    expect(r1.status).toBe(200);
    expect(r1.body.hold).toMatchObject({ id: h.body.hold.id, status: 'released' });
    expect(await slotById('svc_massage_60', day(2), slot.id)).toBeDefined();

    const r2 = await release(h.body.hold.id, p);
    expect(r2.status).toBe(200);
    expect(r2.body.hold.status).toBe('released');
    expect(r2.body.messages ?? []).toEqual([]);
  });

  it('If-Match is ignored on release', async () => {
    const p = platform('ifmatch');
    const [slot] = await slots('svc_massage_60', day(3));
    const h = await hold('svc_massage_60', slot.id, p);
    const r = await t.call('DELETE', `/availability/holds/${h.body.hold.id}`, undefined, {
      profile: p,
      ifMatch: '"stale-revision"',
    });
    expect(r.status).toBe(200);
    expect(r.body.hold.status).toBe('released');
  });

  it("a platform cannot release another platform's hold: hold_not_found, and the hold stays", async () => {
    const owner = platform('owner');
    const [slot] = await slots('svc_massage_60', day(4));
    const h = await hold('svc_massage_60', slot.id, owner);
    expect(h.status).toBe(201);
    const stranger = await release(h.body.hold.id, platform('stranger'));
    expect(stranger.status).toBe(200);
    expect(stranger.body.hold).toBeUndefined();
    expect(stranger.body.messages[0]).toMatchObject({ type: 'error', code: 'hold_not_found', severity: 'recoverable' });
    expect(await slotById('svc_massage_60', day(4), slot.id)).toBeUndefined();
    expect((await release(h.body.hold.id, owner)).body.hold.status).toBe('released');
  });

  it('releasing an id that never existed is hold_not_found', async () => {
    const res = await release('hld_does_not_exist', platform('ghost'));
    expect(res.status).toBe(200);
    expect(res.body.messages[0].code).toBe('hold_not_found');
  });
});

describe('hold abuse safeguards: concurrent-hold limit per platform per service (§10.1.2, D10)', () => {
  it('the 4th concurrent hold by one platform on one service is a 429 hold-limit-exceeded problem with Retry-After', async () => {
    const p = platform('greedy');
    for (let i = 0; i < 3; i++)
      expect((await hold('svc_bridal_trial', (await firstFree('svc_bridal_trial', day(6))).id, p)).status).toBe(201);
    const target = await firstFree('svc_bridal_trial', day(6));
    const fourth = await hold('svc_bridal_trial', target.id, p);
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(fourth.body.type.startsWith(ERRORS)).toBe(true);
    expect(fourth.body.type.endsWith('/hold-limit-exceeded')).toBe(true);
    expect(fourth.body.status).toBe(429);
    // The slot the 4th hold asked for is still free for others; another platform is not limited.
    expect((await hold('svc_bridal_trial', target.id, platform('other'))).status).toBe(201);
    // The same platform may still hold on another service.
    const [massage] = await slots('svc_massage_60', day(6));
    expect((await hold('svc_massage_60', massage.id, p)).status).toBe(201);
  });

  it('releasing one of three holds makes room for another', async () => {
    const p = platform('polite');
    const held = [];
    for (let i = 0; i < 3; i++)
      held.push((await hold('svc_bridal_trial', (await firstFree('svc_bridal_trial', day(7))).id, p)).body.hold.id);
    const target = await firstFree('svc_bridal_trial', day(7));
    expect((await hold('svc_bridal_trial', target.id, p)).status).toBe(429);
    await release(held[0], p);
    expect((await hold('svc_bridal_trial', target.id, p)).status).toBe(201);
  });
});

describe('expiry is lazy: a hold past its TTL stops counting without any sweeper (§4.4)', () => {
  it('after the TTL the slot is available again, the hold reads as expired, and the hold limit frees up', async () => {
    const p = platform('slow');
    const picks: Slot[] = [];
    const holds = [];
    for (let i = 0; i < 3; i++) {
      picks.push(await firstFree('svc_color_consult', day(8)));
      const h = await hold('svc_color_consult', picks[i].id, p);
      expect(h.status).toBe(201);
      holds.push(h.body.hold);
    }
    picks.push(await firstFree('svc_color_consult', day(8)));
    expect(await slotById('svc_color_consult', day(8), picks[0].id)).toBeUndefined();
    expect((await hold('svc_color_consult', picks[3].id, p)).status).toBe(429);

    t.clock.advance(HOLD_TTL_MS - 1);
    expect(await slotById('svc_color_consult', day(8), picks[0].id)).toBeUndefined();

    t.clock.advance(2);
    expect(await slotById('svc_color_consult', day(8), picks[0].id)).toBeDefined();
    // Another platform can now hold the slot that was held.
    expect((await hold('svc_color_consult', picks[0].id, platform('next'))).status).toBe(201);
    // The owner's holds read as expired (release reports the state without changing it).
    const r = await release(holds[1].id, p);
    expect(r.status).toBe(200);
    expect(r.body.hold).toMatchObject({ id: holds[1].id, status: 'expired' });
    // Expired holds no longer count toward the limit.
    expect((await hold('svc_color_consult', picks[3].id, p)).status).toBe(201);
  });

  it('booking with an expired hold is a hold_expired outcome', async () => {
    const p = platform('late');
    const [slot] = await slots('svc_haircut', day(9));
    const h = await hold('svc_haircut', slot.id, p);
    t.clock.advance(HOLD_TTL_MS + 1000);
    const bk = await t.call(
      'POST',
      '/bookings',
      {
        service_id: 'svc_haircut',
        slot_id: slot.id,
        hold_id: h.body.hold.id,
        buyer: { first_name: 'A', last_name: 'B', email: 'a@example.com' },
      },
      { profile: p },
    );
    expect(bk.status).toBe(200);
    expect(bk.body.messages[0]).toMatchObject({ type: 'error', code: 'hold_expired', severity: 'recoverable' });
  });
});

describe('holds need a platform profile (§8.3, D7)', () => {
  it('a hold without USP-Agent is invalid_request naming profile', async () => {
    const [slot] = await slots('svc_haircut', day(10));
    const res = await t.call(
      'POST',
      '/availability/holds',
      { service_id: 'svc_haircut', slot_id: slot.id },
      { profile: null },
    );
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('profile');
  });

  it('a slot id from another service is slot_unavailable', async () => {
    const [slot] = await slots('svc_haircut', day(10));
    const res = await hold('svc_massage_60', slot.id, platform('mixup'));
    expect(res.status).toBe(200);
    expect(res.body.messages[0].code).toBe('slot_unavailable');
  });
});
