/**
 * Benchmark 4: booking writes over real HTTP (REST), hold + create, per storage engine.
 *
 * A generated business (50 staff, 15-minute slots 09:00-18:00 every day, bookable a year ahead,
 * free, auto-confirmed) served by bench/server-child.mjs in sandbox mode, clock pinned. 64
 * concurrent clients, each with its own platform profile (the per-platform hold limit never
 * trips) and a fresh Idempotency-Key on every request (no idempotency conflicts):
 *
 *  - uncontended: every client books distinct slots: POST /availability/holds then POST /bookings
 *    with the hold. Slots are spread round-robin over the days ahead, so each day fills slowly.
 *  - contended: rounds in which all 64 clients go for the SAME slot at once, half through a hold
 *    and half booking directly; exactly one booking per round may succeed.
 *
 * Afterwards the server audits its store (bench/server-child.mjs `audit`): live bookings
 * (pending, requires_action, confirmed, in_progress) counted per slot and per resource interval.
 * Any slot with two is a double booking, and must never happen.
 *
 * Engines: SQLite (a WAL file in the temp directory, as deployed). PostgreSQL runs when
 * USP_BENCH_PG_URL (or DATABASE_URL) names a database; otherwise it is skipped with a note.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { slotIdEncoder } from '../dist/domain/slot-id.js';
import { localToUtcMs } from '../dist/domain/time.js';
import { ZONE, benchDate, fmt, fmtMs, startChild, summarize } from './lib.mjs';

const CLIENTS = 64;
const TARGET_BOOKINGS_PER_S = 1500;
const STAFF = 50;
const DAYS = 360;
const SLOTS_PER_DAY = 36; // 09:00-18:00 every 15 minutes
const BUSINESS = { staff: STAFF, interval: 15, duration: 15, maxAdvanceDays: 365 };
const BUYER = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };

/** The storage engines to run; add one here and it gets both scenarios and the audit. */
export function engines() {
  const pg = process.env.USP_BENCH_PG_URL ?? process.env.DATABASE_URL;
  return [
    {
      name: 'SQLite',
      prepare() {
        const dir = mkdtempSync(join(tmpdir(), 'usp-bench-'));
        return { db: join(dir, 'bench.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
      },
    },
    {
      name: 'PostgreSQL',
      skip: pg ? null : 'skipped: set USP_BENCH_PG_URL (or DATABASE_URL) to a scratch database to run it',
      prepare: () => ({ db: pg, cleanup: () => undefined }),
    },
  ];
}

/** Slot ids of svc_bench, enumerated so consecutive ones land on different days. */
function slotSource() {
  const ids = new Map();
  const encoderFor = (rid) => {
    let e = ids.get(rid);
    if (!e) ids.set(rid, (e = slotIdEncoder('svc_bench', [rid])));
    return e;
  };
  const opens = new Map();
  return (j) => {
    const day = 1 + (j % DAYS);
    const k = Math.floor(j / DAYS);
    const staff = k % STAFF;
    const slot = Math.floor(k / STAFF);
    if (slot >= SLOTS_PER_DAY) throw new Error('bookings: ran out of distinct slots');
    let open = opens.get(day);
    if (open === undefined) opens.set(day, (open = localToUtcMs(benchDate(day), '09:00', ZONE)));
    return encoderFor(`res_staff_${String(staff).padStart(3, '0')}`)(open + slot * 15 * 60_000);
  };
}

function client(baseUrl) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const latencies = [];
  const request = (method, path, body, profile) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const headers = { 'usp-agent': `profile="${profile}"`, 'idempotency-key': randomUUID() };
      if (payload) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(payload.length);
      }
      const t0 = process.hrtime.bigint();
      const req = http.request({ host: url.hostname, port: url.port, method, path, headers, agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
          try {
            resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          } catch (err) {
            reject(err);
          }
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  return { request, latencies, close: () => agent.destroy() };
}

const code = (res) => res.body?.messages?.find((m) => m.type === 'error')?.code;

/** Hold then book one slot; returns 'booked', or the outcome code that stopped it. */
async function holdAndBook(c, slotId, profile) {
  const h = await c.request('POST', '/availability/holds', { service_id: 'svc_bench', slot_id: slotId }, profile);
  if (h.status !== 201) {
    if (h.status === 200 && code(h)) return code(h);
    throw new Error(`bookings: hold answered ${h.status}: ${JSON.stringify(h.body).slice(0, 300)}`);
  }
  return book(c, slotId, profile, h.body.hold.id);
}

async function book(c, slotId, profile, holdId) {
  const b = await c.request('POST', '/bookings', { service_id: 'svc_bench', slot_id: slotId, ...(holdId ? { hold_id: holdId } : {}), buyer: BUYER }, profile);
  if (b.status === 201) {
    if (b.body.booking?.status !== 'confirmed') throw new Error(`bookings: booking is ${b.body.booking?.status}, expected confirmed`);
    return 'booked';
  }
  if (b.status === 200 && code(b)) return code(b);
  throw new Error(`bookings: create answered ${b.status}: ${JSON.stringify(b.body).slice(0, 300)}`);
}

async function uncontended(url, seconds, warmSeconds) {
  const c = client(url);
  const next = slotSource();
  let j = 0;
  const lat = [];
  let booked = 0;
  let failed = 0;
  let allBooked = 0;
  const runFor = async (ms, record) => {
    const deadline = Date.now() + ms;
    const t0 = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, w) => {
        const profile = `https://platform-${w}.example/profile.json`;
        while (Date.now() < deadline) {
          const a = process.hrtime.bigint();
          const outcome = await holdAndBook(c, next(j++), profile);
          if (outcome === 'booked') allBooked++;
          if (!record) continue;
          if (outcome === 'booked') {
            booked++;
            lat.push(Number(process.hrtime.bigint() - a) / 1e6);
          } else failed++;
        }
      }),
    );
    return Number(process.hrtime.bigint() - t0) / 1e9;
  };
  await runFor(warmSeconds * 1000, false);
  c.latencies.length = 0;
  const elapsed = await runFor(seconds * 1000, true);
  c.close();
  return { booked, failed, allBooked, elapsed, rate: booked / elapsed, booking: summarize(lat), request: summarize(c.latencies), requests: c.latencies.length };
}

