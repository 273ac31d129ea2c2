import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, test } from 'vitest';
import {
  addDays,
  formatDuration,
  formatInstant,
  isDuration,
  isIsoDate,
  isTimeOfDay,
  isValidTimeZone,
  isoUtc,
  localDate,
  localToUtcMs,
  parseDuration,
  parseInstant,
  weekdayOf,
} from '../../src/domain/index.js';

const NY = 'America/New_York';
const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

describe('parseDuration reads ISO 8601 PnW and PnDTnHnMnS durations as milliseconds', () => {
  test.each([
    ['PT30M', 30 * MIN],
    ['PT1H30M', 90 * MIN],
    ['PT60M', HOUR],
    ['P30D', 30 * DAY],
    ['P1DT2H', DAY + 2 * HOUR],
    ['P2W', 14 * DAY],
    ['PT45S', 45_000],
    ['PT1M30S', 90_000],
    ['PT0S', 0],
    ['P0D', 0],
  ])('%s is %d ms', (iso, ms) => {
    expect(parseDuration(iso)).toBe(ms);
    expect(isDuration(iso)).toBe(true);
  });
});

describe('parseDuration rejects years, months and malformed strings with an Error', () => {
  test('years and months throw a message naming them', () => {
    expect(() => parseDuration('P1Y')).toThrow(/years and months/);
    expect(() => parseDuration('P2M')).toThrow(/years and months/);
    expect(() => parseDuration('P1Y2M3D')).toThrow(/years and months/);
  });
  test.each(['', 'P', 'PT', 'P1DT', '30M', 'PT-5M', 'P1W2D', 'PT1H30', 'pt30m', 'PT1.5H', 'P1DT2H ', 'PTM'])(
    '"%s" is not a duration',
    (s) => {
      expect(() => parseDuration(s)).toThrow(Error);
      expect(isDuration(s)).toBe(false);
    },
  );
  test('non-strings are not durations', () => {
    expect(isDuration(30)).toBe(false);
    expect(isDuration(undefined)).toBe(false);
  });
});

describe('formatDuration writes minutes under a day and days for whole days', () => {
  test.each([
    [3_600_000, 'PT60M'],
    [5_400_000, 'PT90M'],
    [86_400_000, 'P1D'],
    [90_000, 'PT1M30S'],
    [30 * DAY, 'P30D'],
    [DAY + 2 * HOUR, 'P1DT120M'],
    [0, 'PT0S'],
    [1_500, 'PT1.5S'],
  ])('%d ms is %s', (ms, iso) => {
    expect(formatDuration(ms)).toBe(iso);
  });
  test('formatting then parsing gives the same milliseconds', () => {
    for (const ms of [MIN, 15 * MIN, 25 * HOUR, 7 * DAY + 61_000, 1_234])
      expect(parseDuration(formatDuration(ms))).toBe(ms);
  });
  test('negative durations throw', () => {
    expect(() => formatDuration(-1)).toThrow();
  });
});

