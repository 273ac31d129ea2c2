/**
 * The process's work hub (src/server/work-hub.ts): one timer for every business's background work.
 * A business with nothing due is asked again at its next due instant or after the idle interval, not
 * all the time; one with work started is asked again after the busy interval; at most `concurrency`
 * asks run at once, the earliest due first; an ask that throws or hangs holds nobody else; a business
 * composed again keeps its place when the old composition is detached.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/operations/index.js';
import { WorkHub, type HubMember } from '../../src/server/work-hub.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let hub: WorkHub | undefined;
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
});

/** A member on the wall clock: `due(n)` says what its n-th ask finds (work started, and when it is next due). */
function member(due: (n: number) => { ran?: string[]; inMs?: number; waitMs?: number; fail?: boolean } = () => ({})) {
  const asks: number[] = [];
  const m: HubMember & { asks: number[] } = {
    asks,
    clock: { now: () => Date.now() },
    async runDue() {
      const n = asks.push(performance.now());
      const d = due(n);
      if (d.waitMs) await sleep(d.waitMs);
      if (d.fail) throw new Error('the store went away');
      return { ran: d.ran ?? [], nextAt: Date.now() + (d.inMs ?? 3_600_000) };
    },
  };
  return m;
}

describe('the work hub', () => {
  test('a business with nothing due is asked once per idle interval, not continuously', async () => {
    hub = new WorkHub({ log: silentLogger, idleMs: 100, busyMs: 10 });
    const idle = member();
    hub.attach('idle', idle);
    await sleep(550);
    // At once, then every 100 ms: about six asks; a loop polling every pass would be hundreds.
    expect(idle.asks.length).toBeGreaterThanOrEqual(3);
    expect(idle.asks.length).toBeLessThanOrEqual(8);
  });

  test('a business is asked again at its next due instant when that comes before the idle interval', async () => {
    hub = new WorkHub({ log: silentLogger, idleMs: 60_000, busyMs: 60_000 });
    const soon = member(() => ({ inMs: 40 }));
    hub.attach('soon', soon);
    await sleep(400);
    expect(soon.asks.length).toBeGreaterThanOrEqual(3);
  });

  test('a business whose workers were started is asked again after the busy interval, not the idle one', async () => {
    hub = new WorkHub({ log: silentLogger, idleMs: 60_000, busyMs: 30 });
    const busy = member(() => ({ ran: ['webhooks'] }));
    hub.attach('busy', busy);
    await sleep(400);
    expect(busy.asks.length).toBeGreaterThanOrEqual(3);
  });

  test('at most `concurrency` asks run at once, and a hanging ask holds only its own lane', async () => {
    hub = new WorkHub({ log: silentLogger, idleMs: 50, busyMs: 50, concurrency: 2 });
    let running = 0;
    let most = 0;
    const slow = (id: string): HubMember => ({
      clock: { now: () => Date.now() },
      async runDue() {
        running++;
        most = Math.max(most, running);
        await sleep(id === 'hangs' ? 1_000 : 20);
        running--;
        return { ran: [], nextAt: Date.now() + 3_600_000 };
      },
    });
    hub.attach('hangs', slow('hangs'));
    const others = Array.from({ length: 6 }, () => member(() => ({ waitMs: 20 })));
    others.forEach((m, i) => hub!.attach(`b${i}`, m));
    await sleep(600);
    expect(most).toBeLessThanOrEqual(2);
    // The hanging ask holds one lane; every other business is still asked, again and again.
    for (const m of others) expect(m.asks.length).toBeGreaterThanOrEqual(2);
  });

  test('the earliest due is asked first', async () => {
    hub = new WorkHub({ log: silentLogger, idleMs: 60_000, busyMs: 60_000, concurrency: 1 });
    const order: string[] = [];
    const at = (id: string, inMs: number): HubMember => ({
      clock: { now: () => Date.now() },
      async runDue() {
        order.push(id);
        return { ran: [], nextAt: Date.now() + inMs };
      },
    });
    hub.attach('late', at('late', 200));
    hub.attach('early', at('early', 50));
    await sleep(120);
    await sleep(200);
    // Both asked at attach; then early (50 ms) before late (200 ms).
    expect(order.slice(0, 2).sort()).toEqual(['early', 'late']);
    expect(order[2]).toBe('early');
    expect(order.indexOf('late', 2)).toBeGreaterThan(2);
  });

  test('an ask that throws is logged and asked again; others go on', async () => {
    const warned: string[] = [];
    hub = new WorkHub({ log: { ...silentLogger, warn: (m) => warned.push(m) }, idleMs: 50, busyMs: 50 });
    const broken = member(() => ({ fail: true }));
    const fine = member();
    hub.attach('broken', broken);
    hub.attach('fine', fine);
    await sleep(300);
    expect(broken.asks.length).toBeGreaterThanOrEqual(2);
    expect(fine.asks.length).toBeGreaterThanOrEqual(2);
    expect(warned[0]).toMatch(/could not ask a business/);
  });

  test('a business composed again keeps its place when the old composition is detached; detached, it is asked no more', async () => {
    hub = new WorkHub({ log: silentLogger, idleMs: 40, busyMs: 40 });
    const old = member();
    const fresh = member();
    hub.attach('b', old);
    hub.attach('b', fresh);
    hub.detach('b', old);
    expect(hub.size).toBe(1);
    await sleep(200);
    expect(fresh.asks.length).toBeGreaterThanOrEqual(2);
    hub.detach('b', fresh);
    const before = fresh.asks.length;
    await sleep(150);
    expect(fresh.asks.length).toBe(before);
    expect(hub.size).toBe(0);
  });
});
