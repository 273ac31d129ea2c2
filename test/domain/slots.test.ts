import { describe, expect, test } from 'vitest';
import {
  generateSlots,
  isCapacityType,
  type Claim,
  type ResourceDef,
  type ServiceDef,
} from '../../src/domain/index.js';
import {
  MIN,
  DAY,
  weekdays,
  baseResources,
  service,
  haircut,
  consult,
  yoga,
  MONDAY,
  TUESDAY,
  WEDNESDAY,
  at,
  resourcesMap,
  query,
  localTimes,
  claimsFor,
} from './slot-fixtures.js';

describe('a slot is one start time for one resource combination, stepping by slot_interval inside working time', () => {
  test('a 09:00-17:00 staff gives 16 half-hour slots from 09:00 to 16:30 local', () => {
    const slots = generateSlots(query(haircut, MONDAY));
    expect(slots).toHaveLength(16);
    expect(slots[0].startMs).toBe(Date.parse('2026-03-16T13:00:00Z'));
    expect(localTimes(slots).at(-1)).toBe('16:30');
    expect(slots.every((s) => s.endMs - s.startMs === 30 * MIN && s.durationMs === 30 * MIN)).toBe(true);
    expect(slots.every((s) => s.state === 'available' && s.capacity === undefined)).toBe(true);
  });

  test('the last slot ends at closing time even though its buffer runs past it', () => {
    const slots = generateSlots(query(haircut, MONDAY));
    expect(slots.at(-1)!.endMs).toBe(at(MONDAY, '17:00'));
  });

  test('a three-staff service gives one slot per staff per start, sorted by start then resource', () => {
    const slots = generateSlots(query(consult, MONDAY));
    expect(slots).toHaveLength(48);
    const ten = slots.filter((s) => s.startMs === at(MONDAY, '10:00'));
    expect(ten.map((s) => s.resourceIds)).toEqual([['alice'], ['bob'], ['carol']]);
    for (let i = 1; i < slots.length; i++) expect(slots[i].startMs).toBeGreaterThanOrEqual(slots[i - 1].startMs);
    expect(new Set(slots.map((s) => s.id)).size).toBe(48);
  });

  test('weekends without hours give no slots', () => {
    expect(generateSlots(query(haircut, '2026-03-15'))).toEqual([]);
  });

  test('only starts inside [fromMs, toMs) are returned', () => {
    const slots = generateSlots(query(haircut, MONDAY, { fromMs: at(MONDAY, '10:15'), toMs: at(MONDAY, '12:00') }));
    expect(localTimes(slots)).toEqual(['10:30', '11:00', '11:30']);
  });
});

describe('claims block every slot whose blocked interval (buffers included) overlaps them', () => {
  const booked = generateSlots(query(haircut, MONDAY)).find((s) => s.startMs === at(MONDAY, '10:00'))!;
  const claims = claimsFor(booked, haircut, 'bk_1');

  test('a 10:00 booking (blocked to 10:45) removes 09:30, 10:00 and 10:30', () => {
    const times = localTimes(generateSlots(query(haircut, MONDAY, { claims })));
    expect(times).not.toContain('09:30');
    expect(times).not.toContain('10:00');
    expect(times).not.toContain('10:30');
    expect(times).toContain('09:00');
    expect(times).toContain('11:00');
    expect(times).toHaveLength(13);
  });

  test('the claim on alice leaves bob and carol free at 10:00', () => {
    const ten = generateSlots(query(consult, MONDAY, { claims })).filter((s) => s.startMs === at(MONDAY, '10:00'));
    expect(ten.map((s) => s.resourceIds[0])).toEqual(['bob', 'carol']);
  });

  test('a buffer_before on the service also keeps the previous claim clear', () => {
    const withBefore = service({
      id: 'prep',
      duration: { fixed: 'PT30M', buffer_before: 'PT10M' },
      requirements: [{ type: 'staff', resource_ids: ['alice'] }],
    });
    const times = localTimes(generateSlots(query(withBefore, MONDAY, { claims })));
    expect(times).not.toContain('10:30'); // 10:20 .. 11:00 overlaps the claim to 10:45
    expect(times).not.toContain('10:00');
    expect(times).toContain('09:30'); // 09:20 .. 10:00 ends as the claim starts
    expect(times).toContain('11:00'); // 10:50 .. 11:30 is clear
  });

  test('a claim touching the blocked interval end-to-start does not block', () => {
    const touching: Claim = {
      resourceId: 'alice',
      startMs: at(MONDAY, '09:45'),
      endMs: at(MONDAY, '10:00'),
      slotKey: 'x',
      ownerId: 'o',
      spots: 1,
      isHold: true,
    };
    const times = localTimes(generateSlots(query(haircut, MONDAY, { claims: [touching] })));
    expect(times).toContain('09:00'); // 09:00 .. 09:45
    expect(times).not.toContain('09:30');
    expect(times).toContain('10:00');
  });
});