describe('isValidTimeZone accepts IANA names only', () => {
  test('known zones are valid', () => {
    expect(isValidTimeZone('America/New_York')).toBe(true);
    expect(isValidTimeZone('Europe/Paris')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
  });
  test('unknown or empty names are invalid', () => {
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
    expect(isValidTimeZone(undefined)).toBe(false);
  });
});

describe('localToUtcMs turns local wall-clock time in a zone into an instant', () => {
  test('09:00 in New York is 14:00Z in winter and 13:00Z in summer', () => {
    expect(localToUtcMs('2026-01-15', '09:00', NY)).toBe(Date.parse('2026-01-15T14:00:00Z'));
    expect(localToUtcMs('2026-07-15', '09:00', NY)).toBe(Date.parse('2026-07-15T13:00:00Z'));
  });
  test('"24:00" is the next day\'s 00:00', () => {
    expect(localToUtcMs('2026-03-09', '24:00', NY)).toBe(localToUtcMs('2026-03-10', '00:00', NY));
    expect(localToUtcMs('2026-12-31', '24:00', 'UTC')).toBe(Date.parse('2027-01-01T00:00:00Z'));
  });
  test('"24:00" on the spring-forward day is 23 hours after its 00:00', () => {
    expect(localToUtcMs('2026-03-08', '24:00', NY) - localToUtcMs('2026-03-08', '00:00', NY)).toBe(23 * HOUR);
  });
  test('a time in the spring-forward gap is pushed forward by the gap (luxon default)', () => {
    expect(localToUtcMs('2026-03-08', '02:30', NY)).toBe(Date.parse('2026-03-08T07:30:00Z'));
  });
  test('an ambiguous fall-back time takes the earlier instant', () => {
    expect(localToUtcMs('2026-11-01', '01:30', NY)).toBe(Date.parse('2026-11-01T05:30:00Z'));
    expect(localToUtcMs('2026-11-01', '01:00', NY)).toBe(Date.parse('2026-11-01T05:00:00Z'));
    expect(localToUtcMs('2026-11-01', '02:00', NY)).toBe(Date.parse('2026-11-01T07:00:00Z'));
  });
  test('malformed input throws', () => {
    expect(() => localToUtcMs('2026-02-30', '09:00', NY)).toThrow();
    expect(() => localToUtcMs('2026-03-09', '24:30', NY)).toThrow();
    expect(() => localToUtcMs('2026-03-09', '09:00', 'Nowhere/Land')).toThrow();
  });
});

describe('localToUtcMs agrees with luxon except that it resolves ambiguous times to the earlier instant', () => {
  const zones = [
    'America/New_York',
    'Europe/London',
    'Australia/Sydney',
    'America/Santiago',
    'Asia/Kolkata',
    'Pacific/Chatham',
    'UTC',
  ];
  test('random local times in several zones (2020-2030)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: 0, max: 11 * 366 }),
        fc.integer({ min: 0, max: 1439 }),
        (zone, dayIndex, minutes) => {
          const date = addDays('2020-01-01', dayIndex);
          const time = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
          const ms = localToUtcMs(date, time, zone);
          const [y, mo, d] = date.split('-').map(Number);
          const luxonMs = DateTime.fromObject(
            { year: y, month: mo, day: d, hour: Math.floor(minutes / 60), minute: minutes % 60 },
            { zone },
          ).toMillis();
          const wall = DateTime.fromMillis(ms, { zone }).toFormat("yyyy-MM-dd'T'HH:mm");
          if (ms === luxonMs) return; // the usual case, and gaps (luxon's forward shift)
          expect(ms).toBeLessThan(luxonMs); // ambiguous: both read as the same wall time, ours is earlier
          expect(wall).toBe(`${date}T${time}`);
          expect(DateTime.fromMillis(luxonMs, { zone }).toFormat("yyyy-MM-dd'T'HH:mm")).toBe(`${date}T${time}`);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('every 5 minutes of every 2026 transition day in those zones', () => {
    let transitionDays = 0;
    let ambiguous = 0;
    for (const zone of zones) {
      for (let i = 0; i < 365; i++) {
        const date = addDays('2026-01-01', i);
        const next = addDays(date, 1);
        const [y, mo, d] = date.split('-').map(Number);
        const [y2, mo2, d2] = next.split('-').map(Number);
        const o1 = DateTime.fromObject({ year: y, month: mo, day: d }, { zone }).offset;
        const o2 = DateTime.fromObject({ year: y2, month: mo2, day: d2, hour: 12 }, { zone }).offset;
        if (o1 === o2) continue;
        transitionDays++;
        for (let m = 0; m < 1440; m += 5) {
          const time = `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
          const ms = localToUtcMs(date, time, zone);
          const luxonMs = DateTime.fromObject(
            { year: y, month: mo, day: d, hour: Math.floor(m / 60), minute: m % 60 },
            { zone },
          ).toMillis();
          if (ms === luxonMs) continue;
          ambiguous++;
          expect(ms).toBeLessThan(luxonMs);
          expect(DateTime.fromMillis(ms, { zone }).toFormat("yyyy-MM-dd'T'HH:mm")).toBe(`${date}T${time}`);
        }
      }
    }
    expect(transitionDays).toBeGreaterThanOrEqual(8);
    expect(ambiguous).toBeGreaterThan(0);
  });
});

describe('formatInstant writes RFC 3339 with the zone offset and no milliseconds', () => {
  test('the same wall time carries -05:00 before and -04:00 after the March change', () => {
    expect(formatInstant(Date.parse('2026-03-06T14:00:00Z'), NY)).toBe('2026-03-06T09:00:00-05:00');
    expect(formatInstant(Date.parse('2026-03-09T13:00:00Z'), NY)).toBe('2026-03-09T09:00:00-04:00');
  });
  test('milliseconds are dropped', () => {
    expect(formatInstant(Date.parse('2026-03-09T13:00:00.789Z'), NY)).toBe('2026-03-09T09:00:00-04:00');
  });
  test('other zones show their own offset', () => {
    expect(formatInstant(Date.parse('2026-06-01T12:00:00Z'), 'Asia/Kolkata')).toBe('2026-06-01T17:30:00+05:30');
    expect(formatInstant(Date.parse('2026-06-01T12:00:00Z'), 'UTC')).toBe('2026-06-01T12:00:00Z');
  });
  test('formatting then parsing gives the same instant', () => {
    const ms = Date.parse('2026-11-01T05:30:00Z');
    expect(parseInstant(formatInstant(ms, NY))).toBe(ms);
  });
});

describe('parseInstant reads RFC 3339 date-times with Z or an offset', () => {
  test('Z, offsets and fractions are read', () => {
    expect(parseInstant('2026-03-09T13:00:00Z')).toBe(Date.parse('2026-03-09T13:00:00Z'));
    expect(parseInstant('2026-03-09T09:00:00-04:00')).toBe(Date.parse('2026-03-09T13:00:00Z'));
    expect(parseInstant('2026-03-09T18:30:00.250+05:30')).toBe(Date.parse('2026-03-09T13:00:00.250Z'));
  });
  test.each([
    '2026-03-09',
    '2026-03-09T13:00:00',
    '2026-02-30T00:00:00Z',
    '2026-03-09T25:00:00Z',
    'soon',
    '2026-03-09T13:00Z',
    '2026-03-09T13:00:00+5:00',
  ])('"%s" is null', (s) => {
    expect(parseInstant(s)).toBeNull();
  });
});

describe('calendar dates are pure arithmetic on YYYY-MM-DD', () => {
  test('weekdayOf names the day in lowercase english', () => {
    expect(weekdayOf('2026-03-08')).toBe('sunday');
    expect(weekdayOf('2026-03-09')).toBe('monday');
    expect(weekdayOf('2026-11-01')).toBe('sunday');
  });
  test('addDays crosses months, years and leap days', () => {
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });
  test('localDate is the date in the zone, not in UTC', () => {
    expect(localDate(Date.parse('2026-03-10T03:00:00Z'), NY)).toBe('2026-03-09');
    expect(localDate(Date.parse('2026-03-10T03:00:00Z'), 'UTC')).toBe('2026-03-10');
  });
  test('isIsoDate accepts real dates only', () => {
    expect(isIsoDate('2028-02-29')).toBe(true);
    expect(isIsoDate('2026-02-29')).toBe(false);
    expect(isIsoDate('2026-3-09')).toBe(false);
    expect(isIsoDate('2026-13-01')).toBe(false);
  });
  test('isTimeOfDay accepts 00:00 to 24:00', () => {
    expect(['00:00', '09:30', '23:59', '24:00'].every(isTimeOfDay)).toBe(true);
    expect(['24:01', '9:30', '12:60', '25:00', ''].some(isTimeOfDay)).toBe(false);
  });

  test('isoUtc drops the milliseconds, for four-digit years and beyond them', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        expect(isoUtc(ms)).toBe(new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));
      }),
    );
    expect(isoUtc(Date.UTC(2026, 11, 1, 17, 0, 0, 999))).toBe('2026-12-01T17:00:00Z');
    expect(isoUtc(Date.UTC(10000, 0, 1))).toBe('+010000-01-01T00:00:00Z');
  });
});
