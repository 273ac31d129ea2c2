/**
 * The bounded pool of a hosting deployment's composed businesses, alone (hosting.test.ts runs it
 * with real businesses over HTTP): one opening for concurrent first uses, the least recently used
 * closed over the cap but never one answering a request, idle ones closed by the sweep, a
 * failed opening tried again on the next use, and a visit (the waker's) that is no use.
 */
import { describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/operations/index.js';
import { BusinessPool } from '../../src/server/hosted-pool.js';

function pool(o: { maxLoaded?: number; failFirst?: string; closeMs?: number } = {}) {
  const opened: string[] = [];
  const closed: string[] = [];
  const told: string[] = [];
  let failing = o.failFirst;
  const p = new BusinessPool({
    open: async (id) => {
      await new Promise((r) => setTimeout(r, 5));
      if (failing === id) {
        failing = undefined;
        throw new Error('store unavailable');
      }
      opened.push(id);
      return {
        close: async () => {
          if (o.closeMs) await new Promise((r) => setTimeout(r, o.closeMs));
          closed.push(id);
        },
      };
    },
    maxLoaded: o.maxLoaded ?? 2,
    idleCloseMs: 0,
    now: () => 0,
    log: silentLogger,
    closing: async (id) => void told.push(id),
  });
  return { p, opened, closed, told };
}

describe('the pool of composed businesses', () => {
  test('sweeps that overlap (a close slower than the sweep interval) close each idle business once', async () => {
    const { p, closed, told } = pool({ maxLoaded: 5, closeMs: 30 });
    for (const id of ['a', 'b', 'c']) await p.use(id, async () => 1);
    await Promise.all([p.closeIdle(), p.closeIdle(), p.closeIdle()]);
    expect(closed.sort()).toEqual(['a', 'b', 'c']);
    expect(told.sort()).toEqual(['a', 'b', 'c']);
    await p.closeAll();
  });

  test('concurrent first uses of a business open it once', async () => {
    const { p, opened } = pool();
    await Promise.all(Array.from({ length: 5 }, () => p.use('a', async () => 1)));
    expect(opened).toEqual(['a']);
    await p.closeAll();
  });

  test('over the cap the least recently used is closed, never one answering a request', async () => {
    const { p, closed } = pool({ maxLoaded: 2 });
    await p.use('a', async () => 1);
    await p.use('b', async () => 1);
    await p.use('a', async () => 1); // a is now the most recent: b goes first
    await p.use('c', async () => 1);
    expect(closed).toEqual(['b']);
    expect(p.ids).toEqual(['a', 'c']);
    // a busy business is kept over the cap until it is free.
    let release!: () => void;
    const busy = p.use('a', () => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setTimeout(r, 1));
    await p.use('c', async () => 1);
    await p.use('d', async () => 1);
    expect(closed).toEqual(['b', 'c']);
    expect(p.ids.sort()).toEqual(['a', 'd']);
    release();
    await busy;
    await p.closeAll();
    expect(closed.sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  test('a business idle past the bound is closed by the sweep; a used one stays', async () => {
    let now = 0;
    const closed: string[] = [];
    const p = new BusinessPool({
      open: async (id) => ({ close: async () => void closed.push(id) }),
      maxLoaded: 10,
      idleCloseMs: 60_000,
      now: () => now,
      log: silentLogger,
    });
    await p.use('a', async () => 1);
    await p.use('b', async () => 1);
    now += 45_000;
    await p.use('b', async () => 1);
    now += 30_000;
    await p.closeIdle();
    expect(closed).toEqual(['a']);
    expect(p.ids).toEqual(['b']);
    await p.closeAll();
  });

  test('an opening that fails is tried again on the next use', async () => {
    const { p, opened } = pool({ failFirst: 'a' });
    await expect(p.use('a', async () => 1)).rejects.toThrow('store unavailable');
    expect(p.ids).toEqual([]);
    expect(await p.use('a', async () => 2)).toBe(2);
    expect(opened).toEqual(['a']);
    await p.closeAll();
  });

  test('a business retired while answering a request leaves the pool at once and is closed when the request ends', async () => {
    const { p, opened, closed } = pool();
    let release!: () => void;
    const first = await p.peek('a', async (v) => v);
    expect(first).toBeUndefined();
    const inFlight = p.use('a', (v) => new Promise<typeof v>((r) => (release = () => r(v))));
    await new Promise((r) => setTimeout(r, 20));
    const old = await p.peek('a', async (v) => v);
    p.retire('a', old!);
    expect(p.ids).toEqual([]);
    expect(closed).toEqual([]);
    // The next use composes it afresh; retiring the old one again is no business of the new one.
    const fresh = await p.use('a', async (v) => v);
    expect(fresh).not.toBe(old);
    p.retire('a', old!);
    expect(p.ids).toEqual(['a']);
    release();
    expect(await inFlight).toBe(old);
    await new Promise((r) => setImmediate(r)); // the pool is told before it closes (when next due)
    expect(opened).toEqual(['a', 'a']);
    expect(closed).toEqual(['a']);
    await p.closeAll();
    expect(closed).toEqual(['a', 'a']);
  });

  test('a business closing (retired, swept) opens again only once that close has ended, never beside it', async () => {
    const { p, opened, closed } = pool({ closeMs: 40 });
    const old = await p.use('a', async (v) => v);
    p.retire('a', old);
    // The close under way copies its store's log back under the file's lock: the new one waits for it.
    await p.use('a', async () => expect(closed).toEqual(['a']));
    const sweep = p.closeIdle();
    await p.use('a', async () => expect(closed).toEqual(['a', 'a']));
    await sweep;
    expect(opened).toEqual(['a', 'a', 'a']);
    await p.closeAll();
  });

  test('a visit opens a business for its background work and closes it after, unless it was loaded or a request came meanwhile', async () => {
    const { p, opened, closed, told } = pool({ maxLoaded: 5 });
    await p.visit('a', async () => 1);
    await p.closeAll(); // waits for the visit's close, which the visitor does not
    expect([opened, closed, told]).toEqual([['a'], ['a'], ['a']]);

    const second = pool({ maxLoaded: 5 });
    await second.p.use('b', async () => 1);
    await second.p.use('c', async () => 1);
    await second.p.visit('b', async () => 1);
    // Loaded before the visit: it stays, and the visit did not move it in the use order.
    expect(second.p.ids).toEqual(['b', 'c']);
    let release!: () => void;
    const visiting = second.p.visit('d', () => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setTimeout(r, 20));
    await second.p.use('d', async () => 1);
    release();
    await visiting;
    // A request came during the visit: d stays loaded as any business a request opened.
    expect(second.p.ids).toEqual(['b', 'c', 'd']);
    expect(second.closed).toEqual([]);
    await second.p.closeAll();
    expect(second.told.sort()).toEqual(['b', 'c', 'd']);
  });
});
