/**
 * The booking window is checked in one place (`clipToBookingWindow`, src/domain/slot-query.ts): a
 * query clips its range with it, the availability cache narrows a kept list with it, and the write
 * path (hold, booking, move) asks it of one start. No other file works the window out from the
 * service's policies, so the three can never disagree.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { clipToBookingWindow, type ServiceDef } from '../../src/domain/index.js';
import { TEST_NOW } from '../support/time.js';

const H = 3_600_000;
const D = 24 * H;
const service = (booking_window?: Record<string, string>) =>
  ({ policies: { booking_window } }) as unknown as ServiceDef;

describe('clipToBookingWindow is the booking-window check', () => {
  const win = service({ min_advance: 'PT2H', max_advance: 'P10D' });

  test('a range is clipped to [now + notice, now + horizon], the horizon inclusive', () => {
    expect(clipToBookingWindow(win, TEST_NOW, TEST_NOW - D, TEST_NOW + 30 * D)).toEqual({
      from: TEST_NOW + 2 * H,
      to: TEST_NOW + 10 * D + 1,
    });
  });

  test('one start: inside is a non-empty range, one millisecond before the notice or past the horizon is empty', () => {
    const one = (s: number) => {
      const w = clipToBookingWindow(win, TEST_NOW, s, s + 1);
      return w.from < w.to;
    };
    expect(one(TEST_NOW + 2 * H)).toBe(true);
    expect(one(TEST_NOW + 10 * D)).toBe(true);
    expect(one(TEST_NOW + 2 * H - 1)).toBe(false);
    expect(one(TEST_NOW + 10 * D + 1)).toBe(false);
  });

  test('aheadMs reaches past the far end only; omitted members are no limit but the past', () => {
    expect(clipToBookingWindow(win, TEST_NOW, TEST_NOW, TEST_NOW + 30 * D, D).to).toBe(TEST_NOW + 11 * D + 1);
    expect(clipToBookingWindow(service(undefined), TEST_NOW, TEST_NOW - D, TEST_NOW + 400 * D)).toEqual({
      from: TEST_NOW,
      to: TEST_NOW + 400 * D,
    });
  });
});

const ROOT = join(import.meta.dirname, '..', '..');
function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = join(dir, d.name);
    if (d.isDirectory()) return walk(full);
    return d.name.endsWith('.ts') ? [full] : [];
  });
}

describe('no file but the domain slot query works the booking window out itself', () => {
  test('only src/domain/slot-query.ts reads min_advance or max_advance, or names the raw window', () => {
    // The schema declares the members and the CLI's starter file writes them: neither checks them.
    const declaring = new Set(['src/domain/slot-query.ts', 'src/domain/service-schema.ts', 'src/server/cli/init.ts']);
    const readers = walk(join(ROOT, 'src'))
      .map((full) => ({ path: relative(ROOT, full).split('\\').join('/'), text: readFileSync(full, 'utf8') }))
      .filter((f) => !declaring.has(f.path) && /\bbookingWindow\b|\b(min|max)_advance\b/.test(f.text))
      .map((f) => f.path);
    expect(readers).toEqual([]);
  });
});
