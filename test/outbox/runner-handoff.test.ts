/**
 * Rows leased in a caller's transaction (`LeasedRunner.claimWithin`: the webhooks' deliveries leased
 * in the booking's own transaction, docs/DECISIONS.md "Deliveries leased in the booking's
 * transaction"): started once it commits with no claim of their own; their lanes busy while it is
 * open; nothing held when it did not commit; released when the runner stopped meanwhile. The claims
 * use the stores' own rule (`onePerTarget`) on rows held in memory.
 */
import { describe, expect, test } from 'vitest';
import type { Tx } from '../../src/store/index.js';
import { lanesQueue as queue, sleep, until } from '../support/lanes-queue.js';

const tx = {} as Tx;

describe("rows leased in a caller's transaction", () => {
  test('start once it commits, with no claim of their own', async () => {
    const q = queue();
    const row = q.add('https://a.example/hooks');
    q.runner.start();
    const handoff = await q.runner.claimWithin(tx);
    expect(handoff?.due.map((r) => r.id)).toEqual([1]);
    expect(q.attempted).toEqual([]);
    q.runner.committed(handoff!);
    await until(() => row.status === 'delivered');
    await q.runner.idle();
    expect(q.attempted).toEqual([1]);
    expect(q.claims()).toBe(1);
    await q.runner.stop();
  });

  test("hold their lanes while the caller's transaction is open: a pass takes no other row of them", async () => {
    const q = queue();
    q.add('https://a.example/hooks');
    q.runner.start();
    const handoff = await q.runner.claimWithin(tx);
    // Another commit's row for the same target, and one for another: a pass takes only the other.
    q.add('https://a.example/hooks');
    q.add('https://b.example/hooks');
    expect(await q.runner.tick()).toBe(1);
    await q.runner.idle();
    expect(q.attempted).toEqual([3]);
    // Once the first commits, its row is attempted, and its end frees the lane for row 2.
    q.runner.committed(handoff!);
    await until(() => q.attempted.length === 3);
    expect(q.attempted).toEqual([3, 1, 2]);
    await q.runner.stop();
  });

  test('hold nothing when it did not commit: the row is claimed again, its lane free', async () => {
    const q = queue();
    const row = q.add('https://a.example/hooks');
    q.runner.start();
    const handoff = await q.runner.claimWithin(tx);
    // Rolled back: the lease went with the transaction.
    row.leased = false;
    q.runner.abandoned(handoff!);
    expect(await q.runner.tick()).toBe(1);
    await q.runner.idle();
    expect(q.attempted).toEqual([1]);
    // A commit reported after all (it cannot be: abandoned) starts nothing twice.
    q.runner.committed(handoff!);
    await sleep(20);
    expect(q.attempted).toEqual([1]);
    await q.runner.stop();
  });

  test('are released when the runner stopped before the transaction committed', async () => {
    const q = queue();
    const row = q.add('https://a.example/hooks');
    q.runner.start();
    const handoff = await q.runner.claimWithin(tx);
    await q.runner.stop();
    q.runner.committed(handoff!);
    await until(() => q.released.length === 1);
    expect(q.released).toEqual([1]);
    expect(row.leased).toBe(false);
    expect(q.attempted).toEqual([]);
  });

  test('are not leased by a stopped runner, nor beyond its room', async () => {
    const q = queue();
    for (let i = 0; i < 12; i++) q.add(`https://t${i}.example/hooks`);
    expect(await q.runner.claimWithin(tx)).toBeUndefined();
    q.runner.start();
    const first = await q.runner.claimWithin(tx);
    expect(first?.due).toHaveLength(10);
    // Every row of the room is held by the open transaction: none for the next caller.
    expect(await q.runner.claimWithin(tx)).toBeUndefined();
    q.runner.abandoned(first!);
    await q.runner.stop();
  });
});
