/**
 * Benchmark 10: what taking money through Stripe costs the server, in-process against the test
 * suite's Stripe emulator (test/support/stripe-emulator.ts, compiled here by the project's tsc into
 * node_modules/.cache, so the SDK resolves as in the tests).
 *
 *  - The booking write path of a service paid when booking: the same server on the sandbox provider
 *    and on Stripe (which writes a payment job row in the booking's transaction), interleaved rounds
 *    of POST /bookings through each server's app.fetch (16 concurrent workers, so group commit
 *    batches as under load; no sockets, webhooks off, the payment worker stopped), CPU per booking.
 *  - The payment flow after commit: the payment worker creating the Checkout Session of each booking
 *    (lease, the SDK's HTTP call to the emulator, the answer applied through the pipeline), and a
 *    signed `checkout.session.completed` applied by POST /payments/stripe/webhook (signature
 *    checked, event recorded once, booking confirmed, booking.confirmed queued).
 *
 * Everything runs in this one process, so CPU is process CPU: the session figure includes the
 * emulator's own handling of each request (an upper bound for the server's share); the webhook
 * figure is the server's alone (events are signed before the clock starts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createUspServer } from '../dist/server/compose.js';
import { ManualClock, silentLogger } from '../dist/operations/index.js';
import { slotIdEncoder } from '../dist/domain/slot-id.js';
import { BENCH_NOW, ROOT, fmt, fmtMs, fmtX, generatedBusiness, seedSlot, staffId, summarize } from './lib.mjs';

const PRICE = 11000;
const WORKERS = 16;

/** The tests' Stripe emulator compiled to plain ESM (Node 20 runs no TypeScript) under node_modules/.cache, so `stripe` resolves. */
async function loadEmulator() {
  const dir = join(ROOT, 'node_modules/.cache/usp-bench');
  const args = [
    '--ignoreConfig',
    join(ROOT, 'test/support/stripe-emulator.ts'),
    '--outDir',
    dir,
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--target',
    'es2022',
    '--skipLibCheck',
    '--noCheck',
    '--types',
    'node',
  ];
  execFileSync(join(ROOT, 'node_modules/.bin/tsc'), args, { stdio: 'inherit' });
  return import(pathToFileURL(join(dir, 'stripe-emulator.js')).href);
}

async function server(name, payments, clock) {
  const dir = mkdtempSync(join(tmpdir(), 'usp-bench-pay-'));
  const usp = await createUspServer({
    business: generatedBusiness({ staff: 50, interval: 15, duration: 15, maxAdvanceDays: 365, price: PRICE }),
    db: join(dir, 'b.db'),
    sandbox: true,
    clock,
    log: silentLogger,
    sweepIntervalMs: 0,
    security: { rateLimits: false },
    webhooks: { enabled: false },
    payments,
  });
  return { name, usp, dir, enc: new Map(), j: 0, cpu: 0, n: 0, bookings: [] };
}

