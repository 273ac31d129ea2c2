/**
 * A queue with lanes (the webhooks' shape: one target each) over rows held in memory, for the
 * LeasedRunner tests: claims use the stores' own rule (`onePerTarget`), each attempt ends as
 * `answer(row)` says (done, failed, or a promise of either), and no worker polls (`pollMs: 0`).
 */
import { LeasedRunner, type QueuePort } from '../../src/outbox/index.js';
import type { Store, WebhookDelivery } from '../../src/store/index.js';
import { onePerTarget } from '../../src/store/shared/deliveries.js';

export type LaneRow = WebhookDelivery & { leased?: boolean };

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const until = async (cond: () => boolean, ms = 2_000) => {
  for (const end = performance.now() + ms; !cond() && performance.now() < end; ) await sleep(5);
};

export function lanesQueue(answer: (row: LaneRow) => Promise<'done' | 'failed'> | 'done' | 'failed' = () => 'done') {
  const rows: LaneRow[] = [];
  const attempted: number[] = [];
  const released: number[] = [];
  let claims = 0;
  let nextId = 1;
  const add = (target: string): LaneRow => {
    const id = nextId++;
    const row: LaneRow = {
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
    };
    rows.push(row);
    return row;
  };
  const port: QueuePort<LaneRow, void> = {
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
      for (const r of out as LaneRow[]) r.leased = true;
      return out as LaneRow[] & { leftBehind?: boolean };
    },
    async attempt(row) {
      attempted.push(row.id);
      if ((await answer(row)) === 'failed') throw new Error('503');
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
