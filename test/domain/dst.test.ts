import { describe, expect, test } from 'vitest';
import {
  addDays,
  formatInstant,
  generateSlots,
  localToUtcMs,
  WEEKDAYS,
  type ResourceDef,
  type ServiceDef,
  type WeeklyHours,
} from '../../src/domain/index.js';

const ZONE = 'America/New_York';
const HOUR = 3_600_000;

const everyDay = (opens: string, closes: string): WeeklyHours =>
  Object.fromEntries(WEEKDAYS.map((d) => [d, [{ opens, closes }]]));

const resources = new Map<string, ResourceDef>([
  ['nina', { id: 'nina', type: 'staff', name: 'Nina', schedule: everyDay('09:00', '17:00') }],
  ['desk', { id: 'desk', type: 'equipment', name: 'Night desk', schedule: everyDay('00:00', '24:00') }],
]);

function svc(id: string, resourceId: string): ServiceDef {
  return {
    id,
    name: id,
    type: 'appointment',
    duration: { fixed: 'PT30M' },
    pricing: { model: 'free', currency: 'USD' },
    channel: { type: 'at_business_location' },
    policies: {
      cancellation: { allowed: true },
      rescheduling: { allowed: true },
      booking_window: { min_advance: 'PT0M', max_advance: 'P365D', slot_interval: 'PT30M' },
      confirmation_mode: 'auto',
      requires_payment: false,
    },
    requirements: [{ type: 'staff', resource_ids: [resourceId] }],
  };
}

const dayShift = svc('day_shift', 'nina');
const roundTheClock = svc('round_the_clock', 'desk');
const NOW = Date.parse('2026-01-01T00:00:00Z');

function slotsOn(service: ServiceDef, date: string) {
  return generateSlots({
    service,
    resources,
    zone: ZONE,
    fromMs: localToUtcMs(date, '00:00', ZONE),
    toMs: localToUtcMs(date, '24:00', ZONE),
    nowMs: NOW,
    claims: [],
    partySize: 1,
  });
}

interface Transition {
  name: string;
  /** [local date, UTC instant of its 09:00, offset that day] for the day before, of and after the change. */
  days: Array<[string, string, string]>;
  changeDayHours: 23 | 25;
}

const transitions: Transition[] = [
  {
    name: 'spring forward, 2026-03-08',
    days: [
      ['2026-03-07', '2026-03-07T14:00:00.000Z', '-05:00'],
      ['2026-03-08', '2026-03-08T13:00:00.000Z', '-04:00'],
      ['2026-03-09', '2026-03-09T13:00:00.000Z', '-04:00'],
    ],
    changeDayHours: 23,
  },
  {
    name: 'fall back, 2026-11-01',
    days: [
      ['2026-10-31', '2026-10-31T13:00:00.000Z', '-04:00'],
      ['2026-11-01', '2026-11-01T14:00:00.000Z', '-05:00'],
      ['2026-11-02', '2026-11-02T14:00:00.000Z', '-05:00'],
    ],
    changeDayHours: 25,
  },
];

for (const t of transitions) {
  describe(`a 09:00-17:00 schedule stays 09:00-17:00 local across the ${t.name} (America/New_York)`, () => {
    test.each(t.days)('on %s the first slot is 09:00 local = %s', (date, utc, offset) => {
      const slots = slotsOn(dayShift, date);
      expect(new Date(slots[0].startMs).toISOString()).toBe(utc);
      expect(formatInstant(slots[0].startMs, ZONE)).toBe(`${date}T09:00:00${offset}`);
      expect(formatInstant(slots.at(-1)!.startMs, ZONE)).toBe(`${date}T16:30:00${offset}`);
    });

    test('each of the three days has the same 16 slots', () => {
      expect(t.days.map(([date]) => slotsOn(dayShift, date).length)).toEqual([16, 16, 16]);
    });

    test('slots of consecutive days start 24 hours apart except across the change', () => {
      const firsts = t.days.map(([date]) => slotsOn(dayShift, date)[0].startMs);
      const shift = t.changeDayHours === 23 ? -1 : 1;
      expect(firsts[1] - firsts[0]).toBe((24 + shift) * HOUR);
      expect(firsts[2] - firsts[1]).toBe(24 * HOUR);
    });

    test(`a 00:00-24:00 resource has ${t.changeDayHours * 2} half-hour slots on the change day and 48 on the others`, () => {
      const [before, change, after] = t.days.map(([date]) => slotsOn(roundTheClock, date).length);
      expect([before, change, after]).toEqual([48, t.changeDayHours * 2, 48]);
    });

    test('a multi-day query gives the same slots as the single days', () => {
      const [first] = t.days[0];
      const last = t.days[2][0];
      const all = generateSlots({
        service: dayShift,
        resources,
        zone: ZONE,
        fromMs: localToUtcMs(first, '00:00', ZONE),
        toMs: localToUtcMs(addDays(last, 1), '00:00', ZONE),
        nowMs: NOW,
        claims: [],
        partySize: 1,
      });
      expect(all.map((s) => s.id)).toEqual(t.days.flatMap(([date]) => slotsOn(dayShift, date).map((s) => s.id)));
    });
  });
}
