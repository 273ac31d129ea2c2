/**
 * Rows leased in a caller's transaction (`LeasedRunner.claimWithin`: the webhooks' deliveries leased
 * in the booking's own transaction, docs/DECISIONS.md "Deliveries leased in the booking's
 * transaction"): started once it commits with no claim of their own; their lanes busy while it is
 * open; nothing held when it did not commit; released when the runner stopped meanwhile. The claims
 * use the stores' own rule (`onePerTarget`) on rows held in memory.
 */
import { describe, expect, test } from 'vitest';
import { LeasedRunner, type QueuePort } from '../../src/outbox/index.js';
import { onePerTarget } from '../../src/store/shared/deliveries.js';
import type { Store, Tx, WebhookDelivery } from '../../src/store/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (cond: () => boolean, ms = 2_000) => {
  for (const end = performance.now() + ms; !cond() && performance.now() < end; ) await sleep(5);
};

type Row = WebhookDelivery & { leased?: boolean };

/** A lanes queue over rows in memory; every attempt succeeds. */
function queue() {
  const rows: Row[] = [];
  const attempted: number[] = [];
  const released: number[] = [];
  let claims = 0;
  let nextId = 1;
  const add = (target: string) => {
    const id = nextId++;
    rows.push({
      id,
      event_id: `evt_${id}`,
      event: 'booking.confirmed',
      seq: id,
      order_key: `bkg_${id}`,
      target_url: target,
      subscription_id: null,
      body: '{}',
      status: 'pending',
      attempts: 0,
      next_attempt_ms: 0,
      created_ms: 0,
      delivered_ms: null,
      last_status: null,
      last_error: null,
      last_latency_ms: null,
    });
    return rows[rows.length - 1];
  };
  const port: QueuePort<Row, void> = {
    name: 'test dispatcher',
    noun: 'delivery',
    leaseMs: 60_000,
    batch: 10,
    concurrency: 10,
    retryAt: (_row, end) => end.now + 60_000,
    describe: (row) => ({ id: row.id }),
    lane: (row) => row.target_url,
    async claim(_tx, now, limit, _until, busy) {
      claims++;
      const due = rows.filter((r) => r.status === 'pending' && !r.leased && r.next_attempt_ms <= now);
      const out = onePerTarget(due, busy, limit);
      for (const r of out as Row[]) r.leased = true;
      return out as Row[] & { leftBehind?: boolean };
    },
    async attempt(row) {
      attempted.push(row.id);
    },
    failure: () => ({ permanent: false, error: '503' }),
    async done(_tx, row) {
      row.status = 'delivered';
      row.leased = false;
    },
    async failed(_tx, row, end) {
      row.next_attempt_ms = end.retryAtMs;
      row.leased = false;
    },
    async release(_tx, jobs) {
      for (const r of jobs) {
        r.leased = false;
        released.push(r.id);
      }
    },
  };
  const store = { transaction: async (fn: (tx: never) => unknown) => fn({} as never) } as unknown as Store;
  const runner = new LeasedRunner(port, { store, now: () => 1_000, log: { info() {}, warn() {} }, pollMs: 0 });
  return { runner, add, attempted, released, claims: () => claims };
}

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
