/**
 * Benchmark 11: what a booking's mail costs. The booking's transaction only queues rows (the
 * confirmation, the reminder); rendering and sending happen after commit, in the mail worker.
 *
 *  - The write path: POST /bookings through app.fetch (16 concurrent clients, no sockets, webhooks
 *    off, the mail worker stopped), CPU per booking; and the mail step alone, run for each of those
 *    bookings' booking.confirmed events in transactions of its own (load the booking, queue its
 *    rows), against the same number of empty transactions: its share of the booking's CPU.
 *  - After commit: the worker's pass rendering each queued message (text, HTML, the invite) and
 *    writing it as an .eml file (the --mail-dir transport: composition without a network).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createUspServer } from '../dist/server/compose.js';
import { ManualClock, silentLogger } from '../dist/operations/index.js';
import { queueMailForEvents } from '../dist/operations/notifications/mail-messages.js';
import { slotIdEncoder } from '../dist/domain/slot-id.js';
import { BENCH_NOW, fmt, fmtMs, fmtX, generatedBusiness, seedSlot, staffId } from './lib.mjs';

const WORKERS = 16;
const cpuMs = (c0) => {
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};

export async function run({ quick }) {
  const n = quick ? 64 : 960;
  const dir = mkdtempSync(join(tmpdir(), 'usp-bench-mail-'));
  const clock = new ManualClock(BENCH_NOW);
  const usp = await createUspServer({
    business: generatedBusiness({ staff: 50, interval: 15, duration: 15, maxAdvanceDays: 365 }),
    db: join(dir, 'b.db'),
    sandbox: true,
    clock,
    log: silentLogger,
    sweepIntervalMs: 0,
    security: { rateLimits: false },
    webhooks: { enabled: false },
    mail: { dir: join(dir, 'eml'), from: 'Bench <bench@example.com>', startWorker: false },
  });
  try {
    const enc = new Map();
    let j = 0;
    const ids = [];
    const book = async (count) => {
      await Promise.all(
        Array.from({ length: WORKERS }, async (_, w) => {
          for (let k = 0; k < count / WORKERS; k++) {
            const slot = seedSlot(j++, 1, 300);
            const rid = staffId(slot.staff);
            let e = enc.get(rid);
            if (!e) enc.set(rid, (e = slotIdEncoder('svc_bench', [rid])));
            const r = await usp.app.fetch(
              new Request('http://127.0.0.1/bookings', {
                method: 'POST',
                headers: {
                  'content-type': 'application/json',
                  'usp-agent': `profile="https://platform-${w}.example/profile.json"`,
                  'idempotency-key': randomUUID(),
                },
                body: JSON.stringify({
                  service_id: 'svc_bench',
                  slot_id: e(slot.startMs),
                  buyer: { first_name: 'Ada', last_name: 'Lovelace', email: `ada${j}@example.com` },
                }),
              }),
            );
            const body = await r.json();
            if (r.status !== 201)
              throw new Error(`mail: booking answered ${r.status}: ${JSON.stringify(body).slice(0, 300)}`);
            ids.push(body.booking.id);
          }
        }),
      );
    };
    await book(Math.min(64, n));
    ids.length = 0;
    let c0 = process.cpuUsage();
    await book(n);
    const perBooking = cpuMs(c0) / n;
    const queued = await usp.store.read((tx) => tx.mail.forSubject(ids[0]));
    if (queued.length < 1) throw new Error('mail: a booking queued no message');

    // The mail step alone: the same call the pipeline makes, for a copy of each booking's event (new keys).
    const events = ids.map((id, i) => ({
      event_id: `evt_bench_${i}`,
      event: 'booking.confirmed',
      order_key: id,
      principal: null,
      profile: null,
      payload: { booking_id: id },
      created_ms: BENCH_NOW,
      due_ms: BENCH_NOW,
    }));
    c0 = process.cpuUsage();
    await Promise.all(events.map(() => usp.store.transaction(async () => undefined)));
    const emptyTx = cpuMs(c0) / n;
    c0 = process.cpuUsage();
    await Promise.all(
      events.map((e) => usp.store.transaction((tx) => queueMailForEvents(tx, usp.biz, [e], BENCH_NOW))),
    );
    const withStep = cpuMs(c0) / n;
    const step = Math.max(0, withStep - emptyTx);

    // After commit: render and write every due message.
    c0 = process.cpuUsage();
    const w0 = process.hrtime.bigint();
    for (let pass = 0; pass < 2 * n; pass++) {
      const before = readdirSync(join(dir, 'eml')).length;
      await usp.mailWorker.tick();
      if (readdirSync(join(dir, 'eml')).length === before) break;
    }
    const files = readdirSync(join(dir, 'eml')).length;
    const sendCpu = cpuMs(c0) / files;
    const sendWall = Number(process.hrtime.bigint() - w0) / 1e6 / files;
    if (files < n) throw new Error(`mail: ${files} .eml files for ${n} bookings`);

    return {
      id: 'mail',
      title: '11. Mail to buyers (in-process; the folder transport)',
      sections: [
        {
          caption: `The booking write path (POST /bookings, ${WORKERS} concurrent clients, ${fmt(n, 0)} bookings)`,
          header: ['what', 'CPU per booking', 'notes'],
          rows: [
            [
              'a booking, mail rows included',
              fmtMs(perBooking),
              "confirmation and reminder queued in the booking's transaction",
            ],
            [
              'the mail step alone',
              `${fmtMs(step)} (${fmtX(step / perBooking)} of the booking)`,
              'load the booking, two INSERT … ON CONFLICT DO NOTHING; measured as its own transactions minus empty ones',
            ],
          ],
        },
        {
          caption: 'After commit: the mail worker',
          header: ['step', 'CPU per message', 'wall per message', 'notes'],
          rows: [
            [
              'render (text, HTML, invite) and write an .eml file',
              fmtMs(sendCpu),
              fmtMs(sendWall),
              `${fmt(files, 0)} messages, in passes of 20; never on the booking's path`,
            ],
          ],
        },
      ],
      notes: [
        'The worker is stepped by hand (not started), so the booking rounds measure the transaction alone. The messages sent are the confirmations, the copies the mail-step measurement queued, and the reminders of bookings inside the reminder window (due at once).',
      ],
      targets: [{ name: 'mail step ÷ booking CPU', target: 'info', value: fmtX(step / perBooking), ok: null }],
    };
  } finally {
    await usp.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
