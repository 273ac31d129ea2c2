/**
 * Part of the Store contract (run on every engine from contract.ts): a write transaction told the
 * definition version it runs on (`verifyVersion`) fails with DefinitionChanged when the stored one
 * differs, and keeps nothing; independent reads run together (`Tx.together`) answer as they would
 * one after the other, and a failing one fails the transaction.
 */
import { expect, test } from 'vitest';
import type { Store, Tx } from '../../src/store/port.js';
import { booking, hold, outboxEvent } from '../support/records.js';

export function definitionCheckContract(store: () => Store): void {
  const write = <T>(fn: (tx: Tx) => Promise<T>) => store().transaction(fn);
  const bump = () => write((tx) => tx.definition.bump());

  test('verifyVersion: the stored version commits; another fails with DefinitionChanged and keeps nothing, even when the error is caught', async () => {
    const v = await bump();
    await write(async (tx) => {
      await tx.definition.verifyVersion(v);
      await tx.bookings.insert(booking('bkg_v_ok'));
    });
    expect(await store().read((tx) => tx.bookings.get('bkg_v_ok'))).not.toBeNull();
    const err = await write(async (tx) => {
      await tx.definition.verifyVersion(v - 1);
      await tx.outbox.add(outboxEvent('evt_v_lost'));
      await tx.bookings.get('bkg_v_ok').catch(() => null);
      await tx.bookings.insert(booking('bkg_v_lost'));
    }).catch((e: unknown) => e);
    expect((err as Error).name).toBe('DefinitionChanged');
    expect(err).toMatchObject({ definitionChanged: true, expected: v - 1, stored: v });
    expect(await store().read((tx) => tx.bookings.get('bkg_v_lost'))).toBeNull();
    expect((await store().read((tx) => tx.outbox.recent(50))).map((e) => e.event_id)).not.toContain('evt_v_lost');
  });

  test('verifyVersion in a transaction that sends nothing else is still checked', async () => {
    const v = await bump();
    await expect(write((tx) => tx.definition.verifyVersion(v))).resolves.toBeUndefined();
    await expect(write((tx) => tx.definition.verifyVersion(v + 1))).rejects.toMatchObject({
      name: 'DefinitionChanged',
    });
  });

  test('together answers each read as it would alone, in the order given; one that fails fails the transaction after every branch settled', async () => {
    await write(async (tx) => {
      await tx.bookings.insert(booking('bkg_t1'));
      await tx.holds.insert(hold('hld_t1'));
    });
    const [b, h, none] = await write((tx) =>
      tx.together(
        () => tx.bookings.get('bkg_t1'),
        () => tx.holds.get('hld_t1'),
        () => tx.bookings.get('bkg_missing'),
      ),
    );
    expect(b?.booking.id).toBe('bkg_t1');
    expect(h?.hold.id).toBe('hld_t1');
    expect(none).toBeNull();
    let other = false;
    const err = await write(async (tx) => {
      await tx.outbox.add(outboxEvent('evt_t_lost'));
      await tx.together(
        async () => {
          throw new Error('branch failed');
        },
        async () => {
          await tx.bookings.get('bkg_t1');
          other = true;
        },
      );
    }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('branch failed');
    expect(other).toBe(true);
    expect((await store().read((tx) => tx.outbox.recent(50))).map((e) => e.event_id)).not.toContain('evt_t_lost');
  });

  test('reads run together after a lock see what another transaction committed before the lock was granted', async () => {
    let release!: () => void;
    const holding = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const granted = new Promise<void>((r) => (locked = r));
    const first = write(async (tx) => {
      await tx.lock(['together:k']);
      locked();
      await holding;
      await tx.bookings.insert(booking('bkg_t_before'));
    });
    await granted;
    const second = write(async (tx) => {
      await tx.lock(['together:k'], { beforeRead: true });
      return tx.together(
        () => tx.bookings.get('bkg_t_before'),
        () => tx.bookings.get('bkg_t1_none'),
      );
    });
    setTimeout(release, 50);
    await first;
    const [seen, none] = await second;
    expect(seen?.booking.id).toBe('bkg_t_before');
    expect(none).toBeNull();
  });
}
