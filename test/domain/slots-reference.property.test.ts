/**
 * The slot generator, rewritten for speed (each combination's slots as one sorted run, runs merged by
 * start, claims insertion-sorted, blocked checks by a moving cursor, each start's text written once),
 * answers exactly what the generator before it answered (`slots-reference.ts`, kept as it was) on
 * random schedules: weekly hours, dated exceptions, time off, zones with a UTC-offset change in the
 * range, buffers, odd intervals, one or two requirements, capacity types and unsorted, overlapping
 * claims.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  addDays,
  generateSlots,
  localToUtcMs,
  type Claim,
  type ResourceDef,
  type ServiceDef,
  type SlotQuery,
  type WeeklyHours,
} from '../../src/domain/index.js';
import { seen } from './slot-fixtures.js';
import { referenceSlots } from './slots-reference.js';

const DAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const MIN = 60_000;
const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

/** A local interval on a 5-minute grid, or on any minute; half of them start in the morning (so that staff overlap). */
const interval = fc
  .tuple(
    fc.oneof(fc.integer({ min: 0, max: 1430 }), fc.integer({ min: 420, max: 660 })),
    fc.integer({ min: 5, max: 600 }),
    fc.boolean(),
  )
  .map(([start, len, grid]) => {
    const s = grid ? start - (start % 5) : start;
    return { opens: hhmm(s), closes: hhmm(Math.min(1439, s + len)) };
  })
  .filter((iv) => iv.opens < iv.closes);

const weekly: fc.Arbitrary<WeeklyHours> = fc
  .array(fc.array(interval, { maxLength: 2 }), { minLength: 7, maxLength: 7 })
  .map((days) => Object.fromEntries(days.flatMap((ivs, i) => (ivs.length ? [[DAY_NAMES[i], ivs]] : []))));

const setup = fc.record({
  zone: fc.constantFrom('America/New_York', 'Europe/London', 'Asia/Kolkata', 'Australia/Lord_Howe', 'UTC'),
  date: fc.constantFrom('2026-03-07', '2026-03-28', '2026-04-04', '2026-10-24', '2026-10-31', '2026-06-10'),
  days: fc.integer({ min: 1, max: 4 }),
  offsetMin: fc.integer({ min: 0, max: 900 }),
  staff: fc.array(fc.record({ schedule: weekly, exception: fc.option(fc.array(interval, { maxLength: 2 })) }), {
    minLength: 1,
    maxLength: 5,
  }),
  rooms: fc.array(weekly, { maxLength: 2 }),
  type: fc.constantFrom('appointment', 'appointment', 'group', 'reservation'),
  duration: fc.integer({ min: 5, max: 150 }),
  every: fc.integer({ min: 5, max: 90 }),
  before: fc.constantFrom(0, 0, 5, 10, 30),
  after: fc.constantFrom(0, 0, 5, 15),
  max: fc.integer({ min: 1, max: 6 }),
  twoRequirements: fc.boolean(),
  timeOff: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 4 * 1440 }), fc.integer({ min: 1, max: 600 })), {
    maxLength: 3,
  }),
  claims: fc.array(
    fc.record({
      resource: fc.nat(),
      startMin: fc.integer({ min: -1440, max: 5 * 1440 }),
      lengthMin: fc.integer({ min: -5, max: 200 }),
      onGrid: fc.boolean(),
      owner: fc.integer({ min: 0, max: 6 }),
      spots: fc.integer({ min: 0, max: 3 }),
      isHold: fc.boolean(),
    }),
    { maxLength: 40 },
  ),
  partySize: fc.integer({ min: 1, max: 3 }),
  narrow: fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: fc.nat(), weight: 1 }),
});