async function contended(url, seconds) {
  const c = client(url);
  // A slot range far from the uncontended one would do too; this server is fresh anyway.
  const next = slotSource();
  let round = 0;
  let booked = 0;
  let attempts = 0;
  let overbooked = 0;
  const lat = [];
  const outcomes = {};
  const deadline = Date.now() + seconds * 1000;
  const t0 = process.hrtime.bigint();
  while (Date.now() < deadline || round === 0) {
    const slotId = next(round++);
    const results = await Promise.all(
      Array.from({ length: CLIENTS }, async (_, w) => {
        const profile = `https://platform-${w}.example/profile.json`;
        const a = process.hrtime.bigint();
        const outcome = w % 2 === 0 ? await holdAndBook(c, slotId, profile) : await book(c, slotId, profile);
        lat.push(Number(process.hrtime.bigint() - a) / 1e6);
        return outcome;
      }),
    );
    attempts += results.length;
    const wins = results.filter((o) => o === 'booked').length;
    booked += wins;
    if (wins > 1) overbooked += wins - 1;
    for (const o of results) outcomes[o] = (outcomes[o] ?? 0) + 1;
  }
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  c.close();
  return { rounds: round, booked, attempts, overbooked, outcomes, elapsed, rate: booked / elapsed, attemptRate: attempts / elapsed, attempt: summarize(lat), request: summarize(c.latencies) };
}

