/**
 * The booking write path on PostgreSQL, counted: the round trips (queries sent) of a hold and a
 * booking on it through the REST door. Each is a wait for the database, and under load the waits
 * and the database's per-statement cost are what a booking costs; the count is pinned so that a
 * change adding round trips to every booking fails here. Skipped, with the reason in the title,
 * when no PostgreSQL URL is set.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { countBookings, countingServer } from '../support/write-path-count.js';
import { PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from './helpers.js';

/** Round trips per booking (hold + create) on PostgreSQL; see docs/BENCHMARKS.md for what they are. */
const PG_ROUND_TRIPS_PER_BOOKING = 25;

const title = (what: string) => (PG_URL ? what : noteSkipped(what));

describe.skipIf(!PG_URL)(title('the booking write path on PostgreSQL makes a pinned number of round trips'), () => {
  const schema = schemaName('usp_round_trips');
  let s: Awaited<ReturnType<typeof countingServer>>;
  beforeAll(async () => {
    s = await countingServer(urlWithSchema(schema));
  });
  afterAll(async () => {
    await s?.server.close();
    await dropSchema(schema);
  });

  test(`hold + create makes at most ${PG_ROUND_TRIPS_PER_BOOKING} round trips, the same for every booking`, async () => {
    const c = await countBookings(s, 5);
    const shown = `hold (${c.hold.length}):\n  ${c.hold.join('\n  ')}\ncreate (${c.create.length}):\n  ${c.create.join('\n  ')}`;
    expect(new Set(c.perBooking).size, shown).toBe(1);
    expect(c.perBooking[0], shown).toBeLessThanOrEqual(PG_ROUND_TRIPS_PER_BOOKING);
  });
});