function queryOf(x: any): SlotQuery {
  const fromMs = localToUtcMs(x.date, '00:00', x.zone) + x.offsetMin * MIN;
  const toMs = localToUtcMs(addDays(x.date, x.days), '00:00', x.zone);
  const staff: ResourceDef[] = x.staff.map((s: any, i: number) => ({
    id: `p${i}`,
    type: 'staff',
    name: `P${i}`,
    schedule: s.schedule,
    ...(s.exception ? { exceptions: [{ date: addDays(x.date, 1), hours: s.exception }] } : {}),
  }));
  const rooms: ResourceDef[] = x.rooms.map((schedule: WeeklyHours, i: number) => ({
    id: `q${i}`,
    type: 'room',
    name: `Q${i}`,
    schedule,
  }));
  const all = [...staff, ...rooms];
  x.timeOff.forEach(([r, at, len]: number[]) => {
    const res = all[r % all.length];
    const start = localToUtcMs(x.date, '00:00', x.zone) + at * MIN;
    res.time_off = [
      ...(res.time_off ?? []),
      { start: new Date(start).toISOString(), end: new Date(start + len * MIN).toISOString() },
    ];
  });
  const requirements: ServiceDef['requirements'] = [{ type: 'staff', resource_ids: staff.map((r) => r.id) }];
  if (x.twoRequirements && rooms.length > 0) requirements.push({ type: 'room', resource_ids: rooms.map((r) => r.id) });
  const capacity = x.type === 'appointment' ? undefined : { max: x.max, waitlist: x.type === 'group' };
  const service: ServiceDef = {
    id: 'svc',
    name: 'svc',
    type: x.type,
    duration: {
      fixed: `PT${x.duration}M`,
      ...(x.before ? { buffer_before: `PT${x.before}M` } : {}),
      ...(x.after ? { buffer_after: `PT${x.after}M` } : {}),
    },
    pricing: { model: 'free', currency: 'USD' },
    channel: { type: 'at_business_location' },
    policies: {
      cancellation: { allowed: true },
      rescheduling: { allowed: true },
      booking_window: { min_advance: 'PT0M', max_advance: 'P90D', slot_interval: `PT${x.every}M` },
      confirmation_mode: 'auto',
      requires_payment: false,
    },
    requirements,
    ...(capacity ? { capacity } : {}),
  } as ServiceDef;
  const dayStart = localToUtcMs(x.date, '00:00', x.zone);
  const claims: Claim[] = x.claims.map((c: any): Claim => {
    const r = staff[c.resource % staff.length];
    const start = dayStart + (c.onGrid ? c.startMin - (c.startMin % x.every) : c.startMin) * MIN;
    return {
      resourceId: r.id,
      startMs: start,
      endMs: start + c.lengthMin * MIN,
      // Same-slot claims of a capacity service share this key with the slot they were made on.
      slotKey: `svc|${start}|${r.id}${requirements.length > 1 ? ',q0' : ''}`,
      ownerId: `o${c.owner}`,
      spots: c.spots,
      isHold: c.isHold,
    };
  });
  const resources = new Map(all.map((r) => [r.id, r]));
  const query: SlotQuery = {
    service,
    resources,
    zone: x.zone,
    fromMs,
    toMs,
    nowMs: dayStart - 2 * 86_400_000,
    claims,
    partySize: x.partySize,
  };
  if (x.narrow !== null) query.resourceId = all[x.narrow % all.length].id;
  return query;
}

describe('the generator answers what the generator before it answered', () => {
  test('random schedules, claims and ranges give the same slots, in the same order, field for field, ids and keys included', () => {
    let offered = 0;
    let several = 0;
    fc.assert(
      fc.property(setup, (x) => {
        const q = queryOf(x);
        const slots = generateSlots(q);
        const reference = referenceSlots(q);
        // What a caller reads: every field, the id and key a generated slot writes when read among them.
        expect(slots.map(seen)).toEqual(reference.map(seen));
        // The same fields are its own (a spread, JSON or Object.keys sees them), in the same order, besides id and key.
        for (let i = 0; i < slots.length; i++) {
          const own = Object.keys(reference[i]).filter((k) => k !== 'id' && k !== 'key');
          expect(Object.keys(slots[i])).toEqual(own);
        }
        offered += slots.length;
        if (new Set(slots.map((s) => s.resourceIds.join())).size > 1) several++;
      }),
      { numRuns: 400 },
    );
    // The runs did offer slots, many from several combinations (so the merge of runs was exercised).
    expect(offered).toBeGreaterThan(4000);
    expect(several).toBeGreaterThan(100);
  });
});
