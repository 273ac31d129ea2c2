/** Slot ids, findSlot, and the durations and hours a slot is cut from (the fixture: slot-fixtures.ts). */
import { describe, expect, test } from 'vitest';
import {
  blockedInterval,
  decodeSlotId,
  encodeSlotId,
  findSlot,
  generateSlots,
  openingHours,
  resolveSlotId,
  slotDurationMs,
  slotKey,
  slotTag,
} from '../../src/domain/index.js';
import {
  MIN,
  DAY,
  seen,
  baseResources,
  service,
  haircut,
  consult,
  yoga,
  MONDAY,
  at,
  resourcesMap,
  query,
  claimsFor,
} from './slot-fixtures.js';

describe('slot ids are opaque, stable and resolve back to their parts', () => {
  const slots = generateSlots(query(consult, MONDAY));

  test("every id decodes to the slot's start and tag, resolves to its service and resources, and the key is slotKey of them", () => {
    for (const s of slots) {
      expect(decodeSlotId(s.id)).toEqual({ startMs: s.startMs, tag: slotTag('consult', s.resourceIds) });
      const parts = resolveSlotId(s.id, consult, resourcesMap());
      expect(parts).toEqual({ serviceId: 'consult', startMs: s.startMs, resourceIds: s.resourceIds });
      expect(s.key).toBe(slotKey(parts!));
      expect(s.id).toBe(encodeSlotId(parts!));
      expect(s.id).toMatch(/^slot_[A-Za-z0-9_-]{14}$/);
    }
  });

  test('generating twice gives the same ids', () => {
    expect(generateSlots(query(consult, MONDAY)).map((s) => s.id)).toEqual(slots.map((s) => s.id));
  });

  test("a day's ids do not depend on the queried range", () => {
    const week = generateSlots(query(consult, MONDAY, { toMs: at(MONDAY, '00:00') + 7 * DAY }));
    const ids = new Set(week.map((s) => s.id));
    expect(slots.every((s) => ids.has(s.id))).toBe(true);
  });

  test('malformed ids decode to null', () => {
    for (const bad of [
      '',
      'slot_',
      'slot_!!!',
      'abc',
      slots[0].id.slice(0, -2),
      slots[0].id + 'A',
      'slot_' + Buffer.from('[1,2,3]').toString('base64url'),
      'slot_' + Buffer.from('{"a":1}').toString('base64url'),
    ]) {
      expect(decodeSlotId(bad)).toBeNull();
    }
    expect(decodeSlotId(42)).toBeNull();
  });

  test('slotKey joins service, start and resources', () => {
    expect(slotKey({ serviceId: 's', startMs: 5, resourceIds: ['a', 'b'] })).toBe('s|5|a,b');
  });
});

describe('findSlot re-validates one exact slot with the same rules as generateSlots', () => {
  const booked = generateSlots(query(haircut, MONDAY)).find((s) => s.startMs === at(MONDAY, '10:00'))!;
  const claims = claimsFor(booked, haircut, 'bk_1');

  test('every generated slot is found as-is', () => {
    for (const svc of [consult, haircut, yoga]) {
      const q = query(svc, MONDAY, { claims });
      for (const s of generateSlots(q)) {
        const found = findSlot(q, { startMs: s.startMs, resourceIds: s.resourceIds });
        expect(found && seen(found)).toEqual(seen(s));
      }
    }
  });

  test('blocked, off-grid, outside-hours and foreign-combination slots are not found', () => {
    const q = query(haircut, MONDAY, { claims });
    expect(findSlot(q, { startMs: at(MONDAY, '10:00'), resourceIds: ['alice'] })).toBeNull();
    expect(findSlot(q, { startMs: at(MONDAY, '11:15'), resourceIds: ['alice'] })).toBeNull();
    expect(findSlot(q, { startMs: at(MONDAY, '17:00'), resourceIds: ['alice'] })).toBeNull();
    expect(findSlot(q, { startMs: at(MONDAY, '11:00'), resourceIds: ['bob'] })).toBeNull();
    expect(findSlot(q, { startMs: at(MONDAY, '11:00'), resourceIds: [] })).toBeNull();
    expect(findSlot(q, { startMs: at(MONDAY, '11:00'), resourceIds: ['alice'] })).not.toBeNull();
  });

  test('a slot inside a week-long query is found on its own, and vice versa', () => {
    const q = query(consult, MONDAY, { toMs: at(MONDAY, '00:00') + 7 * DAY, claims });
    const week = generateSlots(q);
    const sample = week.filter((_, i) => i % 17 === 0);
    for (const s of sample) {
      const found = findSlot(q, s);
      expect(found && seen(found)).toEqual(seen(s));
    }
  });
});

describe('durations, buffers and weekly opening hours of a service', () => {
  test('slotDurationMs: fixed, range minimum, undetermined uses the slot interval', () => {
    expect(slotDurationMs(haircut)).toBe(30 * MIN);
    expect(slotDurationMs({ ...haircut, duration: { range: { min: 'PT45M', max: 'PT2H' } } })).toBe(45 * MIN);
    expect(slotDurationMs({ ...haircut, duration: { undetermined: true } })).toBe(30 * MIN);
  });

  test('blockedInterval spans buffer_before to buffer_after', () => {
    const svc = { ...haircut, duration: { fixed: 'PT30M', buffer_before: 'PT5M', buffer_after: 'PT15M' } };
    expect(blockedInterval(svc, 1_000_000_000)).toEqual({
      startMs: 1_000_000_000 - 5 * MIN,
      endMs: 1_000_000_000 + 45 * MIN,
    });
  });

  test("opening hours are the union of the resources' weeks, days with identical hours grouped", () => {
    const resources = resourcesMap([
      ...baseResources,
      {
        id: 'frank',
        type: 'staff',
        name: 'Frank',
        schedule: { monday: [{ opens: '08:00', closes: '10:00' }], saturday: [{ opens: '10:00', closes: '14:00' }] },
      },
    ]);
    const svc = service({ id: 'any', requirements: [{ type: 'staff', resource_ids: ['alice', 'bob', 'frank'] }] });
    expect(openingHours(svc, resources)).toEqual([
      { day_of_week: ['monday'], opens: '08:00', closes: '17:00' },
      { day_of_week: ['tuesday', 'wednesday', 'thursday', 'friday'], opens: '09:00', closes: '17:00' },
      { day_of_week: ['saturday'], opens: '10:00', closes: '14:00' },
    ]);
  });

  test("service hours intersect the resources' hours", () => {
    expect(openingHours(yoga, resourcesMap())).toEqual([
      { day_of_week: ['monday', 'wednesday'], opens: '18:00', closes: '19:00' },
    ]);
  });
});
