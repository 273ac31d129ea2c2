/**
 * The Store contract, written once and run against every engine (SQLite and PostgreSQL).
 * It speaks only through the `Store` port: no SQL, no file paths, no engine pragmas. Each test gets
 * a fresh, empty store from `open()` and closes it afterwards.
 *
 * Boundaries pinned here on purpose, so that every engine agrees: intervals are half-open
 * [start, end), and an expiry instant equal to `now` has passed (claims, holds, pending bookings,
 * waitlist offers and idempotency records all stop counting at their expiry).
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { HoldRecord } from '../../src/domain/records.js';
import type { ClaimRow, IdempotencyRecord, OutboxEvent, Store, Tx } from '../../src/store/port.js';
import type { RegistryBusinessRow, RegistryServiceRow } from '../../src/store/registry-port.js';
import {
  booking,
  claim,
  hold,
  idempotencyRecord as idem,
  outboxEvent,
  storedService as service,
  subscription,
  waitlistEntry as entry,
} from '../support/records.js';
import { TEST_NOW as NOW } from '../support/time.js';
import { definitionCheckContract } from './definition-check-contract.js';
import { mailContract } from './mail-contract.js';

const MIN = 60_000;

/** An outbox event created and due at `createdMs`, with a nested payload (JSON round trips). */
const event = (id: string, createdMs: number): OutboxEvent =>
  outboxEvent(id, {
    payload: { booking_id: 'bkg_1', nested: { n: 1, list: [1, 'two', null] } },
    created_ms: createdMs,
    due_ms: createdMs,
  });

const byOwnerResource = (a: ClaimRow, b: ClaimRow) =>
  a.owner_id === b.owner_id ? a.resource_id.localeCompare(b.resource_id) : a.owner_id.localeCompare(b.owner_id);
const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);
const sorted = (xs: string[]) => [...xs].sort();
const tick = (ms = 5) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ------------------------------------------------------------------------------------------------

