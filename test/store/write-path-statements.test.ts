/**
 * The booking write path on SQLite, counted: the statements a hold and a booking on it execute,
 * through the REST door. The count is pinned so that a change adding statements to every booking
 * fails here and is a decision, not an accident.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { countBookings, countingServer } from '../support/write-path-count.js';

/** Statements per booking (hold + create) on SQLite; see docs/BENCHMARKS.md for what they are. */
const SQLITE_STATEMENTS_PER_BOOKING = 31;

describe('the booking write path on SQLite executes a pinned number of statements', () => {
  let s: Awaited<ReturnType<typeof countingServer>>;
  beforeAll(async () => {
    s = await countingServer(':memory:');
  });
  afterAll(async () => {
    await s?.server.close();
  });

  test(`hold + create executes at most ${SQLITE_STATEMENTS_PER_BOOKING} statements, the same for every booking`, async () => {
    const c = await countBookings(s, 5);
    const shown = `hold (${c.hold.length}):\n  ${c.hold.join('\n  ')}\ncreate (${c.create.length}):\n  ${c.create.join('\n  ')}`;
    expect(new Set(c.perBooking).size, shown).toBe(1);
    expect(c.perBooking[0], shown).toBeLessThanOrEqual(SQLITE_STATEMENTS_PER_BOOKING);
  });
});
