/**
 * Statements (SQLite) and round trips (PostgreSQL) a booking costs through the REST door: the store
 * is opened with `onDbStatement`, which tells us every statement it sends, and we count those sent
 * while a hold and a booking on it are answered (each with an Idempotency-Key, as platforms send
 * them), one request at a time, webhooks and calendar workers off so nothing else runs meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { BUYER, day, startTestServer, type TestServer } from './server.js';

export interface WritePathCount {
  /** Statements per hold (POST /availability/holds), as the last of the measured bookings sent them. */
  hold: string[];
  /** Statements per booking on that hold (POST /bookings). */
  create: string[];
  /** Every measured booking's hold + create count (all equal when the path is deterministic). */
  perBooking: number[];
}

/** A server on `db` that counts statements, with webhooks and calendar workers off (nothing else sends statements in between). */
export async function countingServer(db: string): Promise<{ server: TestServer; sent: string[] }> {
  const sent: string[] = [];
  const server = await startTestServer({
    db,
    onDbStatement: (sql) => sent.push(sql),
    webhooks: { enabled: false },
    calendars: { startWorkers: false },
  });
  return { server, sent };
}

/** Book `n` distinct slots (hold, then create on the hold), after one booking that warms the caches. */
export async function countBookings(s: { server: TestServer; sent: string[] }, n: number): Promise<WritePathCount> {
  const q = await s.server.call(
    'POST',
    '/availability/query',
    { service_id: 'svc_haircut', start_date: day(5), end_date: day(5), limit: 50 },
    { profile: null },
  );
  expect(q.status).toBe(200);
  const slots: string[] = q.body.slots.map((x: { id: string }) => x.id);
  expect(slots.length).toBeGreaterThan(4 * n);
  const out: WritePathCount = { hold: [], create: [], perBooking: [] };
  // Slots of one stylist overlap (30-minute cuts every 15 minutes): a slot a booking took part of is skipped.
  const free = new Set(slots);
  for (let i = 0; i <= n; i++) {
    const profile = `https://count-${i}.example/profile.json`;
    const slot = [...free][0];
    free.delete(slot);
    s.sent.length = 0;
    const h = await s.server.call(
      'POST',
      '/availability/holds',
      { service_id: 'svc_haircut', slot_id: slot },
      { profile, idempotencyKey: randomUUID() },
    );
    if (h.status === 200 && h.body.messages?.[0]?.code === 'slot_unavailable') {
      i--;
      continue;
    }
    expect(h.status, JSON.stringify(h.body)).toBe(201);
    const hold = s.sent.splice(0);
    const b = await s.server.call(
      'POST',
      '/bookings',
      { service_id: 'svc_haircut', slot_id: slot, hold_id: h.body.hold.id, buyer: BUYER },
      { profile, idempotencyKey: randomUUID() },
    );
    expect(b.status).toBe(201);
    const create = s.sent.splice(0);
    if (i === 0) continue; // the first request of a process primes what is read once
    out.hold = hold;
    out.create = create;
    out.perBooking.push(hold.length + create.length);
  }
  return out;
}