/** `registry: false`: the store keeps no registry (a PostgreSQL store keyed by business). */
export function storeContract(name: string, open: () => Promise<Store>, opts: { registry?: boolean } = {}): void {
  describe(`Store contract (${name})`, () => {
    let store: Store;
    const write = <T>(fn: (tx: Tx) => Promise<T>) => store.transaction(fn);
    const read = <T>(fn: (tx: Tx) => Promise<T>) => store.read(fn);

    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    (opts.registry === false ? describe.skip : describe)('registry: registrations and their indexed services', () => {
      const reg = (
        id: string,
        lat: number | null,
        url = `https://${id}.example/.well-known/usp`,
      ): RegistryBusinessRow => ({
        id,
        profile_url: url,
        deployment_mode: 'standalone',
        status: 'active',
        owner: null,
        entry: { id, name: id },
        lat,
        lng: lat === null ? null : -74,
        verticals: ['appointment'],
        categories: ['hair'],
        search_text: `${id} hair`,
        name_text: id,
        created_ms: NOW,
        last_indexed_ms: NOW,
        next_index_ms: NOW + 1000,
        failures: 0,
      });
      const svcRow = (businessId: string, serviceId: string, lat: number | null): RegistryServiceRow => ({
        business_id: businessId,
        service_id: serviceId,
        vertical: 'appointment',
        terms: ['cat_hair'],
        search_text: serviceId,
        name_text: serviceId,
        currency: 'USD',
        price_min: 1000,
        price_max: 2000,
        dur_min: 30,
        dur_max: 30,
        lat,
        lng: lat === null ? null : -74,
        result: { service_id: serviceId },
        indexed_ms: NOW,
      });
      const box = (lat: number) => ({
        center: { lat, lng: -74, radiusKm: 5 },
        bbox: { minLat: lat - 0.1, maxLat: lat + 0.1, minLng: -74.1, maxLng: -73.9 },
      });

      test('a location search finds what lies within the radius, through the spatial index, and never a row without a point', async () => {
        await write(async (tx) => {
          for (const [id, lat] of [
            ['reg_a', 40.7],
            ['reg_b', 41.7],
            ['reg_c', null],
          ] as const) {
            await tx.registry.put(reg(id, lat));
            await tx.registry.replaceServices(id, [svcRow(id, `svc_${id}`, lat)]);
          }
        });
        expect((await read((tx) => tx.registry.searchBusinesses(box(40.7), 0, 10))).map((b) => b.id)).toEqual([
          'reg_a',
        ]);
        expect(
          (await read((tx) => tx.registry.searchServices(box(41.7), 0, 10))).map((h) => h.service.service_id),
        ).toEqual(['svc_reg_b']);
        expect(
          (await read((tx) => tx.registry.searchServices({ categories: ['cat_hair'] }, 0, 10)))
            .map((h) => h.service.service_id)
            .sort(),
        ).toEqual(['svc_reg_a', 'svc_reg_b', 'svc_reg_c']);
      });

      test('put replaces a registration by id; remove takes its services and terms along', async () => {
        await write(async (tx) => {
          await tx.registry.put(reg('reg_a', 40.7));
          await tx.registry.replaceServices('reg_a', [svcRow('reg_a', 'svc_1', 40.7), svcRow('reg_a', 'svc_2', 40.7)]);
          await tx.registry.put({ ...reg('reg_a', 40.7), failures: 3 });
        });
        expect((await read((tx) => tx.registry.get('reg_a')))?.failures).toBe(3);
        expect(await read((tx) => tx.registry.services('reg_a'))).toHaveLength(2);
        expect(await write((tx) => tx.registry.remove('reg_a'))).toBe(true);
        expect(await read((tx) => tx.registry.services('reg_a'))).toEqual([]);
        expect(await read((tx) => tx.registry.searchServices({ categories: ['cat_hair'] }, 0, 10))).toEqual([]);
        expect(await write((tx) => tx.registry.remove('reg_a'))).toBe(false);
      });

      test('due lists registrations whose re-index time has come, soonest first', async () => {
        await write(async (tx) => {
          await tx.registry.put({ ...reg('reg_late', null), next_index_ms: NOW + 50 });
          await tx.registry.put({ ...reg('reg_soon', null), next_index_ms: NOW + 10 });
          await tx.registry.put({ ...reg('reg_future', null), next_index_ms: NOW + 10_000 });
        });
        expect((await read((tx) => tx.registry.due(NOW + 100, 10))).map((b) => b.id)).toEqual(['reg_soon', 'reg_late']);
      });
    });

    describe('claims.active() returns the unexpired claims on the asked resources that overlap [from, to)', () => {
      test('a claim on a resource that was not asked about is not returned', async () => {
        await write((tx) =>
          tx.claims.add([claim('bkg_1', 'res_alice', 100, 200), claim('bkg_2', 'res_bob', 100, 200)]),
        );
        const rows = await read((tx) => tx.claims.active(['res_alice'], 0, 1000, NOW));
        expect(rows.map((r) => r.owner_id)).toEqual(['bkg_1']);
      });

      test('claims on any of several asked resources are returned', async () => {
        await write((tx) =>
          tx.claims.add([
            claim('bkg_1', 'res_alice', 100, 200),
            claim('bkg_2', 'res_bob', 100, 200),
            claim('bkg_3', 'res_carol', 100, 200),
          ]),
        );
        const rows = await read((tx) => tx.claims.active(['res_alice', 'res_carol'], 0, 1000, NOW));
        expect(sorted(rows.map((r) => r.owner_id))).toEqual(['bkg_1', 'bkg_3']);
      });

      test('an interval that only touches a claim at its start or end does not overlap it', async () => {
        await write((tx) => tx.claims.add([claim('bkg_1', 'res_alice', 100, 200)]));
        expect(await read((tx) => tx.claims.active(['res_alice'], 200, 300, NOW))).toEqual([]);
        expect(await read((tx) => tx.claims.active(['res_alice'], 0, 100, NOW))).toEqual([]);
      });

      test('partial, inner and enclosing overlaps are all returned', async () => {
        await write((tx) => tx.claims.add([claim('bkg_1', 'res_alice', 100, 200)]));
        for (const [from, to] of [
          [199, 300],
          [0, 101],
          [120, 130],
          [0, 1000],
          [100, 200],
        ]) {
          const rows = await read((tx) => tx.claims.active(['res_alice'], from, to, NOW));
          expect(
            rows.map((r) => r.owner_id),
            `[${from}, ${to})`,
          ).toEqual(['bkg_1']);
        }
      });

      test('a claim is found from inside it however long it is, also after many short claims and a purge', async () => {
        const DAY = 24 * 60 * MIN;
        await write((tx) => tx.claims.add([claim('bkg_short', 'res_alice', 0, 15 * MIN)]));
        // Added later and far longer than any claim before it: three days.
        await write((tx) =>
          tx.claims.add([
            claim('bkg_long', 'res_alice', 10 * DAY, 13 * DAY),
            claim('bkg_after', 'res_alice', 20 * DAY, 20 * DAY + MIN),
          ]),
        );
        await write((tx) => tx.claims.purgeEnded(5 * DAY, NOW));
        for (const [from, to] of [
          [12 * DAY, 12 * DAY + MIN],
          [13 * DAY - 1, 14 * DAY],
          [11 * DAY, 12 * DAY],
        ]) {
          const rows = await read((tx) => tx.claims.active(['res_alice'], from, to, NOW));
          expect(
            rows.map((r) => r.owner_id),
            `[${from}, ${to})`,
          ).toEqual(['bkg_long']);
        }
      });

      test('a claim stops counting at its expiry; a claim without expiry counts until removed', async () => {
        await write((tx) =>
          tx.claims.add([
            claim('hld_past', 'res_alice', 100, 200, { is_hold: true, expires_at_ms: NOW - 1 }),
            claim('hld_now', 'res_alice', 100, 200, { is_hold: true, expires_at_ms: NOW }),
            claim('hld_later', 'res_alice', 100, 200, { is_hold: true, expires_at_ms: NOW + 1 }),
            claim('bkg_forever', 'res_alice', 100, 200, { expires_at_ms: null }),
          ]),
        );
        const rows = await read((tx) => tx.claims.active(['res_alice'], 0, 1000, NOW));
        expect(sorted(rows.map((r) => r.owner_id))).toEqual(['bkg_forever', 'hld_later']);
      });

      test('an empty resource list returns no claims', async () => {
        await write((tx) => tx.claims.add([claim('bkg_1', 'res_alice', 100, 200)]));
        expect(await read((tx) => tx.claims.active([], 0, 1000, NOW))).toEqual([]);
      });

      test('a returned claim carries every field as written, is_hold as a boolean', async () => {
        const rows = [
          claim('hld_1', 'res_alice', 100, 200, {
            is_hold: true,
            spots: 3,
            expires_at_ms: NOW + MIN,
            slot_key: 'svc_yoga|100',
            service_id: 'svc_yoga',
          }),
          claim('bkg_1', 'res_alice', 150, 250),
        ];
        await write((tx) => tx.claims.add(rows));
        const got = await read((tx) => tx.claims.active(['res_alice'], 0, 1000, NOW));
        expect([...got].sort(byOwnerResource)).toEqual([...rows].sort(byOwnerResource));
      });
    });

    describe('claims are written and moved per owner', () => {
      test('removeOwner deletes every claim of that owner and no other', async () => {
        await write((tx) =>
          tx.claims.add([
            claim('bkg_1', 'res_alice', 100, 200),
            claim('bkg_1', 'res_room', 100, 200),
            claim('bkg_2', 'res_alice', 300, 400),
          ]),
        );
        await write((tx) => tx.claims.removeOwner('bkg_1'));
        const rows = await read((tx) => tx.claims.active(['res_alice', 'res_room'], 0, 1000, NOW));
        expect(rows.map((r) => r.owner_id)).toEqual(['bkg_2']);
      });

      test('transfer hands every claim of a hold to the booking as a non-hold claim with the new expiry', async () => {
        await write((tx) =>
          tx.claims.add([
            claim('hld_1', 'res_alice', 100, 200, { is_hold: true, expires_at_ms: NOW + MIN, spots: 2 }),
            claim('hld_1', 'res_room', 100, 200, { is_hold: true, expires_at_ms: NOW + MIN, spots: 2 }),
          ]),
        );
        await write((tx) => tx.claims.transfer('hld_1', 'bkg_1', NOW + 30 * MIN));
        const rows = (await read((tx) => tx.claims.active(['res_alice', 'res_room'], 0, 1000, NOW))).sort(
          byOwnerResource,
        );
        expect(rows).toEqual([
          claim('bkg_1', 'res_alice', 100, 200, { is_hold: false, expires_at_ms: NOW + 30 * MIN, spots: 2 }),
          claim('bkg_1', 'res_room', 100, 200, { is_hold: false, expires_at_ms: NOW + 30 * MIN, spots: 2 }),
        ]);
      });

      test('a transfer with a null expiry keeps the claim after the hold would have expired', async () => {
        await write((tx) =>
          tx.claims.add([claim('hld_1', 'res_alice', 100, 200, { is_hold: true, expires_at_ms: NOW + MIN })]),
        );
        await write((tx) => tx.claims.transfer('hld_1', 'bkg_1', null));
        const later = await read((tx) => tx.claims.active(['res_alice'], 0, 1000, NOW + 60 * MIN));
        expect(later).toEqual([claim('bkg_1', 'res_alice', 100, 200)]);
      });

      test('setExpiry changes only that owner; a null expiry makes its claims count until removed', async () => {
        await write((tx) =>
          tx.claims.add([
            claim('bkg_1', 'res_alice', 100, 200, { expires_at_ms: NOW + MIN }),
            claim('bkg_2', 'res_alice', 300, 400, { expires_at_ms: NOW + MIN }),
          ]),
        );
        await write((tx) => tx.claims.setExpiry('bkg_1', NOW - 1));
        expect((await read((tx) => tx.claims.active(['res_alice'], 0, 1000, NOW))).map((r) => r.owner_id)).toEqual([
          'bkg_2',
        ]);

        await write((tx) => tx.claims.setExpiry('bkg_1', null));
        const muchLater = await read((tx) => tx.claims.active(['res_alice'], 0, 1000, NOW + 24 * 60 * MIN));
        expect(muchLater).toEqual([claim('bkg_1', 'res_alice', 100, 200, { expires_at_ms: null })]);
      });

      test('purgeEnded forgets claims that ended before the cut-off or have expired, and keeps the rest', async () => {
        await write((tx) =>
          tx.claims.add([
            claim('old', 'res_alice', 100, 200),
            claim('lapsed_hold', 'res_alice', 5000, 6000, { is_hold: true, expires_at_ms: NOW - 1 }),
            claim('live', 'res_alice', 5000, 6000),
            claim('live_hold', 'res_bob', 5000, 6000, { is_hold: true, expires_at_ms: NOW + MIN }),
          ]),
        );
        expect(await write((tx) => tx.claims.purgeEnded(200, NOW))).toBe(2);
        const left = await read((tx) => tx.claims.active(['res_alice', 'res_bob'], 0, 10_000, NOW));
        expect(left.map((r) => r.owner_id).sort()).toEqual(['live', 'live_hold']);
      });
    });

    describe('claims.version() changes with every committed change to the claims or schedule changes of the asked resources, and only then', () => {
      const v = (ids: string[]) => read((tx) => tx.claims.version(ids));
      const timeOff = (id: string, resource: string) => ({
        id,
        resource_id: resource,
        kind: 'time_off' as const,
        start_ms: 100,
        end_ms: 200,
        date: null,
        hours: null,
        reason: null,
        created_ms: NOW,
        created_by: 'test',
      });

      test('each claim write (add, transfer, setExpiry, removeOwner, purgeEnded) moves the version of its resources and leaves others alone', async () => {
        const seen = [await v(['res_alice'])];
        const bob0 = await v(['res_bob']);
        const steps: Array<(tx: Tx) => Promise<unknown>> = [
          (tx) => tx.claims.add([claim('hld_1', 'res_alice', 100, 200, { is_hold: true, expires_at_ms: NOW + MIN })]),
          (tx) => tx.claims.transfer('hld_1', 'bkg_1', NOW + MIN),
          (tx) => tx.claims.setExpiry('bkg_1', null),
          (tx) => tx.claims.removeOwner('bkg_1'),
          (tx) => tx.claims.add([claim('old', 'res_alice', 100, 200)]),
          (tx) => tx.claims.purgeEnded(300, NOW),
        ];
        for (const step of steps) {
          await write(step);
          seen.push(await v(['res_alice']));
        }
        expect(new Set(seen).size).toBe(seen.length);
        expect(await v(['res_bob'])).toBe(bob0);
        // A set of resources moves when any of them does.
        const both = await v(['res_alice', 'res_bob']);
        await write((tx) => tx.claims.add([claim('bkg_2', 'res_bob', 100, 200)]));
        expect(await v(['res_alice', 'res_bob'])).not.toBe(both);
        expect(await v(['res_alice'])).toBe(seen.at(-1));
      });

      test('adding and removing a run-time schedule change moves the version of its resource', async () => {
        const a = await v(['res_alice']);
        await write((tx) => tx.admin.addScheduleChange(timeOff('chg_1', 'res_alice')));
        const b = await v(['res_alice']);
        await write((tx) => tx.admin.removeScheduleChange('chg_1'));
        const c = await v(['res_alice']);
        expect(new Set([a, b, c]).size).toBe(3);
      });

      test('a rolled-back write leaves the version as it was; no resources read as 0', async () => {
        await write((tx) => tx.claims.add([claim('bkg_1', 'res_alice', 100, 200)]));
        const before = await v(['res_alice']);
        await expect(
          write(async (tx) => {
            await tx.claims.add([claim('bkg_2', 'res_alice', 300, 400)]);
            throw new Error('changed my mind');
          }),
        ).rejects.toThrow('changed my mind');
        expect(await v(['res_alice'])).toBe(before);
        expect(await v([])).toBe(0);
      });
    });

    describe('bookings are stored whole and found by id, by hold, by recency and by expiry', () => {
      test('insert then get returns the same record; an unknown id returns null', async () => {
        const rec = booking('bkg_1', {
          holdId: 'hld_1',
          notes: 'window seat',
          status: 'pending',
          expiresAtMs: NOW + MIN,
        });
        await write((tx) => tx.bookings.insert(rec));
        expect(await read((tx) => tx.bookings.get('bkg_1'))).toEqual(rec);
        expect(await read((tx) => tx.bookings.get('bkg_nope'))).toBeNull();
      });

      test('update replaces the stored record', async () => {
        await write((tx) => tx.bookings.insert(booking('bkg_1', { status: 'pending', expiresAtMs: NOW + MIN })));
        const next = booking('bkg_1', { status: 'confirmed', notes: 'confirmed by staff' });
        next.booking.revision = 'rev_2';
        await write((tx) => tx.bookings.update(next));
        expect(await read((tx) => tx.bookings.get('bkg_1'))).toEqual(next);
      });

      test('byHold finds the booking made from a hold, also after an update; other holds find nothing', async () => {
        await write(async (tx) => {
          await tx.bookings.insert(booking('bkg_1', { holdId: 'hld_1' }));
          await tx.bookings.insert(booking('bkg_2'));
        });
        expect((await read((tx) => tx.bookings.byHold('hld_1')))?.booking.id).toBe('bkg_1');
        await write((tx) => tx.bookings.update(booking('bkg_1', { holdId: 'hld_1', status: 'canceled' })));
        expect((await read((tx) => tx.bookings.byHold('hld_1')))?.booking.status).toBe('canceled');
        expect(await read((tx) => tx.bookings.byHold('hld_2'))).toBeNull();
      });

      test('recent lists the most recently created first, honours the limit and filters by status', async () => {
        await write(async (tx) => {
          await tx.bookings.insert(booking('bkg_1', { createdMs: NOW - 3 * MIN, status: 'confirmed' }));
          await tx.bookings.insert(booking('bkg_2', { createdMs: NOW - 2 * MIN, status: 'canceled' }));
          await tx.bookings.insert(booking('bkg_3', { createdMs: NOW - MIN, status: 'confirmed' }));
        });
        expect((await read((tx) => tx.bookings.recent(10))).map((r) => r.booking.id)).toEqual([
          'bkg_3',
          'bkg_2',
          'bkg_1',
        ]);
        expect((await read((tx) => tx.bookings.recent(2))).map((r) => r.booking.id)).toEqual(['bkg_3', 'bkg_2']);
        expect((await read((tx) => tx.bookings.recent(10, 'confirmed'))).map((r) => r.booking.id)).toEqual([
          'bkg_3',
          'bkg_1',
        ]);
      });

      test('updating an older booking does not move it ahead in recent', async () => {
        await write(async (tx) => {
          await tx.bookings.insert(booking('bkg_1', { createdMs: NOW - 2 * MIN }));
          await tx.bookings.insert(booking('bkg_2', { createdMs: NOW - MIN }));
        });
        await write((tx) => tx.bookings.update(booking('bkg_1', { createdMs: NOW - 2 * MIN, status: 'completed' })));
        expect((await read((tx) => tx.bookings.recent(10))).map((r) => r.booking.id)).toEqual(['bkg_2', 'bkg_1']);
        expect((await read((tx) => tx.bookings.recent(10, 'completed'))).map((r) => r.booking.id)).toEqual(['bkg_1']);
      });

      test('expiredPending lists pending and requires_action bookings whose expiry passed, up to the limit', async () => {
        await write(async (tx) => {
          await tx.bookings.insert(booking('bkg_pending_past', { status: 'pending', expiresAtMs: NOW - MIN }));
          await tx.bookings.insert(booking('bkg_action_now', { status: 'requires_action', expiresAtMs: NOW }));
          await tx.bookings.insert(booking('bkg_pending_future', { status: 'pending', expiresAtMs: NOW + 1 }));
          await tx.bookings.insert(booking('bkg_pending_no_expiry', { status: 'pending' }));
          await tx.bookings.insert(booking('bkg_confirmed_past', { status: 'confirmed', expiresAtMs: NOW - MIN }));
          await tx.bookings.insert(booking('bkg_canceled_past', { status: 'canceled', expiresAtMs: NOW - MIN }));
        });
        expect(sorted(await read((tx) => tx.bookings.expiredPending(NOW, 10)))).toEqual([
          'bkg_action_now',
          'bkg_pending_past',
        ]);
        expect(await read((tx) => tx.bookings.expiredPending(NOW, 1))).toHaveLength(1);
      });

      test('a pending booking updated to confirmed is no longer expired-pending', async () => {
        await write((tx) => tx.bookings.insert(booking('bkg_1', { status: 'pending', expiresAtMs: NOW - MIN })));
        await write((tx) => tx.bookings.update(booking('bkg_1', { status: 'confirmed' })));
        expect(await read((tx) => tx.bookings.expiredPending(NOW, 10))).toEqual([]);
      });
    });

    describe('holds are stored whole; countActive counts one principal and buyer on one service', () => {
      test('insert then get returns the same record; update replaces it; an unknown id returns null', async () => {
        const rec = hold('hld_1', { buyerKey: 'ada@example.com' });
        await write((tx) => tx.holds.insert(rec));
        expect(await read((tx) => tx.holds.get('hld_1'))).toEqual(rec);
        const converted: HoldRecord = {
          hold: { ...rec.hold, status: 'converted' },
          priv: { ...rec.priv, booking_id: 'bkg_1' },
        };
        await write((tx) => tx.holds.update(converted));
        expect(await read((tx) => tx.holds.get('hld_1'))).toEqual(converted);
        expect(await read((tx) => tx.holds.get('hld_nope'))).toBeNull();
      });

      test('countActive honours principal, buyer, service, status and expiry', async () => {
        await write(async (tx) => {
          await tx.holds.insert(hold('hld_1', { principal: 'P', buyerKey: 'x' }));
          await tx.holds.insert(hold('hld_2', { principal: 'P', buyerKey: 'x' }));
          await tx.holds.insert(hold('hld_other_buyer', { principal: 'P', buyerKey: 'y' }));
          await tx.holds.insert(hold('hld_no_buyer', { principal: 'P' }));
          await tx.holds.insert(hold('hld_other_principal', { principal: 'Q', buyerKey: 'x' }));
          await tx.holds.insert(hold('hld_anonymous', { principal: null }));
          await tx.holds.insert(hold('hld_other_service', { principal: 'P', buyerKey: 'x', serviceId: 'svc_color' }));
          await tx.holds.insert(hold('hld_released', { principal: 'P', buyerKey: 'x', status: 'released' }));
          await tx.holds.insert(hold('hld_expired', { principal: 'P', buyerKey: 'x', expiresAtMs: NOW }));
        });
        const count = (p: string | null, b: string | null, s = 'svc_cut') =>
          read((tx) => tx.holds.countActive(p, b, s, NOW));
        expect(await count('P', 'x')).toBe(2);
        expect(await count('P', 'y')).toBe(1);
        expect(await count('P', null)).toBe(1);
        expect(await count('Q', 'x')).toBe(1);
        expect(await count('Q', null)).toBe(0);
        expect(await count(null, null)).toBe(1);
        expect(await count('P', 'x', 'svc_color')).toBe(1);
        expect(await count('P', 'x', 'svc_none')).toBe(0);
      });

      test('a hold updated to released or converted stops counting', async () => {
        await write(async (tx) => {
          await tx.holds.insert(hold('hld_1', { principal: 'P' }));
          await tx.holds.insert(hold('hld_2', { principal: 'P' }));
        });
        await write((tx) => tx.holds.update(hold('hld_1', { principal: 'P', status: 'released' })));
        expect(await read((tx) => tx.holds.countActive('P', null, 'svc_cut', NOW))).toBe(1);
        await write((tx) => tx.holds.update(hold('hld_2', { principal: 'P', status: 'converted' })));
        expect(await read((tx) => tx.holds.countActive('P', null, 'svc_cut', NOW))).toBe(0);
      });
    });

    describe('waitlist entries are listed per caller oldest first, keyset-paginated, and found per service and by offer expiry', () => {
      const seed = () =>
        write(async (tx) => {
          // (created_ms, id) order for P: wl_a, wl_b (tie on created_ms), wl_c, wl_d, wl_e (tie).
          await tx.waitlist.insert(entry('wl_e', { principal: 'P', createdMs: 300 }));
          await tx.waitlist.insert(entry('wl_b', { principal: 'P', createdMs: 100, serviceId: 'svc_other' }));
          await tx.waitlist.insert(entry('wl_q1', { principal: 'Q', createdMs: 50 }));
          await tx.waitlist.insert(entry('wl_a', { principal: 'P', createdMs: 100 }));
          await tx.waitlist.insert(entry('wl_anon', { principal: null, createdMs: 150 }));
          await tx.waitlist.insert(
            entry('wl_d', { principal: 'P', createdMs: 300, status: 'offered', offerExpiresMs: NOW + MIN }),
          );
          await tx.waitlist.insert(entry('wl_c', { principal: 'P', createdMs: 200 }));
          await tx.waitlist.insert(entry('wl_q2', { principal: 'Q', createdMs: 250 }));
        });

      test('insert then get returns the same record; update replaces it; an unknown id returns null', async () => {
        const rec = entry('wl_1', { principal: 'P' });
        await write((tx) => tx.waitlist.insert(rec));
        expect(await read((tx) => tx.waitlist.get('wl_1'))).toEqual(rec);
        const offered = entry('wl_1', { principal: 'P', status: 'offered', offerExpiresMs: NOW + MIN });
        offered.priv.offer_hold_id = 'hld_1';
        await write((tx) => tx.waitlist.update(offered));
        expect(await read((tx) => tx.waitlist.get('wl_1'))).toEqual(offered);
        expect(await read((tx) => tx.waitlist.get('wl_nope'))).toBeNull();
      });

      test('list returns only the caller’s entries, ordered by creation then id', async () => {
        await seed();
        expect(ids((await read((tx) => tx.waitlist.list({ principal: 'P', limit: 50 }))).map((r) => r.entry))).toEqual([
          'wl_a',
          'wl_b',
          'wl_c',
          'wl_d',
          'wl_e',
        ]);
        expect(ids((await read((tx) => tx.waitlist.list({ principal: 'Q', limit: 50 }))).map((r) => r.entry))).toEqual([
          'wl_q1',
          'wl_q2',
        ]);
      });

      test('an anonymous caller (null principal) sees only entries made without a principal', async () => {
        await seed();
        expect(ids((await read((tx) => tx.waitlist.list({ principal: null, limit: 50 }))).map((r) => r.entry))).toEqual(
          ['wl_anon'],
        );
      });

      test('walking pages after the last (created_ms, id) returns every entry exactly once, ties included', async () => {
        await seed();
        const seen: string[] = [];
        let after: { afterCreatedMs?: number; afterId?: string } = {};
        for (let page = 0; page < 10; page++) {
          const rows = await read((tx) => tx.waitlist.list({ principal: 'P', limit: 2, ...after }));
          seen.push(...rows.map((r) => r.entry.id));
          if (rows.length < 2) break;
          const last = rows[rows.length - 1];
          after = { afterCreatedMs: last.priv.created_ms, afterId: last.entry.id };
        }
        expect(seen).toEqual(['wl_a', 'wl_b', 'wl_c', 'wl_d', 'wl_e']);
        expect(
          ids(
            (
              await read((tx) => tx.waitlist.list({ principal: 'P', limit: 2, afterCreatedMs: 100, afterId: 'wl_a' }))
            ).map((r) => r.entry),
          ),
        ).toEqual(['wl_b', 'wl_c']);
      });

      test('list filters by service and by status', async () => {
        await seed();
        const bySvc = await read((tx) => tx.waitlist.list({ principal: 'P', serviceId: 'svc_other', limit: 50 }));
        expect(bySvc.map((r) => r.entry.id)).toEqual(['wl_b']);
        const byStatus = await read((tx) => tx.waitlist.list({ principal: 'P', status: 'offered', limit: 50 }));
        expect(byStatus.map((r) => r.entry.id)).toEqual(['wl_d']);
      });

      test('byService returns the service’s entries in the given statuses, oldest first', async () => {
        await seed();
        const waiting = await read((tx) => tx.waitlist.byService('svc_class', ['waiting']));
        expect(waiting.map((r) => r.entry.id)).toEqual(['wl_q1', 'wl_a', 'wl_anon', 'wl_c', 'wl_q2', 'wl_e']);
        const line = await read((tx) => tx.waitlist.byService('svc_class', ['waiting', 'offered']));
        expect(line.map((r) => r.entry.id)).toEqual(['wl_q1', 'wl_a', 'wl_anon', 'wl_c', 'wl_q2', 'wl_d', 'wl_e']);
        expect(await read((tx) => tx.waitlist.byService('svc_class', []))).toEqual([]);
        expect(await read((tx) => tx.waitlist.byService('svc_none', ['waiting']))).toEqual([]);
      });

      test('an update to the status moves the entry between byService status sets', async () => {
        await write((tx) => tx.waitlist.insert(entry('wl_1')));
        await write((tx) => tx.waitlist.update(entry('wl_1', { status: 'removed' })));
        expect(await read((tx) => tx.waitlist.byService('svc_class', ['waiting']))).toEqual([]);
        expect((await read((tx) => tx.waitlist.byService('svc_class', ['removed']))).map((r) => r.entry.id)).toEqual([
          'wl_1',
        ]);
      });

      test('expiredOffers lists offered entries whose offer window passed, up to the limit', async () => {
        await write(async (tx) => {
          await tx.waitlist.insert(entry('wl_past', { status: 'offered', offerExpiresMs: NOW - MIN }));
          await tx.waitlist.insert(entry('wl_now', { status: 'offered', offerExpiresMs: NOW }));
          await tx.waitlist.insert(entry('wl_future', { status: 'offered', offerExpiresMs: NOW + 1 }));
          await tx.waitlist.insert(entry('wl_accepted', { status: 'accepted', offerExpiresMs: NOW - MIN }));
          await tx.waitlist.insert(entry('wl_waiting', { status: 'waiting' }));
        });
        expect(sorted(await read((tx) => tx.waitlist.expiredOffers(NOW, 10)))).toEqual(['wl_now', 'wl_past']);
        expect(await read((tx) => tx.waitlist.expiredOffers(NOW, 1))).toHaveLength(1);
      });
    });

    describe('idempotency records replay until they expire', () => {
      test('put then get returns the record with its body; an unknown scope returns null', async () => {
        const rec = idem('P|create_booking|key-1', NOW + MIN, { booking: { id: 'bkg_1' }, messages: [] });
        await write((tx) => tx.idempotency.put(rec));
        expect(await read((tx) => tx.idempotency.get(rec.scope, NOW))).toEqual(rec);
        expect(await read((tx) => tx.idempotency.get('P|create_booking|key-2', NOW))).toBeNull();
      });

      test('claim, in a write transaction, answers what get answers: the live record, or null', async () => {
        const rec = idem('P|hold_slot|key-c', NOW + MIN, { hold: { id: 'hld_1' }, messages: [] });
        await write((tx) => tx.idempotency.put(rec));
        expect(await write((tx) => tx.idempotency.claim(rec.scope, NOW))).toEqual(rec);
        expect(await write((tx) => tx.idempotency.claim(rec.scope, NOW + MIN))).toBeNull();
        expect(await write((tx) => tx.idempotency.claim('P|hold_slot|key-d', NOW))).toBeNull();
      });

      test('get ignores a record whose expiry has passed', async () => {
        await write((tx) => tx.idempotency.put(idem('s1', NOW)));
        expect(await read((tx) => tx.idempotency.get('s1', NOW - 1))).not.toBeNull();
        expect(await read((tx) => tx.idempotency.get('s1', NOW))).toBeNull();
      });

      test('put on an existing scope replaces the record', async () => {
        await write((tx) => tx.idempotency.put(idem('s1', NOW - MIN, { first: true })));
        const second: IdempotencyRecord = {
          ...idem('s1', NOW + MIN, { second: true }),
          request_hash: 'other',
          status: 200,
        };
        await write((tx) => tx.idempotency.put(second));
        expect(await read((tx) => tx.idempotency.get('s1', NOW))).toEqual(second);
      });

      test('purge deletes the expired records, counts them and keeps the live ones', async () => {
        await write(async (tx) => {
          await tx.idempotency.put(idem('old', NOW - MIN));
          await tx.idempotency.put(idem('edge', NOW));
          await tx.idempotency.put(idem('live', NOW + MIN));
        });
        expect(await write((tx) => tx.idempotency.purge(NOW))).toBe(2);
        // Looked up from before their expiry, purged records are gone for good.
        expect(await read((tx) => tx.idempotency.get('old', NOW - 2 * MIN))).toBeNull();
        expect(await read((tx) => tx.idempotency.get('edge', NOW - 2 * MIN))).toBeNull();
        expect(await read((tx) => tx.idempotency.get('live', NOW))).not.toBeNull();
        expect(await write((tx) => tx.idempotency.purge(NOW))).toBe(0);
      });
    });

    describe('the catalog keeps the last published services; the feed walks them by (modified_ms, id)', () => {
      test('upsert inserts a service and replaces it on the same id; all returns each service once', async () => {
        await write(async (tx) => {
          await tx.catalog.upsert(service('svc_a', 100));
          await tx.catalog.upsert(service('svc_b', 100));
        });
        const replaced = service('svc_a', 200, { name: 'Renamed', deleted: true });
        await write((tx) => tx.catalog.upsert(replaced));
        const all = (await read((tx) => tx.catalog.all())).sort((x, y) => x.id.localeCompare(y.id));
        expect(all).toEqual([replaced, service('svc_b', 100)]);
      });

      test('an empty catalog has no services and an empty feed', async () => {
        expect(await read((tx) => tx.catalog.all())).toEqual([]);
        expect(await read((tx) => tx.catalog.feed(-1, '', 10))).toEqual([]);
      });

      test('feed returns services in ascending (modified_ms, id) strictly after the position, deletions included', async () => {
        await write(async (tx) => {
          await tx.catalog.upsert(service('svc_e', 300));
          await tx.catalog.upsert(service('svc_b', 100));
          await tx.catalog.upsert(service('svc_c', 50, { deleted: true }));
          await tx.catalog.upsert(service('svc_a', 100));
          await tx.catalog.upsert(service('svc_d', 200));
        });
        const feed = (afterMs: number, afterId: string, limit: number) =>
          read((tx) => tx.catalog.feed(afterMs, afterId, limit));
        expect(ids(await feed(-1, '', 10))).toEqual(['svc_c', 'svc_a', 'svc_b', 'svc_d', 'svc_e']);
        expect((await feed(-1, '', 10))[0]).toEqual(service('svc_c', 50, { deleted: true }));
        expect(ids(await feed(-1, '', 2))).toEqual(['svc_c', 'svc_a']);
        expect(ids(await feed(100, 'svc_a', 10))).toEqual(['svc_b', 'svc_d', 'svc_e']);
        expect(ids(await feed(100, 'svc_b', 2))).toEqual(['svc_d', 'svc_e']);
        expect(ids(await feed(300, 'svc_e', 10))).toEqual([]);
      });

      test('a service modified again moves to its new place in the feed', async () => {
        await write(async (tx) => {
          await tx.catalog.upsert(service('svc_a', 100));
          await tx.catalog.upsert(service('svc_b', 200));
        });
        await write((tx) => tx.catalog.upsert(service('svc_a', 300)));
        expect(ids(await read((tx) => tx.catalog.feed(-1, '', 10)))).toEqual(['svc_b', 'svc_a']);
        expect(ids(await read((tx) => tx.catalog.feed(200, 'svc_b', 10)))).toEqual(['svc_a']);
      });

      test('a location filter keeps scanning past filtered-out services until the page is full', async () => {
        await write(async (tx) => {
          // More non-matching services than the page size come first.
          for (let i = 1; i <= 6; i++) await tx.catalog.upsert(service(`svc_b${i}`, i, { locations: ['loc_b'] }));
          await tx.catalog.upsert(service('svc_a7', 7, { locations: ['loc_a'] }));
          await tx.catalog.upsert(service('svc_b8', 8, { locations: ['loc_b'] }));
          await tx.catalog.upsert(service('svc_ab9', 9, { locations: ['loc_b', 'loc_a'] }));
          await tx.catalog.upsert(service('svc_a10', 10, { locations: ['loc_a'] }));
        });
        const feed = (afterMs: number, afterId: string) => read((tx) => tx.catalog.feed(afterMs, afterId, 2, 'loc_a'));
        expect(ids(await feed(-1, ''))).toEqual(['svc_a7', 'svc_ab9']);
        expect(ids(await feed(9, 'svc_ab9'))).toEqual(['svc_a10']);
        expect(ids(await feed(10, 'svc_a10'))).toEqual([]);
        expect(ids(await read((tx) => tx.catalog.feed(-1, '', 3, 'loc_none')))).toEqual([]);
      });

      test('a service that names no locations appears under every location filter', async () => {
        await write(async (tx) => {
          await tx.catalog.upsert(service('svc_b', 1, { locations: ['loc_b'] }));
          await tx.catalog.upsert(service('svc_anywhere', 2));
        });
        expect(ids(await read((tx) => tx.catalog.feed(-1, '', 10, 'loc_a')))).toEqual(['svc_anywhere']);
      });
    });

    describe('feed subscriptions are stored whole; active() lists the active ones', () => {
      test('insert then get returns the same record; update replaces it; an unknown id returns null', async () => {
        await write((tx) => tx.subscriptions.insert(subscription('sub_1')));
        expect(await read((tx) => tx.subscriptions.get('sub_1'))).toEqual(subscription('sub_1'));
        await write((tx) => tx.subscriptions.update(subscription('sub_1', 'paused')));
        expect(await read((tx) => tx.subscriptions.get('sub_1'))).toEqual(subscription('sub_1', 'paused'));
        expect(await read((tx) => tx.subscriptions.get('sub_nope'))).toBeNull();
      });

      test('active() lists only active subscriptions and follows status updates', async () => {
        await write(async (tx) => {
          await tx.subscriptions.insert(subscription('sub_1'));
          await tx.subscriptions.insert(subscription('sub_2'));
          await tx.subscriptions.insert(subscription('sub_3', 'paused'));
          await tx.subscriptions.insert(subscription('sub_4', 'canceled'));
        });
        const active = async () =>
          sorted((await read((tx) => tx.subscriptions.active())).map((r) => r.subscription.id));
        expect(await active()).toEqual(['sub_1', 'sub_2']);
        await write(async (tx) => {
          await tx.subscriptions.update(subscription('sub_1', 'canceled'));
          await tx.subscriptions.update(subscription('sub_3', 'active'));
        });
        expect(await active()).toEqual(['sub_2', 'sub_3']);
      });
    });

    describe('the outbox keeps each event once, newest first', () => {
      test('recent returns events exactly as added, newest first, up to the limit', async () => {
        await write(async (tx) => {
          await tx.outbox.add(event('evt_1', NOW - 2 * MIN));
          await tx.outbox.add(event('evt_2', NOW - MIN));
        });
        await write((tx) => tx.outbox.add({ ...event('evt_3', NOW), principal: null, due_ms: NOW + 60 * MIN }));
        expect(await read((tx) => tx.outbox.recent(10))).toEqual([
          { ...event('evt_3', NOW), principal: null, due_ms: NOW + 60 * MIN },
          event('evt_2', NOW - MIN),
          event('evt_1', NOW - 2 * MIN),
        ]);
        expect((await read((tx) => tx.outbox.recent(2))).map((e) => e.event_id)).toEqual(['evt_3', 'evt_2']);
      });

      test("recentBodies answers one principal's dispatched events as delivered bodies, newest first, up to the limit", async () => {
        await write(async (tx) => {
          await tx.outbox.add(event('evt_1', NOW - 3 * MIN));
          await tx.outbox.add({ ...event('evt_2', NOW - 2 * MIN), principal: 'Q' });
          await tx.outbox.add(event('evt_3', NOW - MIN));
          await tx.outbox.add(event('evt_4', NOW));
        });
        // Nothing dispatched yet: nothing is news.
        expect(await read((tx) => tx.outbox.recentBodies('P', 10))).toEqual([]);
        const due = await read((tx) => tx.outbox.due(NOW, 10));
        await write((tx) => tx.outbox.markDispatched(due.filter((e) => e.event_id !== 'evt_4').map((e) => e.seq)));
        const bodies = await read((tx) => tx.outbox.recentBodies('P', 10));
        expect(bodies.map((b) => b.event_id)).toEqual(['evt_3', 'evt_1']);
        expect(bodies[0]).toEqual({
          event: 'booking.confirmed',
          event_id: 'evt_3',
          booking_id: 'bkg_1',
          nested: { n: 1, list: [1, 'two', null] },
          timestamp: new Date(NOW - MIN).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        });
        expect((await read((tx) => tx.outbox.recentBodies('P', 1))).map((b) => b.event_id)).toEqual(['evt_3']);
        expect((await read((tx) => tx.outbox.recentBodies('Q', 10))).map((b) => b.event_id)).toEqual(['evt_2']);
      });

      test('a second event with the same event_id is rejected and the first is kept', async () => {
        await write((tx) => tx.outbox.add(event('evt_1', NOW - MIN)));
        await expect(
          write((tx) => tx.outbox.add({ ...event('evt_1', NOW), event: 'booking.canceled' })),
        ).rejects.toThrow();
        expect(await read((tx) => tx.outbox.recent(10))).toEqual([event('evt_1', NOW - MIN)]);
      });
    });

    describe('retention: dispatched events past their retention and expired credentials are purged, nothing else', () => {
      test('purgeDispatched deletes dispatched and canceled events due before the cutoff, in batches, and keeps pending and newer ones', async () => {
        const DAY = 24 * 60 * MIN;
        await write(async (tx) => {
          await tx.outbox.add(event('evt_old_1', NOW - 9 * DAY));
          await tx.outbox.add(event('evt_old_2', NOW - 8 * DAY));
          await tx.outbox.add({
            ...event('evt_old_reminder', NOW - 9 * DAY),
            order_key: 'bkg_c',
            event: 'booking.reminder',
          });
          await tx.outbox.add(event('evt_old_pending', NOW - 8 * DAY));
          await tx.outbox.add(event('evt_new', NOW - DAY));
        });
        const due = await read((tx) => tx.outbox.due(NOW, 10));
        await write(async (tx) => {
          await tx.outbox.markDispatched(
            due.filter((e) => !['evt_old_pending', 'evt_old_reminder'].includes(e.event_id)).map((e) => e.seq),
          );
          await tx.outbox.cancelScheduled('bkg_c', 'booking.reminder');
        });
        const cutoff = NOW - 7 * DAY;
        expect(await write((tx) => tx.outbox.purgeDispatched(cutoff, 2))).toBe(2);
        expect(await write((tx) => tx.outbox.purgeDispatched(cutoff, 2))).toBe(1);
        expect(await write((tx) => tx.outbox.purgeDispatched(cutoff, 2))).toBe(0);
        expect(sorted((await read((tx) => tx.outbox.recent(10))).map((e) => e.event_id))).toEqual([
          'evt_new',
          'evt_old_pending',
        ]);
      });

      test('purgeCredentials deletes credentials that expired before the cutoff and keeps live ones', async () => {
        const cred = (hash: string, expires: number) => ({
          value_hash: hash,
          resource_kind: 'booking' as const,
          resource_id: `bkg_${hash}`,
          jkt: null,
          principal: 'P',
          expires_ms: expires,
          revoked: false,
        });
        await write(async (tx) => {
          await tx.security.putCredential(cred('h_gone_1', NOW - 2 * MIN));
          await tx.security.putCredential(cred('h_gone_2', NOW - MIN));
          await tx.security.putCredential(cred('h_live', NOW + MIN));
        });
        expect(await write((tx) => tx.security.purgeCredentials(NOW, 1))).toBe(1);
        expect(await write((tx) => tx.security.purgeCredentials(NOW, 100))).toBe(1);
        expect(await read((tx) => tx.security.credential('h_gone_2'))).toBeNull();
        expect(await read((tx) => tx.security.credential('h_live'))).toEqual(cred('h_live', NOW + MIN));
      });
    });

    describe('gauges() counts what an operator watches: bookings per status, live holds, the outbox backlog, pending and leased deliveries', () => {
      const delivery = (eventId: string, seq: number) => ({
        event_id: eventId,
        event: 'booking.confirmed',
        seq,
        order_key: `bkg_${eventId}`,
        target_url: `https://hooks.example/${eventId}`,
        subscription_id: null,
        body: '{}',
        next_attempt_ms: NOW,
        created_ms: NOW,
      });

      test('an empty store counts nothing', async () => {
        expect(await read((tx) => tx.bookings.gauges(NOW))).toEqual({
          bookings_by_status: {},
          active_holds: 0,
          outbox_due: 0,
          deliveries_pending: 0,
          deliveries_leased: 0,
        });
      });

      test('each count follows status and time: expired holds, future events and lapsed leases do not count', async () => {
        await write(async (tx) => {
          await tx.bookings.insert(booking('bkg_1', { status: 'confirmed' }));
          await tx.bookings.insert(booking('bkg_2', { status: 'confirmed' }));
          await tx.bookings.insert(booking('bkg_3', { status: 'pending', expiresAtMs: NOW + MIN }));
          await tx.holds.insert(hold('hld_live', { expiresAtMs: NOW + MIN }));
          await tx.holds.insert(hold('hld_expired', { expiresAtMs: NOW }));
          await tx.holds.insert(hold('hld_released', { status: 'released', expiresAtMs: NOW + MIN }));
          await tx.outbox.add(outboxEvent('evt_due'));
          await tx.outbox.add(outboxEvent('evt_later', { due_ms: NOW + MIN }));
          await tx.webhooks.add(delivery('a', 1));
          await tx.webhooks.add(delivery('b', 2));
          await tx.webhooks.add(delivery('c', 3));
        });
        const leased = await write((tx) => tx.webhooks.claimDue(NOW, 2, NOW + MIN, []));
        expect(leased).toHaveLength(2);
        expect(await read((tx) => tx.bookings.gauges(NOW))).toEqual({
          bookings_by_status: { confirmed: 2, pending: 1 },
          active_holds: 1,
          outbox_due: 1,
          deliveries_pending: 3,
          deliveries_leased: 2,
        });
        // A minute later the hold has expired, the scheduled event is due and the leases have lapsed.
        expect(await read((tx) => tx.bookings.gauges(NOW + MIN))).toMatchObject({
          active_holds: 0,
          outbox_due: 2,
          deliveries_leased: 0,
        });
      });

      test('releaseLeases frees the leases it names, so another worker can claim those deliveries at once', async () => {
        await write(async (tx) => {
          await tx.webhooks.add(delivery('a', 1));
          await tx.webhooks.add(delivery('b', 2));
        });
        const leased = await write((tx) => tx.webhooks.claimDue(NOW, 2, NOW + MIN, []));
        expect(await write((tx) => tx.webhooks.claimDue(NOW, 2, NOW + MIN, []))).toEqual([]);
        await write((tx) => tx.webhooks.releaseLeases([leased[0].id]));
        expect((await read((tx) => tx.bookings.gauges(NOW))).deliveries_leased).toBe(1);
        expect((await write((tx) => tx.webhooks.claimDue(NOW, 2, NOW + MIN, []))).map((d) => d.id)).toEqual([
          leased[0].id,
        ]);
      });
    });

    describe('kv stores strings by key', () => {
      test('an unknown key reads null; set stores a value and a second set replaces it', async () => {
        expect(await read((tx) => tx.kv.get('k'))).toBeNull();
        await write((tx) => tx.kv.set('k', 'one'));
        expect(await read((tx) => tx.kv.get('k'))).toBe('one');
        await write((tx) => tx.kv.set('k', 'two'));
        expect(await read((tx) => tx.kv.get('k'))).toBe('two');
        expect(await read((tx) => tx.kv.get('other'))).toBeNull();
      });
    });

    describe('definition keeps the business definition as rows by kind and position, with a version bumped by each change', () => {
      test('an empty store has version 0 and no rows; put, clear and bump are seen after commit, in kind then position order', async () => {
        expect(await store.definitionVersion()).toBe(0);
        expect(await read((tx) => tx.definition.entries())).toEqual([]);
        await write(async (tx) => {
          await tx.definition.put({ kind: 'service', id: 'b', position: 1, data: { id: 'b', name: 'Second' } });
          await tx.definition.put({ kind: 'service', id: 'a', position: 0, data: { id: 'a', name: 'First' } });
          await tx.definition.put({
            kind: 'resource',
            id: 'r',
            position: 0,
            data: { id: 'r', schedule: { monday: [{ opens: '09:00', closes: '17:00' }] } },
          });
          await tx.definition.put({ kind: 'location', id: 'l', position: 0, data: { id: 'l' } });
          await tx.definition.put({ kind: 'business', id: 'business', position: 0, data: { business: { id: 'x' } } });
          expect(await tx.definition.bump()).toBe(1);
        });
        expect(await store.definitionVersion()).toBe(1);
        const rows = await read((tx) => tx.definition.entries());
        expect(rows.map((e) => `${e.kind}:${e.id}`)).toEqual([
          'business:business',
          'location:l',
          'resource:r',
          'service:a',
          'service:b',
        ]);
        expect(rows[2].data).toEqual({ id: 'r', schedule: { monday: [{ opens: '09:00', closes: '17:00' }] } });
        await write(async (tx) => {
          await tx.definition.put({ kind: 'service', id: 'a', position: 2, data: { id: 'a', name: 'Renamed' } });
          expect(await tx.definition.bump()).toBe(2);
        });
        const after = await read((tx) => tx.definition.entries());
        expect(after.filter((e) => e.kind === 'service').map((e) => [e.id, e.data.name])).toEqual([
          ['b', 'Second'],
          ['a', 'Renamed'],
        ]);
        expect(await read((tx) => tx.definition.version())).toBe(2);
        await write(async (tx) => tx.definition.clear());
        expect(await read((tx) => tx.definition.entries())).toEqual([]);
      });

      test('a transaction that throws leaves rows and version as they were', async () => {
        await write(async (tx) => {
          await tx.definition.put({ kind: 'location', id: 'l', position: 0, data: { id: 'l' } });
          await tx.definition.bump();
        });
        await expect(
          write(async (tx) => {
            await tx.definition.put({ kind: 'location', id: 'm', position: 1, data: { id: 'm' } });
            await tx.definition.bump();
            throw new Error('boom');
          }),
        ).rejects.toThrow('boom');
        expect(await store.definitionVersion()).toBe(1);
        expect((await read((tx) => tx.definition.entries())).map((e) => e.id)).toEqual(['l']);
      });
    });

    describe('oauth keeps the authorization server records by model and id, shared by every process', () => {
      const rec = (id: string, over: Partial<Parameters<Tx['oauth']['upsert']>[0]> = {}) => ({
        model: 'AuthorizationCode',
        id,
        payload: { grantId: 'grt_1', nested: { scope: 'usp:booking' } },
        grantId: 'grt_1',
        uid: null,
        userCode: null,
        accountId: 'acc_1',
        expiresMs: NOW + MIN,
        ...over,
      });
      test('a stored record reads back by id and by uid until its expiry instant, then reads null', async () => {
        await write((tx) => tx.oauth.upsert(rec('c1', { uid: 'u1' })));
        expect(await read((tx) => tx.oauth.find('AuthorizationCode', 'c1', NOW))).toEqual({
          ...rec('c1', { uid: 'u1' }),
          consumedMs: null,
        });
        expect((await read((tx) => tx.oauth.findByUid('AuthorizationCode', 'u1', NOW)))?.id).toBe('c1');
        expect(await read((tx) => tx.oauth.find('AccessToken', 'c1', NOW))).toBeNull();
        expect(await read((tx) => tx.oauth.find('AuthorizationCode', 'c1', NOW + MIN))).toBeNull();
      });
      test('consume succeeds once: a second redemption of the same code is seen as a replay, and the mark survives a replace', async () => {
        await write((tx) => tx.oauth.upsert(rec('c1')));
        expect(await write((tx) => tx.oauth.consume('AuthorizationCode', 'c1', NOW))).toBe(true);
        expect(await write((tx) => tx.oauth.consume('AuthorizationCode', 'c1', NOW + 1))).toBe(false);
        await write((tx) => tx.oauth.upsert(rec('c1')));
        expect((await read((tx) => tx.oauth.find('AuthorizationCode', 'c1', NOW)))?.consumedMs).toBe(NOW);
      });
      test('revoking a grant removes every record of it and the grant itself, and nothing of another grant', async () => {
        await write(async (tx) => {
          await tx.oauth.upsert(rec('c1'));
          await tx.oauth.upsert(rec('t1', { model: 'AccessToken' }));
          await tx.oauth.upsert(rec('grt_1', { model: 'Grant', grantId: null }));
          await tx.oauth.upsert(rec('t2', { model: 'AccessToken', grantId: 'grt_2' }));
        });
        expect(await write((tx) => tx.oauth.revokeByGrantId('grt_1'))).toBe(3);
        expect(await read((tx) => tx.oauth.find('AccessToken', 't1', NOW))).toBeNull();
        expect(await read((tx) => tx.oauth.find('Grant', 'grt_1', NOW))).toBeNull();
        expect((await read((tx) => tx.oauth.find('AccessToken', 't2', NOW)))?.id).toBe('t2');
      });
      test('byAccount lists one model of one account, newest first; purge drops only expired records', async () => {
        await write(async (tx) => {
          await tx.oauth.upsert(rec('g1', { model: 'Grant' }));
          await tx.oauth.upsert(rec('g2', { model: 'Grant', expiresMs: null }));
          await tx.oauth.upsert(rec('g3', { model: 'Grant', accountId: 'acc_2' }));
          await tx.oauth.upsert(rec('old', { model: 'Grant', expiresMs: NOW - 1 }));
        });
        expect(ids(await read((tx) => tx.oauth.byAccount('Grant', 'acc_1', NOW)))).toEqual(['g2', 'g1']);
        expect(await write((tx) => tx.oauth.purge(NOW))).toBe(1);
        await write((tx) => tx.oauth.destroy('Grant', 'g2'));
        expect(ids(await read((tx) => tx.oauth.byAccount('Grant', 'acc_1', NOW)))).toEqual(['g1']);
      });
    });

    describe('accounts keeps buyer accounts (one per email) and the bookings made for them', () => {
      const account = (id: string, email: string) => ({
        id,
        email,
        password_hash: 'scrypt$x',
        name: 'Ada',
        phone: null,
        created_ms: NOW,
      });
      test('a second account with the same email is refused and the first is kept', async () => {
        expect(await write((tx) => tx.accounts.create(account('acc_1', 'ada@example.com')))).toBe(true);
        expect(await write((tx) => tx.accounts.create(account('acc_2', 'ada@example.com')))).toBe(false);
        expect(await read((tx) => tx.accounts.byEmail('ada@example.com'))).toEqual(account('acc_1', 'ada@example.com'));
        expect(await read((tx) => tx.accounts.byId('acc_2'))).toBeNull();
      });
      test("a new password hash replaces the account's and nothing else; an unknown account is not created", async () => {
        await write((tx) => tx.accounts.create(account('acc_pw', 'pw@example.com')));
        expect(await write((tx) => tx.accounts.setPassword('acc_pw', 'scrypt$new'))).toBe(true);
        expect(await read((tx) => tx.accounts.byId('acc_pw'))).toEqual({
          ...account('acc_pw', 'pw@example.com'),
          password_hash: 'scrypt$new',
        });
        expect(await write((tx) => tx.accounts.setPassword('acc_nobody', 'scrypt$new'))).toBe(false);
        expect(await read((tx) => tx.accounts.byId('acc_nobody'))).toBeNull();
      });
      test('linked bookings list newest first, page on with a cursor, and link idempotently', async () => {
        await write(async (tx) => {
          await tx.accounts.linkBooking('acc_1', 'bkg_a', NOW);
          await tx.accounts.linkBooking('acc_1', 'bkg_b', NOW + 1);
          await tx.accounts.linkBooking('acc_1', 'bkg_c', NOW + 2);
          await tx.accounts.linkBooking('acc_1', 'bkg_c', NOW + 2);
          await tx.accounts.linkBooking('acc_2', 'bkg_z', NOW + 3);
        });
        const page1 = await read((tx) => tx.accounts.bookings('acc_1', 2));
        expect(page1.map((b) => b.bookingId)).toEqual(['bkg_c', 'bkg_b']);
        const page2 = await read((tx) =>
          tx.accounts.bookings('acc_1', 2, { createdMs: page1[1].createdMs, bookingId: page1[1].bookingId }),
        );
        expect(page2.map((b) => b.bookingId)).toEqual(['bkg_a']);
        expect(await read((tx) => tx.accounts.owns('acc_1', 'bkg_a'))).toBe(true);
        expect(await read((tx) => tx.accounts.owns('acc_1', 'bkg_z'))).toBe(false);
      });
    });

    mailContract(write, read);

    describe('a write transaction checks the definition version it runs on; independent reads run together', () => {
      definitionCheckContract(() => store);
    });

    describe('payments keeps provider jobs (leased, each once), applied provider events and provider ids', () => {
      const job = (id: string, bookingId = 'bkg_1') => ({
        id,
        kind: 'checkout' as const,
        booking_id: bookingId,
        payload: { amount: 5000, nested: { a: [1] } },
        created_ms: NOW,
      });

      test('a job enqueued twice is one job; a leased job is not claimed again until its lease lapses', async () => {
        await write(async (tx) => {
          await tx.payments.enqueue(job('checkout:act_1'));
          await tx.payments.enqueue({ ...job('checkout:act_1'), payload: { other: true } });
        });
        const first = await write((tx) => tx.payments.claimDue(NOW, 10, NOW + MIN));
        expect(first.map((j) => [j.id, j.status, j.attempts, j.payload])).toEqual([
          ['checkout:act_1', 'pending', 0, { amount: 5000, nested: { a: [1] } }],
        ]);
        expect(await write((tx) => tx.payments.claimDue(NOW + 1000, 10, NOW + 2 * MIN))).toEqual([]);
        expect(ids(await write((tx) => tx.payments.claimDue(NOW + MIN, 10, NOW + 3 * MIN)))).toEqual([
          'checkout:act_1',
        ]);
      });

      test('finish() records the outcome: a done job is never due again, a retried one is due at its next attempt', async () => {
        await write(async (tx) => {
          await tx.payments.enqueue(job('a'));
          await tx.payments.enqueue(job('b', 'bkg_2'));
        });
        await write(async (tx) => {
          await tx.payments.claimDue(NOW, 10, NOW + MIN);
          await tx.payments.finish('a', {
            status: 'done',
            attempts: 1,
            next_attempt_ms: NOW,
            last_error: null,
            result: { session: 'cs_1' },
          });
          await tx.payments.finish('b', {
            status: 'pending',
            attempts: 1,
            next_attempt_ms: NOW + 5000,
            last_error: 'HTTP 500',
            result: null,
          });
        });
        expect(await write((tx) => tx.payments.claimDue(NOW + 4999, 10, NOW + MIN))).toEqual([]);
        expect(ids(await write((tx) => tx.payments.claimDue(NOW + 5000, 10, NOW + MIN)))).toEqual(['b']);
        const a = await read((tx) => tx.payments.get('a'));
        expect([a?.status, a?.attempts, a?.result]).toEqual(['done', 1, { session: 'cs_1' }]);
        expect(ids(await read((tx) => tx.payments.forBooking('bkg_2')))).toEqual(['b']);
        expect(await read((tx) => tx.payments.get('nope'))).toBeNull();
      });

      test('recordEvent() is true once per provider event id; linkRef() keeps the first booking for a provider id', async () => {
        expect(await write((tx) => tx.payments.recordEvent('stripe', 'evt_1', NOW))).toBe(true);
        expect(await write((tx) => tx.payments.recordEvent('stripe', 'evt_1', NOW + 1))).toBe(false);
        expect(await write((tx) => tx.payments.recordEvent('other', 'evt_1', NOW))).toBe(true);
        await write(async (tx) => {
          await tx.payments.linkRef('stripe', 'pi_1', 'bkg_1');
          await tx.payments.linkRef('stripe', 'pi_1', 'bkg_2');
        });
        expect(await read((tx) => tx.payments.bookingByRef('stripe', 'pi_1'))).toBe('bkg_1');
        expect(await read((tx) => tx.payments.bookingByRef('stripe', 'pi_2'))).toBeNull();
      });

      test('an event recorded in a transaction that rolls back is not recorded', async () => {
        await expect(
          write(async (tx) => {
            await tx.payments.recordEvent('stripe', 'evt_rb', NOW);
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        expect(await write((tx) => tx.payments.recordEvent('stripe', 'evt_rb', NOW))).toBe(true);
      });
    });

    describe('a transaction commits when its function resolves and rolls back when it throws', () => {
      test('a transaction resolves with its function’s value and its writes are visible afterwards', async () => {
        const out = await write(async (tx) => {
          await tx.kv.set('k', 'v');
          await tx.bookings.insert(booking('bkg_1'));
          return 'done';
        });
        expect(out).toBe('done');
        expect(await read((tx) => tx.kv.get('k'))).toBe('v');
        expect(await write((tx) => tx.bookings.get('bkg_1'))).toEqual(booking('bkg_1'));
      });

      test('a transaction reads its own earlier writes', async () => {
        const seen = await write(async (tx) => {
          await tx.kv.set('k', 'v');
          await tx.holds.insert(hold('hld_1'));
          return { kv: await tx.kv.get('k'), holds: await tx.holds.countActive('P', null, 'svc_cut', NOW) };
        });
        expect(seen).toEqual({ kv: 'v', holds: 1 });
      });

      test('a throw rolls back every write of the transaction, inserts and updates alike, and rejects with the thrown error', async () => {
        await write(async (tx) => {
          await tx.kv.set('k', 'before');
          await tx.bookings.insert(booking('bkg_old', { status: 'pending', expiresAtMs: NOW + MIN }));
          await tx.claims.add([claim('bkg_old', 'res_alice', 100, 200)]);
        });
        const boom = new Error('boom');
        await expect(
          write(async (tx) => {
            await tx.kv.set('k', 'after');
            await tx.kv.set('k2', 'new');
            await tx.bookings.update(booking('bkg_old', { status: 'canceled' }));
            await tx.bookings.insert(booking('bkg_new', { holdId: 'hld_1' }));
            await tx.claims.removeOwner('bkg_old');
            await tx.claims.add([claim('bkg_new', 'res_bob', 100, 200)]);
            await tx.holds.insert(hold('hld_1'));
            await tx.waitlist.insert(entry('wl_1'));
            await tx.idempotency.put(idem('s1', NOW + MIN));
            await tx.catalog.upsert(service('svc_a', 100));
            await tx.subscriptions.insert(subscription('sub_1'));
            await tx.outbox.add(event('evt_1', NOW));
            await tick();
            throw boom;
          }),
        ).rejects.toBe(boom);

        const after = await read(async (tx) => ({
          k: await tx.kv.get('k'),
          k2: await tx.kv.get('k2'),
          old: await tx.bookings.get('bkg_old'),
          neu: await tx.bookings.get('bkg_new'),
          byHold: await tx.bookings.byHold('hld_1'),
          claims: await tx.claims.active(['res_alice', 'res_bob'], 0, 1000, NOW),
          hold: await tx.holds.get('hld_1'),
          entry: await tx.waitlist.get('wl_1'),
          idem: await tx.idempotency.get('s1', NOW),
          catalog: await tx.catalog.all(),
          sub: await tx.subscriptions.get('sub_1'),
          outbox: await tx.outbox.recent(10),
        }));
        expect(after).toEqual({
          k: 'before',
          k2: null,
          old: booking('bkg_old', { status: 'pending', expiresAtMs: NOW + MIN }),
          neu: null,
          byHold: null,
          claims: [claim('bkg_old', 'res_alice', 100, 200)],
          hold: null,
          entry: null,
          idem: null,
          catalog: [],
          sub: null,
          outbox: [],
        });
      });

      test('after a rolled-back transaction the store keeps working', async () => {
        await expect(write(async () => Promise.reject(new Error('first fails')))).rejects.toThrow('first fails');
        await write((tx) => tx.kv.set('k', 'v'));
        expect(await read((tx) => tx.kv.get('k'))).toBe('v');
      });

      test('two concurrent read-then-write transactions on one counter never lose an update', async () => {
        await write((tx) => tx.kv.set('counter', '0'));
        const bump = () =>
          write(async (tx) => {
            const n = Number(await tx.kv.get('counter'));
            await tick();
            await tx.kv.set('counter', String(n + 1));
          });
        await Promise.all([bump(), bump()]);
        expect(await read((tx) => tx.kv.get('counter'))).toBe('2');
      });

      test('many concurrent counter bumps, one of them failing, commit every other bump exactly once', async () => {
        await write((tx) => tx.kv.set('counter', '0'));
        const bump = (fail: boolean) =>
          write(async (tx) => {
            const n = Number(await tx.kv.get('counter'));
            await tick(1);
            await tx.kv.set('counter', String(n + 1));
            if (fail) throw new Error('rolled back');
          });
        const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => bump(i === 4)));
        expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
        expect(await read((tx) => tx.kv.get('counter'))).toBe('9');
      });

      test('read() sees data committed before it and resolves with its function’s value', async () => {
        await write(async (tx) => {
          await tx.kv.set('k', 'committed');
          await tx.outbox.add(event('evt_1', NOW));
        });
        const seen = await read(async (tx) => ({
          k: await tx.kv.get('k'),
          events: (await tx.outbox.recent(5)).length,
        }));
        expect(seen).toEqual({ k: 'committed', events: 1 });
      });
    });

    describe('business users', () => {
      test('hasUsers is false on a new store and true once a user is put', async () => {
        expect(await read((tx) => tx.admin.hasUsers())).toBe(false);
        await write((tx) =>
          tx.admin.putUser({ email: 'owner@example.com', password_hash: 'scrypt$x', created_ms: NOW }),
        );
        expect(await read((tx) => tx.admin.hasUsers())).toBe(true);
        expect((await read((tx) => tx.admin.user('owner@example.com')))?.email).toBe('owner@example.com');
      });
    });

    describe('closing a store', () => {
      test('close() is idempotent and a closed store rejects new transactions', async () => {
        await store.close();
        await store.close();
        await expect(store.transaction((tx) => tx.kv.get('k'))).rejects.toThrow();
        await expect(store.read((tx) => tx.kv.get('k'))).rejects.toThrow();
      });

      test('the store names its engine', () => {
        expect(['sqlite', 'postgres']).toContain(store.engine);
      });
    });
  });
}
