/**
 * `UspServer.nextDueAt` (src/server/due-work.ts): what `host serve` records when it closes a business
 * and wakes it by. Queued work counts only when the worker that does it runs here (a queue nobody
 * drains is no reason to wake: webhooks turned off, no mail transport), a reminder counts at its
 * time, and a business with nothing queued is still due for its daily retention sweep.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startTestServer, day, BUYER, type TestServer } from '../support/server.js';
import { waitFor } from '../support/time.js';

const DAY = 86_400_000;
let t: TestServer | undefined;
let dir: string | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The first slot on day `n`, booked; its start. */
async function book(n: number): Promise<number> {
  const q = await t!.call('POST', '/availability/query', {
    service_id: 'svc_haircut',
    start_date: day(n),
    end_date: day(n),
    limit: 1,
  });
  const r = await t!.call('POST', '/bookings', {
    service_id: 'svc_haircut',
    slot_id: q.body.slots[0].id,
    buyer: BUYER,
  });
  expect(r.status).toBe(201);
  return Date.parse(r.body.booking.slot.start);
}

describe('a business says when its background work is next due', () => {
  test('queued work no worker here drains (webhooks off, no mail transport) is no reason to wake: the daily sweep is', async () => {
    t = await startTestServer({ webhooks: { enabled: false } });
    await book(3);
    const now = t.server.clock.now();
    const queued = await t.server.store.nextDue();
    expect(queued.mail).toBeLessThanOrEqual(now);
    expect(queued.events).toBeLessThanOrEqual(now);
    expect(await t.server.nextDueAt()).toBe(now + DAY);
  });

  test('with mail sent and webhooks on, a queued reminder counts at its time once what was due now is done', async () => {
    dir = mkdtempSync(join(tmpdir(), 'usp-next-due-'));
    t = await startTestServer({ mail: { dir } });
    const start = await book(2);
    const reminderAt = start - DAY;
    const now = t.server.clock.now();
    expect(reminderAt).toBeGreaterThan(now);
    expect(reminderAt).toBeLessThan(now + DAY);
    await waitFor(async () => (await t!.server.nextDueAt()) > now, 5_000, 'the confirmation sent');
    expect(await t.server.nextDueAt()).toBe(reminderAt);
  });
});
