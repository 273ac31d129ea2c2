/**
 * findSlot re-validates one slot without generating its day: it must give exactly the answer of
 * generating the days around it and looking the slot up, for any start (on the grid or not), any
 * combination (valid or not), any claims, and on days whose UTC offset changes. Checked over many
 * random cases from a seeded generator, so a failure names a reproducible case.
 */
import { describe, expect, test } from 'vitest';
import {
  blockedInterval,
  findSlot,
  generateSlots,
  localToUtcMs,
  slotKey,
  type Claim,
  type ResourceDef,
  type ServiceDef,
  type SlotCandidate,
  type WeeklyHours,
} from '../../src/domain/index.js';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const WEEK = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/** mulberry32: a small seeded generator, so every case can be replayed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
    chance: (p: number) => next() < p,
  };
}
type Rng = ReturnType<typeof rng>;

const hhmm = (m: number) =>
  m === 1440 ? '24:00' : `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

/** Days whose offset changes (spring forward, fall back), at 02:00, at midnight, by 30 minutes; and plain days. */
const DAYS: Array<{ zone: string; date: string }> = [
  { zone: 'America/New_York', date: '2026-03-08' },
  { zone: 'America/New_York', date: '2026-11-01' },
  { zone: 'America/New_York', date: '2026-06-10' },
  { zone: 'America/Santiago', date: '2026-09-06' },
  { zone: 'America/Santiago', date: '2026-04-05' },
  { zone: 'Australia/Lord_Howe', date: '2026-10-04' },
  { zone: 'Australia/Lord_Howe', date: '2026-04-05' },
  { zone: 'Europe/London', date: '2026-03-29' },
  { zone: 'Asia/Kolkata', date: '2026-07-15' },
  { zone: 'UTC', date: '2026-02-28' },
];

function randomHours(r: Rng): Array<{ opens: string; closes: string }> {
  const shape = r.int(0, 4);
  if (shape === 0) return [{ opens: '00:00', closes: '24:00' }];
  if (shape === 1)
    return [
      { opens: '22:00', closes: '24:00' },
      { opens: '00:00', closes: '03:00' },
    ];
  if (shape === 2)
    return [
      { opens: hhmm(r.int(0, 8) * 60 + r.pick([0, 15, 30])), closes: hhmm(r.int(12, 23) * 60 + r.pick([0, 10, 45])) },
    ];
  if (shape === 3)
    return [
      { opens: '01:00', closes: '04:00' },
      { opens: '09:00', closes: '12:30' },
      { opens: '13:00', closes: '18:00' },
    ];
  return [];
}

function randomWeek(r: Rng): WeeklyHours {
  const w: WeeklyHours = {};
  for (const d of WEEK) if (r.chance(0.85)) w[d] = randomHours(r);
  return w;
}

function randomResource(r: Rng, id: string, date: string): ResourceDef {
  const res: ResourceDef = {
    id,
    type: 'staff',
    name: id,
    location_id: r.pick(['downtown', 'downtown', 'uptown']),
    schedule: randomWeek(r),
  };
  if (r.chance(0.3))
    res.exceptions = [{ date: r.pick([date, nextDate(date, -1), nextDate(date, 1)]), hours: randomHours(r) }];
  if (r.chance(0.3)) {
    const start = Date.parse(`${date}T00:00:00Z`) + r.int(-12, 36) * 60 * MIN;
    res.time_off = [
      { start: new Date(start).toISOString(), end: new Date(start + r.int(1, 10) * 30 * MIN).toISOString() },
    ];
  }
  return res;
}

const nextDate = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);

function randomService(r: Rng, staff: string[]): ServiceDef {
  const capacity = r.chance(0.3);
  const interval = r.pick([10, 15, 20, 30, 45, 60]);
  const duration = r.pick([15, 30, 45, 60, 90, 150]);
  const self = r.chance(0.15);
  const requirements = self
    ? []
    : r.chance(0.7)
      ? [{ type: 'staff' as const, resource_ids: staff.slice(0, r.int(1, staff.length)) }]
      : [
          { type: 'staff' as const, resource_ids: staff.slice(0, 2) },
          { type: 'staff' as const, resource_ids: staff.slice(1) },
        ];
  const svc: ServiceDef = {
    id: `svc_${r.int(1, 9)}`,
    name: 'Service',
    type: capacity ? r.pick(['group', 'reservation'] as const) : 'appointment',
    duration: {
      fixed: `PT${duration}M`,
      ...(r.chance(0.4) ? { buffer_before: `PT${r.pick([5, 10, 15])}M` } : {}),
      ...(r.chance(0.5) ? { buffer_after: `PT${r.pick([5, 15, 30])}M` } : {}),
    },
    pricing: { model: 'fixed', amount: 10, currency: 'USD' },
    channel: { type: 'at_business_location' },
    policies: {
      cancellation: { allowed: true },
      rescheduling: { allowed: true },
      booking_window: {
        min_advance: r.pick(['PT0M', 'PT1H', 'P2D']),
        max_advance: r.pick(['P30D', 'P400D']),
        slot_interval: `PT${interval}M`,
      },
      confirmation_mode: 'auto',
      requires_payment: false,
    },
    location_ids: r.pick([['downtown'], ['downtown', 'uptown']]),
    requirements,
  } as ServiceDef;
  if (capacity) svc.capacity = { max: r.int(1, 8), waitlist: r.chance(0.5) };
  if (self || r.chance(0.2)) svc.hours = randomWeek(r);
  return svc;
}