const post = async (s, path, body, w) => {
  const r = await s.usp.app.fetch(
    new Request(`http://127.0.0.1${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'usp-agent': `profile="https://platform-${w}.example/profile.json"`,
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify(body),
    }),
  );
  return { status: r.status, body: await r.json() };
};

/** `count` bookings of the prepaid service by WORKERS concurrent clients; returns CPU ms. */
async function bookRound(s, count) {
  const c0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, w) => {
      for (let k = 0; k < count / WORKERS; k++) {
        const slot = seedSlot(s.j++, 1, 300);
        const rid = staffId(slot.staff);
        let e = s.enc.get(rid);
        if (!e) s.enc.set(rid, (e = slotIdEncoder('svc_bench', [rid])));
        const b = await post(
          s,
          '/bookings',
          {
            service_id: 'svc_bench',
            slot_id: e(slot.startMs),
            buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
          },
          w,
        );
        if (b.status !== 201 || b.body.booking.status !== 'requires_action')
          throw new Error(`payments: ${s.name} booking answered ${b.status}: ${JSON.stringify(b.body).slice(0, 300)}`);
        s.bookings.push(b.body.booking.id);
      }
    }),
  );
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

export async function run({ quick }) {
  const t = quick ? { warm: 32, round: 64, rounds: 1, flow: 40 } : { warm: 320, round: 480, rounds: 8, flow: 600 };
  const { startStripeEmulator } = await loadEmulator();
  const clock = new ManualClock(BENCH_NOW);
  const emu = await startStripeEmulator({ now: () => clock.now() });
  const servers = [
    await server('sandbox', { provider: 'sandbox' }, clock),
    await server(
      'stripe',
      {
        provider: 'stripe',
        stripe: { secretKey: emu.secretKey, webhookSecret: emu.webhookSecret, apiUrl: emu.url },
        startWorker: false,
      },
      clock,
    ),
  ];
  const [sandbox, stripe] = servers;
  try {
    // ---- the booking write path, interleaved ----------------------------------------------------
    for (const s of servers) await bookRound(s, t.warm);
    for (let r = 0; r < t.rounds; r++) {
      for (let k = 0; k < servers.length; k++) {
        const s = servers[(r + k) % servers.length];
        s.cpu += await bookRound(s, t.round);
        s.n += t.round;
      }
    }
    const perBooking = (s) => s.cpu / s.n;
    const jobs = await stripe.usp.store.read((tx) => tx.payments.forBooking(stripe.bookings[0]));
    if (jobs.length !== 1 || jobs[0].kind !== 'checkout')
      throw new Error(`payments: a Stripe booking should write one checkout job, found ${JSON.stringify(jobs)}`);

    // ---- the payment flow: sessions by the worker, then signed webhooks -------------------------
    // A fresh batch of bookings, so the worker's pass meets only these jobs (the others stay pending).
    const flowIds = [];
    const flow = await server(
      'stripe-flow',
      {
        provider: 'stripe',
        stripe: { secretKey: emu.secretKey, webhookSecret: emu.webhookSecret, apiUrl: emu.url },
        startWorker: false,
      },
      clock,
    );
    servers.push(flow);
    await bookRound(flow, t.flow);
    flowIds.push(...flow.bookings);
    const worker = flow.usp.paymentWorker;
    let c0 = process.cpuUsage();
    let w0 = process.hrtime.bigint();
    // Only this server's worker runs, so the emulator's sessions are this batch's.
    for (let pass = 0; pass < flowIds.length && emu.sessions.size < flowIds.length; pass++) await worker.tick();
    let c = process.cpuUsage(c0);
    const sessionCpu = (c.user + c.system) / 1000 / flowIds.length;
    const sessionWall = Number(process.hrtime.bigint() - w0) / 1e6 / flowIds.length;
    const byBooking = new Map([...emu.sessions.values()].map((x) => [x.client_reference_id, x.id]));
    const missing = flowIds.filter((id) => !byBooking.has(id));
    if (missing.length > 0) throw new Error(`payments: ${missing.length} of ${flowIds.length} bookings got no session`);
    if (emu.requests.filter((q) => q.path === '/v1/checkout/sessions').length !== emu.sessions.size)
      throw new Error('payments: a session was asked for twice');

    const signed = flowIds.map((id) => {
      const payload = JSON.stringify(emu.pay(byBooking.get(id)));
      return { id, payload, signature: emu.sign(payload) };
    });
    const lat = [];
    c0 = process.cpuUsage();
    w0 = process.hrtime.bigint();
    let next = 0;
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        while (next < signed.length) {
          const ev = signed[next++];
          const a = process.hrtime.bigint();
          const r = await flow.usp.app.fetch(
            new Request('http://127.0.0.1/payments/stripe/webhook', {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'stripe-signature': ev.signature },
              body: ev.payload,
            }),
          );
          await r.text();
          if (r.status !== 200) throw new Error(`payments: webhook answered ${r.status}`);
          lat.push(Number(process.hrtime.bigint() - a) / 1e6);
        }
      }),
    );
    c = process.cpuUsage(c0);
    const hookCpu = (c.user + c.system) / 1000 / signed.length;
    const hookWall = Number(process.hrtime.bigint() - w0) / 1e6;
    const last = await flow.usp.store.read((tx) => tx.bookings.get(flowIds[flowIds.length - 1]));
    if (last.booking.status !== 'confirmed')
      throw new Error(`payments: a paid booking is ${last.booking.status}, expected confirmed`);
    const h = summarize(lat);

    const ratio = perBooking(stripe) / perBooking(sandbox);
    return {
      id: 'payments',
      title: '10. Payments through Stripe (in-process, against the test emulator)',
      sections: [
        {
          caption: `Booking a service paid when booking (POST /bookings, ${WORKERS} concurrent clients, ${t.rounds} interleaved rounds of ${t.round} each)`,
          header: ['provider', 'CPU per booking', 'what the booking transaction writes beyond the booking'],
          rows: [
            ['sandbox', fmtMs(perBooking(sandbox)), 'nothing: the payment action links our sandbox page'],
            [
              'stripe',
              `${fmtMs(perBooking(stripe))} (${fmtX(ratio)} sandbox)`,
              'one payment job row (`checkout:<action>`) and the provider record on the booking',
            ],
          ],
        },
        {
          caption: `The payment flow after commit (${fmt(flowIds.length, 0)} bookings)`,
          header: ['step', 'CPU per booking', 'wall', 'notes'],
          rows: [
            [
              'Checkout Session created by the payment worker',
              fmtMs(sessionCpu),
              `${fmtMs(sessionWall)} per booking (passes of 20 in parallel)`,
              "lease, SDK call over loopback HTTP, answer applied through the pipeline; the emulator's CPU is included",
            ],
            [
              'signed checkout.session.completed applied',
              fmtMs(hookCpu),
              `p50 ${fmtMs(h.p50)} / p99 ${fmtMs(h.p99)} per request (${fmt((signed.length / hookWall) * 1000, 0)}/s, ${WORKERS} concurrent)`,
              'signature checked, event recorded once, booking confirmed, booking.confirmed queued',
            ],
          ],
        },
      ],
      notes: [
        'Both servers share one process, one clock (pinned), and the same generated business with its one service priced at $110.00, paid when booking; SQLite WAL files in the temp directory. The payment worker is stepped by hand (not started), so the booking rounds measure the transaction alone and the sessions are created in one measured stretch afterwards.',
      ],
      targets: [{ name: 'Stripe ÷ sandbox, CPU per prepaid booking', target: 'info', value: fmtX(ratio), ok: null }],
    };
  } finally {
    for (const s of servers) {
      await s.usp.close();
      rmSync(s.dir, { recursive: true, force: true });
    }
    await emu.close();
  }
}