describe('the booking window keeps starts between now + min_advance and now + max_advance', () => {
  test('with now at 09:10 and min_advance PT1H, the first start is 10:30', () => {
    const slots = generateSlots(query(haircut, MONDAY, { nowMs: at(MONDAY, '09:10') }));
    expect(localTimes(slots)[0]).toBe('10:30');
  });

  test('starts later than now + max_advance are not offered', () => {
    const nowMs = at(MONDAY, '09:00');
    const slots = generateSlots(query(haircut, MONDAY, { nowMs, fromMs: nowMs, toMs: nowMs + 40 * DAY }));
    const last = slots.at(-1)!;
    expect(last.startMs).toBeLessThanOrEqual(nowMs + 30 * DAY);
    expect(last.startMs).toBe(at('2026-04-15', '09:00')); // exactly now + P30D (both EDT)
  });

  test('nothing in the past is offered even with min_advance zero', () => {
    const svc = service({
      ...haircut,
      policies: {
        ...haircut.policies,
        booking_window: { min_advance: 'PT0M', max_advance: 'P30D', slot_interval: 'PT30M' },
      },
    });
    const slots = generateSlots(query(svc, MONDAY, { nowMs: at(MONDAY, '12:01') }));
    expect(localTimes(slots)[0]).toBe('12:30');
  });
});

describe('exceptions replace the weekly hours of their date and time off removes a window', () => {
  const alice = baseResources[0];
  const withExceptions: ResourceDef = {
    ...alice,
    exceptions: [
      { date: TUESDAY, hours: [], reason: 'holiday' },
      { date: WEDNESDAY, hours: [{ opens: '12:00', closes: '14:00' }] },
    ],
    time_off: [{ start: '2026-03-19T12:00:00-04:00', end: '2026-03-19T13:00:00-04:00', reason: 'dentist' }],
  };
  const resources = resourcesMap([withExceptions, ...baseResources.slice(1)]);

  test('an exception with no hours closes the day', () => {
    expect(generateSlots(query(haircut, TUESDAY, { resources }))).toEqual([]);
  });

  test('an exception with hours replaces the weekly hours', () => {
    expect(localTimes(generateSlots(query(haircut, WEDNESDAY, { resources })))).toEqual([
      '12:00',
      '12:30',
      '13:00',
      '13:30',
    ]);
  });

  test('time off removes 12:00 and 12:30, and work resumes at 13:00', () => {
    const times = localTimes(generateSlots(query(haircut, '2026-03-19', { resources })));
    expect(times).toHaveLength(14);
    expect(times).toContain('11:30');
    expect(times).not.toContain('12:00');
    expect(times).not.toContain('12:30');
    expect(times).toContain('13:00');
  });

  test('other days keep the weekly hours', () => {
    expect(generateSlots(query(haircut, MONDAY, { resources }))).toHaveLength(16);
  });
});

describe('resource_id and location filters narrow the combinations', () => {
  test('resource_id keeps only combinations containing that resource', () => {
    const slots = generateSlots(query(consult, MONDAY, { resourceId: 'bob' }));
    expect(slots).toHaveLength(16);
    expect(slots.every((s) => s.resourceIds[0] === 'bob')).toBe(true);
  });

  test('a location keeps only slots there, and the slot carries its location', () => {
    const uptown = generateSlots(query(consult, MONDAY, { locationId: 'uptown' }));
    expect(uptown).toHaveLength(16);
    expect(uptown.every((s) => s.resourceIds[0] === 'carol' && s.locationId === 'uptown')).toBe(true);
    const downtown = generateSlots(query(consult, MONDAY, { locationId: 'downtown' }));
    expect(downtown).toHaveLength(32);
  });

  test('a combination spanning two locations is skipped', () => {
    const svc = service({
      id: 'mixed',
      location_ids: ['downtown', 'uptown'],
      requirements: [
        { type: 'staff', resource_ids: ['alice', 'carol'] },
        { type: 'room', resource_ids: ['studio'] },
      ],
    });
    const slots = generateSlots(query(svc, MONDAY));
    expect(slots.every((s) => s.resourceIds[0] === 'alice' && s.resourceIds[1] === 'studio')).toBe(true);
    expect(slots).toHaveLength(16);
  });

  test("resources without a location take the service's single location", () => {
    const roaming: ResourceDef = { id: 'eve', type: 'staff', name: 'Eve', schedule: weekdays('09:00', '10:00') };
    const svc = service({
      id: 'roam',
      location_ids: ['downtown'],
      requirements: [{ type: 'staff', resource_ids: ['eve'] }],
    });
    const slots = generateSlots(query(svc, MONDAY, { resources: resourcesMap([roaming]) }));
    expect(slots.map((s) => s.locationId)).toEqual(['downtown', 'downtown']);
  });
});

