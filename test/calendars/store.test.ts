/**
 * The calendar repository on both engines: busy intervals are claims (seen by every claim read,
 * bumping the availability version), replaced per feed, overlapping each other across feeds but,
 * on PostgreSQL, never a firm booking (the exclusion constraint); and a change to a booking on a
 * push target queues it in the same transaction, with a version that keeps a change made during a
 * push from being lost.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { openSqliteStore, type Store } from '../../src/store/index.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { PG_URL, dropSchema, noteSkipped, schemaName } from '../pg/helpers.js';
import { booking, claim } from '../support/records.js';
import { TEST_NOW as NOW } from '../support/time.js';

const H = 3_600_000;
const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
});

const engines: Array<[string, (() => Promise<Store>) | null]> = [
  ['sqlite', async () => openSqliteStore({ path: ':memory:' })],
  [
    'postgres',
    PG_URL
      ? async () => {
          const schema = schemaName('cal');
          schemas.push(schema);
          return openPostgresStore({ url: PG_URL!, schema, onError: () => {} });
        }
      : null,
  ],
];

for (const [engine, open] of engines) {
  describe.skipIf(!open)(
    open ? `calendar claims and the push queue (${engine})` : noteSkipped(`calendar claims (${engine})`),
    () => {
      test('busy intervals are claims on the resource, replaced per feed, and bump its availability version', async () => {
        const store = await open!();
        try {
          const v0 = await store.read((tx) => tx.claims.version(['res_a']));
          await store.transaction((tx) =>
            tx.calendars.replaceBusy('feed1', 'res_a', [
              { start_ms: NOW + H, end_ms: NOW + 2 * H },
              { start_ms: NOW + 5 * H, end_ms: NOW + 6 * H },
            ]),
          );
          // A second feed of the same resource may overlap the first.
          await store.transaction((tx) =>
            tx.calendars.replaceBusy('feed2', 'res_a', [{ start_ms: NOW + H, end_ms: NOW + 3 * H }]),
          );
          const active = await store.read((tx) => tx.claims.active(['res_a'], NOW, NOW + 24 * H, NOW));
          expect(active).toHaveLength(3);
          expect(await store.read((tx) => tx.claims.version(['res_a']))).toBeGreaterThan(v0);
          await store.transaction((tx) =>
            tx.calendars.replaceBusy('feed1', 'res_a', [{ start_ms: NOW + 8 * H, end_ms: NOW + 9 * H }]),
          );
          expect(await store.read((tx) => tx.calendars.busy('feed1'))).toEqual([
            { start_ms: NOW + 8 * H, end_ms: NOW + 9 * H },
          ]);
          expect(
            (await store.read((tx) => tx.calendars.busyOn(['res_a'], NOW, NOW + 24 * H))).map((b) => b.feed_key).sort(),
          ).toEqual(['feed1', 'feed2']);
          await store.transaction((tx) => tx.calendars.forgetFeedsExcept(['feed2']));
          expect(await store.read((tx) => tx.calendars.busy('feed1'))).toEqual([]);
          expect(await store.read((tx) => tx.calendars.busy('feed2'))).toHaveLength(1);
        } finally {
          await store.close();
        }
      });

      test.skipIf(engine !== 'postgres')(
        'the exclusion constraint refuses busy time over a confirmed booking',
        async () => {
          const store = await open!();
          try {
            await store.transaction((tx) => tx.claims.add([claim('bkg_1', 'res_a', NOW + H, NOW + 2 * H)]));
            await expect(
              store.transaction((tx) =>
                tx.calendars.replaceBusy('feed1', 'res_a', [{ start_ms: NOW + H, end_ms: NOW + 2 * H }]),
              ),
            ).rejects.toThrow();
          } finally {
            await store.close();
          }
        },
      );

      test('a change to a booking on a push target is queued in its own transaction; one elsewhere is not', async () => {
        const store = await open!();
        try {
          await store.transaction((tx) => tx.calendars.setPushTargets(['res_alice']));
          await store.transaction((tx) => tx.bookings.insert(booking('bkg_1')));
          const other = booking('bkg_2');
          other.priv.resource_ids = ['res_bob'];
          await store.transaction((tx) => tx.bookings.insert(other));
          let jobs = await store.transaction((tx) => tx.calendars.duePushes(NOW, 10, NOW + 60_000));
          expect(jobs.map((j) => [j.booking_id, j.version])).toEqual([['bkg_1', 1]]);
          // A change while the job is leased: finishing the old version leaves the new one due.
          const rec = booking('bkg_1', { status: 'canceled' });
          await store.transaction((tx) => tx.bookings.update(rec));
          await store.transaction((tx) => tx.calendars.finishPush('bkg_1', 1));
          jobs = await store.transaction((tx) => tx.calendars.duePushes(NOW, 10, NOW + 60_000));
          expect(jobs.map((j) => [j.booking_id, j.version])).toEqual([['bkg_1', 2]]);
          await store.transaction((tx) => tx.calendars.failPush('bkg_1', 1, NOW + 10_000, 'HTTP 503'));
          expect(await store.transaction((tx) => tx.calendars.duePushes(NOW, 10, NOW + 60_000))).toEqual([]);
          expect((await store.read((tx) => tx.calendars.pushBacklog(10)))[0]).toMatchObject({
            booking_id: 'bkg_1',
            attempts: 1,
            last_error: 'HTTP 503',
          });
          await store.transaction((tx) => tx.calendars.finishPush('bkg_1', 2));
          expect(await store.read((tx) => tx.calendars.pushBacklog(10))).toEqual([]);
        } finally {
          await store.close();
        }
      });
    },
  );
}