export async function run({ quick, cpuProf }) {
  const seconds = quick ? 0.3 : 8;
  const warm = quick ? 0.1 : 1;
  const contendedSeconds = quick ? 0.2 : 5;
  const rows = [];
  const targets = [];
  const notes = [];
  const memory = [];
  const data = {};
  let doubleBookings = 0;

  for (const engine of engines()) {
    if (engine.skip) {
      notes.push(`${engine.name}: ${engine.skip}.`);
      rows.push([engine.name, 'skipped', '–', '–', '–', '–', '–', '–']);
      continue;
    }
    const { db, cleanup } = engine.prepare();
    try {
      const execArgv = cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [];
      let u, uAudit, k, kAudit;
      {
        const s = await startChild({ kind: 'usp', business: BUSINESS, db }, { execArgv });
        try {
          const before = await s.resetPeak();
          u = await uncontended(s.url, seconds, warm);
          const mem = await s.memory();
          u.cpuMsPerBooking = (mem.cpuMs - before.cpuMs) / u.allBooked;
          memory.push({ load: `${engine.name} bookings, ${CLIENTS} clients uncontended`, peakRss: mem.peakRss });
          uAudit = await s.rpc('audit');
        } finally {
          await s.stop();
        }
      }
      cleanup();
      const second = engine.prepare();
      try {
        const s = await startChild({ kind: 'usp', business: BUSINESS, db: second.db }, { execArgv });
        try {
          const before = await s.resetPeak();
          k = await contended(s.url, contendedSeconds);
          const mem = await s.memory();
          k.cpuMsPerAttempt = (mem.cpuMs - before.cpuMs) / k.attempts;
          memory.push({ load: `${engine.name} bookings, ${CLIENTS} clients on one slot`, peakRss: mem.peakRss });
          kAudit = await s.rpc('audit');
        } finally {
          await s.stop();
        }
      } finally {
        second.cleanup();
      }
      const uDoubles = uAudit.slotDoubles + uAudit.overlaps;
      const kDoubles = kAudit.slotDoubles + kAudit.overlaps + k.overbooked;
      doubleBookings += uDoubles + kDoubles;
      rows.push([
        engine.name,
        `uncontended: ${CLIENTS} clients, distinct slots`,
        fmt(u.rate, 0),
        `${fmtMs(u.booking.p50)} / ${fmtMs(u.booking.p99)}`,
        `${fmtMs(u.request.p50)} / ${fmtMs(u.request.p99)}`,
        `${fmt(u.booked, 0)} booked${u.failed ? `, ${u.failed} refused` : ''}`,
        `${fmtMs(u.cpuMsPerBooking)} per booking`,
        String(uDoubles),
      ]);
      rows.push([
        engine.name,
        `contended: ${CLIENTS} clients on one slot per round`,
        `${fmt(k.rate, 0)} (${fmt(k.attemptRate, 0)} attempts/s)`,
        `${fmtMs(k.attempt.p50)} / ${fmtMs(k.attempt.p99)} per attempt`,
        `${fmtMs(k.request.p50)} / ${fmtMs(k.request.p99)}`,
        `${fmt(k.rounds, 0)} rounds, ${fmt(k.booked, 0)} booked`,
        `${fmtMs(k.cpuMsPerAttempt)} per attempt`,
        String(kDoubles),
      ]);
      notes.push(
        `${engine.name} contended outcomes: ${Object.entries(k.outcomes).map(([o, n]) => `${o} ${fmt(n, 0)}`).join(', ')}. Audit after uncontended: ${uAudit.live} live bookings on ${uAudit.slots} slots; after contended: ${kAudit.live} on ${kAudit.slots}.`,
      );
      targets.push({
        name: `${engine.name}: bookings/s uncontended (hold + create)`,
        target: `≥ ${fmt(TARGET_BOOKINGS_PER_S, 0)}/s`,
        value: `${fmt(u.rate, 0)}/s (p99 ${fmtMs(u.booking.p99)})`,
        ok: u.rate >= TARGET_BOOKINGS_PER_S,
      });
      targets.push({ name: `${engine.name}: double bookings`, target: '0', value: String(uDoubles + kDoubles), ok: uDoubles + kDoubles === 0 });
      data[engine.name] = { uncontended: u, contended: k, audits: { uncontended: uAudit, contended: kAudit } };
    } catch (err) {
      cleanup();
      if (engine.name !== 'SQLite' && /postgres|ECONNREFUSED|connect/i.test(String(err))) {
        notes.push(`${engine.name}: skipped, the server could not use ${engine.name}: ${String(err.message ?? err).split('\n')[0]}`);
        rows.push([engine.name, 'skipped', '–', '–', '–', '–', '–', '–']);
        continue;
      }
      throw err;
    } finally {
      cleanup();
    }
  }
  notes.unshift(
    `Business: ${STAFF} staff, 15-minute slots 09:00–18:00 every day, a year ahead, free and auto-confirmed; the server is a child process (sandbox, clock pinned). Each client: its own profile, a new Idempotency-Key per request, HTTP keep-alive. A booking's latency is hold + create.`,
  );
  return {
    id: 'bookings',
    title: `4. Booking writes (REST, ${CLIENTS} concurrent clients)`,
    sections: [{ caption: 'Hold + create', header: ['engine', 'scenario', 'bookings/s', 'booking p50 / p99', 'request p50 / p99', 'count', 'server CPU', 'double bookings'], rows }],
    notes,
    targets,
    memory,
    doubleBookings,
    data,
  };
}