describe('service hours bound where slots may start and end', () => {
  test('the class only runs inside its timetable, on the combination of instructor and room', () => {
    const slots = generateSlots(query(yoga, MONDAY));
    expect(slots).toHaveLength(1);
    expect(slots[0].startMs).toBe(at(MONDAY, '18:00'));
    expect(slots[0].resourceIds).toEqual(['dana', 'studio']);
    expect(generateSlots(query(yoga, TUESDAY))).toEqual([]);
  });

  test('a service with no requirements is its own resource scheduled by its hours', () => {
    const tour = service({
      id: 'tour',
      requirements: [],
      duration: { fixed: 'PT60M' },
      hours: { monday: [{ opens: '10:00', closes: '12:00' }] },
    });
    const slots = generateSlots(query(tour, MONDAY));
    expect(localTimes(slots)).toEqual(['10:00', '10:30', '11:00']);
    expect(slots[0].resourceIds).toEqual(['service:tour']);
    expect(slots[0].locationId).toBe('downtown');
    const { hours: _ignored, ...noHours } = tour;
    expect(generateSlots(query(noHours as ServiceDef, MONDAY))).toEqual([]);
  });
});

describe('capacity types count spots per slot instead of blocking, once per owner', () => {
  const slot = generateSlots(query(yoga, MONDAY))[0];

  test('an empty class offers all 12 spots', () => {
    expect(slot.capacity).toEqual({ total: 12, remaining: 12, held: 0 });
    expect(slot.state).toBe('available');
  });

  test('bookings and holds on the same slot lower remaining; an owner with claims on two resources counts once', () => {
    const claims = [
      ...claimsFor(slot, yoga, 'bk_1', 4),
      ...claimsFor(slot, yoga, 'bk_2', 4),
      ...claimsFor(slot, yoga, 'hold_1', 2, true),
    ];
    expect(claims).toHaveLength(6);
    const [s] = generateSlots(query(yoga, MONDAY, { claims }));
    expect(s.capacity).toEqual({ total: 12, remaining: 2, held: 2 });
    expect(s.state).toBe('limited');
  });

  test('remaining at or above 3 and 20% of total is available', () => {
    const [s] = generateSlots(query(yoga, MONDAY, { claims: claimsFor(slot, yoga, 'bk_1', 9) }));
    expect(s.capacity!.remaining).toBe(3);
    expect(s.state).toBe('available');
  });

  test('a party larger than the remaining spots sees the waitlist', () => {
    const claims = claimsFor(slot, yoga, 'bk_1', 10);
    const [s] = generateSlots(query(yoga, MONDAY, { claims, partySize: 3 }));
    expect(s.state).toBe('waitlist');
    expect(s.capacity).toEqual({ total: 12, remaining: 2, held: 0 });
  });

  test('a full class is waitlist, and is omitted when the service has no waitlist', () => {
    const claims = claimsFor(slot, yoga, 'bk_1', 12);
    expect(generateSlots(query(yoga, MONDAY, { claims }))[0].state).toBe('waitlist');
    const noWaitlist = { ...yoga, capacity: { max: 12, waitlist: false } };
    expect(generateSlots(query(noWaitlist, MONDAY, { claims }))).toEqual([]);
  });

  test('remaining never goes below zero when claims exceed capacity', () => {
    const claims = [...claimsFor(slot, yoga, 'bk_1', 12), ...claimsFor(slot, yoga, 'bk_2', 3)];
    expect(generateSlots(query(yoga, MONDAY, { claims }))[0].capacity!.remaining).toBe(0);
  });

  test('a claim from another slot on the instructor still blocks the class', () => {
    const other: Claim = {
      resourceId: 'dana',
      startMs: at(MONDAY, '18:30'),
      endMs: at(MONDAY, '19:30'),
      slotKey: 'private|x|dana',
      ownerId: 'bk_9',
      spots: 1,
      isHold: false,
    };
    expect(generateSlots(query(yoga, MONDAY, { claims: [other] }))).toEqual([]);
  });

  test('isCapacityType is true for group and reservation only', () => {
    expect(isCapacityType(yoga)).toBe(true);
    expect(isCapacityType({ ...yoga, type: 'reservation' })).toBe(true);
    expect(isCapacityType(haircut)).toBe(false);
  });
});
