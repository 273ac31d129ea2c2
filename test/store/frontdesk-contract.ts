/**
 * The front desk's repository, pinned on every engine: client notes, finding the rows of a
 * personal-data table that name a person (case-insensitively, paged by key), rewriting them,
 * bookings by their end (retention) and ending a buyer account with everything that belongs to it.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Store, Tx } from '../../src/store/port.js';
import { booking, outboxEvent } from '../support/records.js';
import { TEST_NOW as NOW } from '../support/time.js';

export function frontDeskContract(name: string, open: () => Promise<Store>): void {
  describe(`front desk store (${name})`, () => {
    let store: Store;
    const write = <T>(fn: (tx: Tx) => Promise<T>) => store.transaction(fn);
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    test('a client note is written, replaced, read back and deleted', async () => {
      await write((tx) =>
        tx.frontdesk.putClientNote({
          client_key: 'email:ada@example.com',
          note: 'Prefers mornings',
          updated_ms: NOW,
          updated_by: 'user:a',
        }),
      );
      await write((tx) =>
        tx.frontdesk.putClientNote({
          client_key: 'email:ada@example.com',
          note: 'Allergic to latex',
          updated_ms: NOW + 1,
          updated_by: 'user:b',
        }),
      );
      expect(await store.read((tx) => tx.frontdesk.clientNote('email:ada@example.com'))).toEqual({
        client_key: 'email:ada@example.com',
        note: 'Allergic to latex',
        updated_ms: NOW + 1,
        updated_by: 'user:b',
      });
      expect(await write((tx) => tx.frontdesk.deleteClientNote('email:ada@example.com'))).toBe(true);
      expect(await write((tx) => tx.frontdesk.deleteClientNote('email:ada@example.com'))).toBe(false);
      expect(await store.read((tx) => tx.frontdesk.clientNote('email:ada@example.com'))).toBeNull();
    });

    test('mentioning finds the rows that contain a needle in any case, pages by key, and rewrite replaces the text', async () => {
      const other = booking('bkg_2');
      other.booking.buyer = { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' };
      const shouty = booking('bkg_3');
      shouty.booking.buyer.email = 'ADA@Example.com';
      await write(async (tx) => {
        await tx.bookings.insert(booking('bkg_1'));
        await tx.bookings.insert(other);
        await tx.bookings.insert(shouty);
      });
      const found = await store.read((tx) => tx.frontdesk.mentioning('bookings', ['ada@example.com'], 10));
      expect(found.map((r) => r.key)).toEqual(['bkg_1', 'bkg_3']);
      const page = await store.read((tx) => tx.frontdesk.mentioning('bookings', ['ada@example.com'], 1, 'bkg_1'));
      expect(page.map((r) => r.key)).toEqual(['bkg_3']);
      const rec = JSON.parse(found[0].text);
      rec.booking.buyer = { first_name: 'Erased', last_name: 'Erased', email: 'erased@erased.invalid' };
      await write((tx) => tx.frontdesk.rewrite('bookings', 'bkg_1', JSON.stringify(rec)));
      expect((await store.read((tx) => tx.bookings.get('bkg_1')))!.booking.buyer.email).toBe('erased@erased.invalid');
      expect(
        (await store.read((tx) => tx.frontdesk.mentioning('bookings', ['ada@example.com'], 10))).map((r) => r.key),
      ).toEqual(['bkg_3']);
    });

    test('integer-keyed tables (the outbox) page by number, not by text', async () => {
      await write(async (tx) => {
        for (let i = 1; i <= 12; i++)
          await tx.outbox.add(outboxEvent(`evt_${i}`, { payload: { buyer: { email: 'ada@example.com' } } }));
      });
      const first = await store.read((tx) => tx.frontdesk.mentioning('outbox_events', ['ada@example.com'], 10));
      const rest = await store.read((tx) =>
        tx.frontdesk.mentioning('outbox_events', ['ada@example.com'], 10, first[first.length - 1].key),
      );
      expect(first.length + rest.length).toBe(12);
      expect(new Set([...first, ...rest].map((r) => r.key)).size).toBe(12);
    });

    test('bookings are found by when they ended, oldest first, in the half-open range asked', async () => {
      const at = (id: string, endMs: number) => {
        const b = booking(id);
        b.priv.end_ms = endMs;
        return b;
      };
      await write(async (tx) => {
        await tx.bookings.insert(at('bkg_a', NOW - 3000));
        await tx.bookings.insert(at('bkg_b', NOW - 1000));
        await tx.bookings.insert(at('bkg_c', NOW));
      });
      expect(await store.read((tx) => tx.frontdesk.bookingsEnded(0, NOW, 10))).toEqual([
        { id: 'bkg_a', end_ms: NOW - 3000 },
        { id: 'bkg_b', end_ms: NOW - 1000 },
      ]);
      // A rescheduled booking is found by its new end.
      await write(async (tx) => tx.bookings.update(at('bkg_a', NOW + 5000)));
      expect((await store.read((tx) => tx.frontdesk.bookingsEnded(0, NOW, 10))).map((r) => r.id)).toEqual(['bkg_b']);
    });

    test('deleting an account removes it, its booking links and its authorization records, and no one else’s', async () => {
      await write(async (tx) => {
        await tx.accounts.create({
          id: 'acc_1',
          email: 'ada@example.com',
          password_hash: 'x',
          name: 'Ada',
          phone: null,
          created_ms: NOW,
        });
        await tx.accounts.create({
          id: 'acc_2',
          email: 'grace@example.com',
          password_hash: 'x',
          name: 'Grace',
          phone: null,
          created_ms: NOW,
        });
        await tx.accounts.linkBooking('acc_1', 'bkg_1', NOW);
        const rec = (id: string, accountId: string | null, payload: Record<string, unknown>) => ({
          model: 'Session',
          id,
          payload,
          grantId: null,
          uid: null,
          userCode: null,
          accountId,
          expiresMs: null,
        });
        await tx.oauth.upsert(rec('g1', 'acc_1', {}));
        await tx.oauth.upsert(rec('s1', null, { accountId: 'acc_1' }));
        await tx.oauth.upsert(rec('s2', null, { accountId: 'acc_2' }));
      });
      expect(await write((tx) => tx.frontdesk.deleteAccount('acc_1'))).toBe(4);
      await store.read(async (tx) => {
        expect(await tx.accounts.byId('acc_1')).toBeNull();
        expect(await tx.accounts.owns('acc_1', 'bkg_1')).toBe(false);
        expect(await tx.oauth.find('Session', 's1', NOW)).toBeNull();
        expect(await tx.oauth.find('Session', 'g1', NOW)).toBeNull();
        expect(await tx.oauth.find('Session', 's2', NOW)).not.toBeNull();
        expect(await tx.accounts.byId('acc_2')).not.toBeNull();
      });
    });
  });
}
