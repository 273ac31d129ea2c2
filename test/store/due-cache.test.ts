/**
 * The `nextDue` answer kept by a PostgreSQL store (src/store/shared/due.ts, `DueCache`): given again
 * while nothing was written, read again after a write (one still open when it was read included) and
 * once it is older than its bound.
 */
import { expect, test } from 'vitest';
import { DueCache, type DueTimes } from '../../src/store/shared/due.js';

const due = (mail: number | null): DueTimes => ({
  mail,
  events: null,
  deliveries: null,
  payments: null,
  pushes: null,
  expiries: null,
});

test('kept while nothing is written; read again after a write, after a write open while it was read, and when old', async () => {
  const cache = new DueCache(40);
  let stored: number | null = 1;
  let reads = 0;
  const read = async () => {
    reads++;
    return due(stored);
  };
  expect((await cache.get(read)).mail).toBe(1);
  expect((await cache.get(read)).mail).toBe(1);
  expect(reads).toBe(1);

  await cache.writing(async () => {
    stored = 2;
  });
  expect((await cache.get(read)).mail).toBe(2);
  expect(reads).toBe(2);

  // Read while a write is open (its rows not yet committed): not kept past the write's end.
  let commit!: () => void;
  const open = cache.writing(() => new Promise<void>((r) => (commit = r)));
  expect((await cache.get(read)).mail).toBe(2);
  stored = 3;
  commit();
  await open;
  expect((await cache.get(read)).mail).toBe(3);
  expect(reads).toBe(4);

  // Written by someone else: seen once the answer is older than the bound.
  stored = 4;
  expect((await cache.get(read)).mail).toBe(3);
  await new Promise((r) => setTimeout(r, 50));
  expect((await cache.get(read)).mail).toBe(4);
  expect(reads).toBe(5);

  // A caller changing its copy changes nothing kept.
  const copy = await cache.get(read);
  copy.mail = 99;
  expect((await cache.get(read)).mail).toBe(4);
});
