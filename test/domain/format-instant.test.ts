/**
 * formatInstant reads zone offsets from a per-hour memo (for speed); it must write exactly what
 * luxon writes, including across DST transitions and in half-hour and 45-minute zones.
 */
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { formatInstant, localDate } from '../../src/domain/time.js';

const ZONES = [
  'America/New_York',
  'Europe/London',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'America/St_Johns',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'UTC',
];

describe('formatInstant agrees with luxon everywhere in 2026', () => {
  it.each(ZONES)('%s, every 4 hours and around every transition', (zone) => {
    const start = Date.parse('2026-01-01T00:00:00Z');
    const end = Date.parse('2027-01-01T00:00:00Z');
    const instants: number[] = [];
    for (let ms = start; ms < end; ms += 241 * 60_000 + 7_000) instants.push(ms);
    // Every minute of the days when the zone changes its offset.
    for (let ms = start; ms < end; ms += 3_600_000) {
      if (DateTime.fromMillis(ms, { zone }).offset !== DateTime.fromMillis(ms + 3_600_000, { zone }).offset) {
        for (let m = ms - 7_200_000; m < ms + 7_200_000; m += 60_000) instants.push(m);
      }
    }
    for (const ms of instants) {
      const want = DateTime.fromMillis(Math.floor(ms / 1000) * 1000, { zone }).toISO({
        suppressMilliseconds: true,
        includeOffset: true,
      });
      expect(formatInstant(ms, zone), `${zone} ${new Date(ms).toISOString()}`).toBe(want);
      expect(localDate(ms, zone)).toBe(DateTime.fromMillis(ms, { zone }).toISODate());
    }
  });
});