/** Claims around the day: on generated slots (same slot, for capacity) and arbitrary intervals. */
function randomClaims(r: Rng, svc: ServiceDef, slots: SlotCandidate[], resources: string[], dayStart: number): Claim[] {
  const claims: Claim[] = [];
  const n = r.int(0, 12);
  for (let i = 0; i < n; i++) {
    const owner = `own_${r.int(1, 6)}`;
    if (slots.length > 0 && r.chance(0.6)) {
      const s = r.pick(slots);
      const b = blockedInterval(svc, s.startMs);
      for (const resourceId of s.resourceIds)
        claims.push({
          resourceId,
          startMs: b.startMs,
          endMs: b.endMs,
          slotKey: s.key,
          ownerId: owner,
          spots: r.int(1, 3),
          isHold: r.chance(0.4),
        });
    } else {
      const start = dayStart + r.int(-6, 30) * 30 * MIN + r.pick([0, 7 * MIN]);
      const resourceId = r.pick(resources);
      claims.push({
        resourceId,
        startMs: start,
        endMs: start + r.pick([0, 15, 45, 120]) * MIN,
        slotKey: slotKey({ serviceId: 'svc_other', startMs: start, resourceIds: [resourceId] }),
        ownerId: owner,
        spots: 1,
        isHold: false,
      });
    }
  }
  return claims;
}

describe("findSlot answers as generating the slot's days and looking it up", () => {
  test('random services, schedules, claims and starts, on days whose UTC offset changes', () => {
    let compared = 0;
    let found = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const r = rng(seed);
      const { zone, date } = r.pick(DAYS);
      const staff = ['ann', 'ben', 'cal'];
      const resources = new Map(staff.map((id) => [id, randomResource(r, id, date)] as const));
      const service = randomService(r, staff);
      const dayStart = localToUtcMs(date, '00:00', zone);
      const nowMs = dayStart - r.pick([3 * DAY, 10 * 60 * MIN, 0, -5 * 60 * MIN]);
      const base = { service, resources, zone, nowMs, claims: [] as Claim[], partySize: 1 };
      // Generated over a wide range, so the answer cannot depend on where a query starts.
      const range = { fromMs: dayStart - DAY, toMs: dayStart + 2 * DAY };
      const free = generateSlots({ ...base, ...range });
      const claims = randomClaims(r, service, free, staff, dayStart);
      const partySize = r.pick([1, 1, 2, 4]);
      const q = { ...base, claims, partySize };
      const all = generateSlots({ ...q, ...range });
      const combos = [...new Set(free.map((s) => JSON.stringify(s.resourceIds)))].map((j) => JSON.parse(j) as string[]);
      combos.push(['ann'], ['cal', 'ann'], ['ann', 'ann'], [], [`service:${service.id}`], ['nobody']);
      for (let k = 0; k < 60; k++) {
        // Starts on and off the grid: a generated start, or any 5-minute (sometimes odd-millisecond) instant of the day.
        const onGrid = free.length > 0 && r.chance(0.5) ? r.pick(free) : null;
        const startMs = onGrid ? onGrid.startMs : dayStart + r.int(-2, 290) * 5 * MIN + (r.chance(0.05) ? 1 : 0);
        const resourceIds = onGrid && r.chance(0.7) ? [...onGrid.resourceIds] : r.pick(combos);
        const expected =
          all.find((s) => s.startMs === startMs && JSON.stringify(s.resourceIds) === JSON.stringify(resourceIds)) ??
          null;
        const got = findSlot(q, { startMs, resourceIds });
        if (JSON.stringify(got) !== JSON.stringify(expected)) {
          // Name the case before the diff.
          expect({ seed, k, zone, date, startMs, resourceIds, got }).toEqual({
            seed,
            k,
            zone,
            date,
            startMs,
            resourceIds,
            got: expected,
          });
        }
        compared++;
        if (expected) found++;
      }
    }
    expect(compared).toBe(400 * 60);
    // The cases must exercise both answers, not only "not offered".
    expect(found).toBeGreaterThan(compared / 10);
  });
});
