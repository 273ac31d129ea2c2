/**
 * A queue with lanes (webhooks: one target each) after an attempt ends: a pass only when a due row
 * may be waiting. A row done frees its lane for a row the latest claim left behind (same target, or
 * no room); with none left behind, no pass follows (one per booking at each of many hosted
 * businesses, for nothing, before). A failed row's lane waits for its retry, the next commit or the
 * next poll instead of trying the target that just failed at once. The claims use the stores' own
 * rule (`onePerTarget`), on rows held in memory; no worker polls here (`pollMs: 0`), so each
 * first pass is a nudge's (a commit's, or a work hub's ask).
 */
import { describe, expect, test } from 'vitest';
import { lanesQueue as queue, sleep, until } from '../support/lanes-queue.js';

describe('a queue with lanes, after an attempt ends', () => {
  test('a row done with nothing left behind starts no pass', async () => {
    const q = queue(() => 'done');
    q.add('https://a.example/hooks');
    q.runner.start();
    q.runner.nudge();
    await until(() => q.attempted.length === 1);
    await sleep(100);
    expect(q.claims()).toBe(1);
    await q.runner.stop();
  });

  test("a row done frees its lane for the target's next row, which the claim left behind", async () => {
    const q = queue(() => 'done');
    q.add('https://a.example/hooks');
    q.add('https://a.example/hooks');
    q.runner.start();
    q.runner.nudge();
    await until(() => q.attempted.length === 2);
    expect(q.attempted).toEqual([1, 2]);
    await sleep(50);
    // The first claim (row 1, row 2 left behind), then the one the lane's end asked for (row 2, nothing left).
    expect(q.claims()).toBe(2);
    await q.runner.stop();
  });

  test("a failed row's lane waits: the target that just failed is not tried again at once with its next row", async () => {
    const q = queue(() => 'failed');
    q.add('https://down.example/hooks');
    q.add('https://down.example/hooks');
    q.runner.start();
    q.runner.nudge();
    await until(() => q.attempted.length === 1);
    await sleep(100);
    expect(q.attempted).toEqual([1]);
    // A commit (or a poll, or a work hub's ask) takes it.
    q.runner.nudge();
    await until(() => q.attempted.length === 2);
    expect(q.attempted).toEqual([1, 2]);
    await q.runner.stop();
  });

  test('a row a later claim left behind, its lane busy, is taken once that lane frees', async () => {
    let release: () => void = () => undefined;
    const q = queue((row) => (row.id === 1 ? new Promise((r) => (release = () => r('done'))) : 'done'));
    q.add('https://slow.example/hooks');
    q.runner.start();
    q.runner.nudge();
    await until(() => q.attempted.length === 1);
    // A booking commits while row 1 is in flight: its pass leaves row 2 behind (the lane is busy).
    q.add('https://slow.example/hooks');
    q.runner.nudge();
    await until(() => q.claims() === 2);
    expect(q.attempted).toEqual([1]);
    release();
    await until(() => q.attempted.length === 2);
    expect(q.attempted).toEqual([1, 2]);
    await q.runner.stop();
  });
});

describe('a runner that never polls holds its parts only while it has work', () => {
  test('started, it builds nothing; a nudge builds its port and loop, which it lets go once the rows are done', async () => {
    const q = queue(() => 'done');
    q.runner.start();
    // A hosted business's workers, started with nothing due: about 2 KB each while idle, before.
    expect(q.runner.built).toBe(false);
    q.add('https://a.example/hooks');
    q.runner.nudge();
    expect(q.runner.built).toBe(true);
    await until(() => q.attempted.length === 1 && !q.runner.built);
    expect(q.runner.built).toBe(false);
    // The next commit builds them again, and its row is taken as before.
    q.add('https://b.example/hooks');
    q.runner.nudge();
    await until(() => q.attempted.length === 2 && !q.runner.built);
    expect(q.attempted).toEqual([1, 2]);
    expect(q.runner.built).toBe(false);
    await q.runner.stop();
  });

  test('a failed row keeps them until its retry is taken', async () => {
    const q = queue(() => 'failed');
    q.runner.start();
    q.add('https://down.example/hooks');
    q.runner.nudge();
    await until(() => q.attempted.length === 1);
    await sleep(50);
    // Its retry waits on the loop's timer.
    expect(q.runner.built).toBe(true);
    await q.runner.stop();
  });
});
