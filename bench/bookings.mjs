/**
 * Benchmark 4: booking writes over real HTTP (REST), hold + create, per storage engine, and how
 * booking and availability latency change with the bookings already in the database.
 *
 * A generated business (50 staff, 15-minute slots 09:00-18:00 every day, bookable a year ahead,
 * free, auto-confirmed) served by bench/server-child.mjs in sandbox mode, clock pinned, rate limits
 * off (`--no-rate-limit`: 64 clients share one address). 64 concurrent clients, each with its own
 * platform profile (the per-platform hold limit never trips) and a fresh Idempotency-Key on every
 * request (no idempotency conflicts):
 *
 *  - uncontended: every client books distinct slots: POST /availability/holds then POST /bookings
 *    with the hold. Slots are spread round-robin over days 1-180, so each day fills slowly.
 *  - contended: rounds in which all 64 clients go for the SAME slot at once (days 181-360), half
 *    through a hold and half booking directly; exactly one booking per round may succeed.
 *
 * Afterwards the server audits its store (bench/server-child.mjs `audit`): live bookings
 * (pending, requires_action, confirmed, in_progress) counted per slot and per resource interval.
 * Any slot with two is a double booking, and must never happen.
 *
 * Engines: SQLite (a WAL file in the temp directory, as deployed). PostgreSQL runs when
 * USP_BENCH_PG_URL (or DATABASE_URL) names a database: each setup gets a fresh schema (dropped
 * afterwards), and one server process is measured against three on one database, in interleaved
 * rounds so that machine load falls on both alike. USP_BENCH_BASE_DIST=path/to/an/older/dist adds
 * the same SQLite run against that build, interleaved, for a before/after ratio.
 *
 * Scale: three SQLite databases holding 0, 10,000 and 100,000 existing bookings (bench/server-child.mjs
 * `seed`, on days 1-330), measured in interleaved rounds: bookings on days 336-360 (64 clients) and
 * sequential availability queries of one day among days 331-335. USP_BENCH_SCALE=0 leaves this part out,
 * USP_BENCH_SCALE=only runs nothing else.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { slotIdEncoder } from '../dist/domain/slot-id.js';
import { benchDate, fmt, fmtMs, fmtX, seedSlot, staffId, startChild, summarize } from './lib.mjs';

const CLIENTS = 64;
/** Issue 40 item 5: 3,000 bookings/s (hold + create, 64 clients) with p99 under 50 ms. */
const TARGET_BOOKINGS_PER_S = 3000;
const TARGET_P99_MS = 50;
/** Latency at 100,000 existing bookings within this factor of an empty database counts as flat. */
const FLAT_FACTOR = 1.25;
const BUSINESS = { staff: 50, interval: 15, duration: 15, maxAdvanceDays: 365 };
const BUYER = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };
// Scale: the seeded bookings lie BEFORE the measured days, so every lookup of a measured day has
// the whole history of its resources below it in the claims index (the case a scan would pay for).
const DAYS = {
  uncontended: [1, 180],
  contended: [181, 180],
  seed: [1, 330],
  scaleAvailability: [331, 5],
  scaleBookings: [336, 25],
};

/** Slot ids of svc_bench over `days` days from `firstDay`, enumerated so consecutive ones land on different days. */
function slotSource([firstDay, days]) {
  const encoders = new Map();
  let j = 0;
  return () => {
    const s = seedSlot(j++, firstDay, days);
    const rid = staffId(s.staff);
    let e = encoders.get(rid);
    if (!e) encoders.set(rid, (e = slotIdEncoder('svc_bench', [rid])));
    return e(s.startMs);
  };
}

/** HTTP client over one or more server processes: worker w talks to urls[w % urls.length]. */
function client(urls) {
  const targets = urls.map((u) => new URL(u));
  let agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const latencies = [];
  const request = (w, method, path, body, profile) =>
    new Promise((resolve, reject) => {
      const url = targets[w % targets.length];
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      // x-bench-sent: when the client sent it, on the clock both processes share (bench/write-path-tail.mjs).
      const headers = {
        'usp-agent': `profile="${profile}"`,
        'idempotency-key': randomUUID(),
        'x-bench-sent': String(performance.timeOrigin + performance.now()),
      };
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
      req.on('error', (err) =>
        reject(new Error(`bookings: ${method} ${path} on ${url.host}: ${err.message}`, { cause: err })),
      );
      req.end(payload);
    });
  return {
    request,
    latencies,
    /** Drop idle keep-alive connections: a server closes them after its keep-alive timeout while another setup's round runs. */
    fresh() {
      agent.destroy();
      agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    },
    close: () => agent.destroy(),
  };
}

const code = (res) => res.body?.messages?.find((m) => m.type === 'error')?.code;
const profileOf = (w) => `https://platform-${w}.example/profile.json`;

/** Hold then book one slot; returns 'booked', or the outcome code that stopped it. */
async function holdAndBook(c, w, slotId) {
  const h = await c.request(
    w,
    'POST',
    '/availability/holds',
    { service_id: 'svc_bench', slot_id: slotId },
    profileOf(w),
  );
  if (h.status !== 201) {
    if (h.status === 200 && code(h)) return code(h);
    throw new Error(`bookings: hold answered ${h.status}: ${JSON.stringify(h.body).slice(0, 300)}`);
  }
  return book(c, w, slotId, h.body.hold.id);
}

async function book(c, w, slotId, holdId) {
  const b = await c.request(
    w,
    'POST',
    '/bookings',
    { service_id: 'svc_bench', slot_id: slotId, ...(holdId ? { hold_id: holdId } : {}), buyer: BUYER },
    profileOf(w),
  );
  if (b.status === 201) {
    if (b.body.booking?.status !== 'confirmed')
      throw new Error(`bookings: booking is ${b.body.booking?.status}, expected confirmed`);
    return 'booked';
  }
  if (b.status === 200 && code(b)) return code(b);
  throw new Error(`bookings: create answered ${b.status}: ${JSON.stringify(b.body).slice(0, 300)}`);
}

// ---------------------------------------------------------------------------------------------
// Setups: one or more server processes on one database
// ---------------------------------------------------------------------------------------------

/** A scratch database for one setup: a temp SQLite file, or a fresh schema in the PostgreSQL database. */
function scratch(engine) {
  if (engine.kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'usp-bench-'));
    return { db: join(dir, 'bench.db'), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const u = new URL(engine.url);
  u.searchParams.set('schema', schema);
  return {
    db: u.toString(),
    cleanup: async () => {
      const c = new pg.Client({ connectionString: engine.url });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}

export async function startSetup({ name, engine, processes = 1, dist, execArgv = [], seed = 0 }) {
  const { db, cleanup } = scratch(engine);
  const children = [];
  try {
    // The first process creates the schema; the others start together on it.
    children.push(
      await startChild(
        { kind: 'usp', business: BUSINESS, db },
        { execArgv, env: dist ? { USP_BENCH_DIST: dist } : {} },
      ),
    );
    children.push(
      ...(await Promise.all(
        Array.from({ length: processes - 1 }, () =>
          startChild({ kind: 'usp', business: BUSINESS, db }, { execArgv, env: dist ? { USP_BENCH_DIST: dist } : {} }),
        ),
      )),
    );
    if (seed > 0) await children[0].rpc('seed', { count: seed, firstDay: DAYS.seed[0], days: DAYS.seed[1] });
  } catch (err) {
    for (const c of children) await c.stop();
    await cleanup();
    throw err;
  }
  const c = client(children.map((ch) => ch.url));
  return {
    name,
    processes,
    seed,
    children,
    client: c,
    next: {
      uncontended: slotSource(DAYS.uncontended),
      contended: slotSource(DAYS.contended),
      scale: slotSource(DAYS.scaleBookings),
    },
    async cpuMs() {
      let t = 0;
      for (const ch of children) t += (await ch.memory()).cpuMs;
      return t;
    },
    async resetPeak() {
      for (const ch of children) await ch.resetPeak();
    },
    async peakRss() {
      let m = 0;
      for (const ch of children) m = Math.max(m, (await ch.memory()).peakRss);
      return m;
    },
    /** The peak RSS of the process that peaked highest, and what its highest sample was made of. */
    async peak() {
      let best = { peakRss: 0 };
      for (const ch of children) {
        const m = await ch.memory();
        if (m.peakRss > best.peakRss) best = m;
      }
      return { peakRss: best.peakRss, atPeak: best.atPeak ?? undefined };
    },
    audit: () => children[0].rpc('audit'),
    async stop() {
      c.close();
      for (const ch of children) await ch.stop();
      await cleanup();
    },
  };
}

/** Accumulated figures of one setup over its interleaved rounds. */
export const newStats = () => ({
  booked: 0,
  refused: 0,
  attempts: 0,
  rounds: 0,
  overbooked: 0,
  seconds: 0,
  cpuMs: 0,
  lat: [],
  requests: [],
  outcomes: {},
});

/** Uncontended: `clients` workers book distinct slots for `ms`. */
export async function uncontendedBurst(setup, st, ms, { clients = CLIENTS, record = true } = {}) {
  const cpu0 = await setup.cpuMs();
  const req0 = setup.client.latencies.length;
  const deadline = Date.now() + ms;
  const t0 = process.hrtime.bigint();
  let booked = 0;
  const next = setup.seed > 0 || setup.scale ? setup.next.scale : setup.next.uncontended;
  await Promise.all(
    Array.from({ length: clients }, async (_, w) => {
      while (Date.now() < deadline) {
        const a = process.hrtime.bigint();
        const outcome = await holdAndBook(setup.client, w, next());
        if (outcome === 'booked') {
          booked++;
          if (record) st.lat.push(Number(process.hrtime.bigint() - a) / 1e6);
        } else if (record) st.refused++;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = (await setup.cpuMs()) - cpu0;
  const reqs = setup.client.latencies.splice(req0);
  if (!record) return;
  st.booked += booked;
  st.seconds += seconds;
  st.cpuMs += cpu;
  st.requests.push(...reqs);
}

/** Contended: rounds of all clients going for one slot, until `ms` has passed. */
async function contendedBurst(setup, st, ms) {
  const cpu0 = await setup.cpuMs();
  const req0 = setup.client.latencies.length;
  const deadline = Date.now() + ms;
  const t0 = process.hrtime.bigint();
  do {
    const slotId = setup.next.contended();
    st.rounds++;
    const results = await Promise.all(
      Array.from({ length: CLIENTS }, async (_, w) => {
        const a = process.hrtime.bigint();
        const outcome = w % 2 === 0 ? await holdAndBook(setup.client, w, slotId) : await book(setup.client, w, slotId);
        st.lat.push(Number(process.hrtime.bigint() - a) / 1e6);
        return outcome;
      }),
    );
    st.attempts += results.length;
    const wins = results.filter((o) => o === 'booked').length;
    st.booked += wins;
    if (wins > 1) st.overbooked += wins - 1;
    for (const o of results) st.outcomes[o] = (st.outcomes[o] ?? 0) + 1;
  } while (Date.now() < deadline);
  st.seconds += Number(process.hrtime.bigint() - t0) / 1e9;
  st.cpuMs += (await setup.cpuMs()) - cpu0;
  st.requests.push(...setup.client.latencies.splice(req0));
}

/** Sequential availability queries of one day (days 1-5 in turn) for `ms`. */
async function availabilityBurst(setup, st, ms) {
  const deadline = Date.now() + ms;
  let i = 0;
  while (Date.now() < deadline) {
    const d = benchDate(DAYS.scaleAvailability[0] + (i++ % DAYS.scaleAvailability[1]));
    const a = process.hrtime.bigint();
    const r = await setup.client.request(
      0,
      'POST',
      '/availability/query',
      { service_id: 'svc_bench', start_date: d, end_date: d },
      profileOf(0),
    );
    if (r.status !== 200 || !Array.isArray(r.body.slots))
      throw new Error(`bookings: availability answered ${r.status}`);
    st.lat.push(Number(process.hrtime.bigint() - a) / 1e6);
  }
  setup.client.latencies.length = 0;
}

/** Run `burst` on every setup, `rounds` times, rotating which goes first. */
async function interleave(setups, rounds, burst) {
  const stats = setups.map(() => newStats());
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < setups.length; k++) {
      const i = (r + k) % setups.length;
      setups[i].client.fresh();
      await burst(setups[i], stats[i]);
    }
  }
  return stats;
}

// ---------------------------------------------------------------------------------------------

/** The storage engines to run; add one here and it gets both scenarios and the audit. */
export function engines() {
  const url = process.env.USP_BENCH_PG_URL ?? process.env.DATABASE_URL;
  return [
    { name: 'SQLite', kind: 'sqlite' },
    {
      name: 'PostgreSQL',
      kind: 'postgres',
      url,
      skip: url ? null : 'skipped: set USP_BENCH_PG_URL (or DATABASE_URL) to a scratch database to run it',
    },
  ];
}

const rate = (st) => st.booked / st.seconds;

function uncontendedRow(name, st, doubles) {
  const b = summarize(st.lat);
  const r = summarize(st.requests);
  return [
    name,
    `uncontended: ${CLIENTS} clients, distinct slots`,
    fmt(rate(st), 0),
    `${fmtMs(b.p50)} / ${fmtMs(b.p99)}`,
    `${fmtMs(r.p50)} / ${fmtMs(r.p99)}`,
    `${fmt(st.booked, 0)} booked${st.refused ? `, ${st.refused} refused` : ''}`,
    `${fmtMs(st.cpuMs / st.booked)} per booking`,
    doubles === undefined ? '–' : String(doubles),
  ];
}

function contendedRow(name, st, doubles) {
  const a = summarize(st.lat);
  const r = summarize(st.requests);
  return [
    name,
    `contended: ${CLIENTS} clients on one slot per round`,
    `${fmt(rate(st), 0)} (${fmt(st.attempts / st.seconds, 0)} attempts/s)`,
    `${fmtMs(a.p50)} / ${fmtMs(a.p99)} per attempt`,
    `${fmtMs(r.p50)} / ${fmtMs(r.p99)}`,
    `${fmt(st.rounds, 0)} rounds, ${fmt(st.booked, 0)} booked`,
    `${fmtMs(st.cpuMs / st.attempts)} per attempt`,
    String(doubles),
  ];
}

const auditDoubles = (a) => a.slotDoubles + a.overlaps;
const SKIP_SCALE = Symbol('scale skipped');

export async function run({ quick, cpuProf }) {
  const execArgv = cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [];
  const t = quick
    ? {
        warm: 100,
        burst: 300,
        rounds: 1,
        fight: 200,
        pgBurst: 300,
        pgRounds: 1,
        scaleRounds: 1,
        scaleBurst: 200,
        availability: 100,
        seeds: [0, 100, 1000],
      }
    : {
        warm: 1000,
        burst: 2000,
        rounds: 4,
        fight: 1250,
        pgBurst: 2000,
        pgRounds: 3,
        scaleRounds: 6,
        scaleBurst: 1000,
        availability: 600,
        seeds: [0, 10_000, 100_000],
      };
  const rows = [];
  const targets = [];
  const notes = [];
  const memory = [];
  const data = {};
  let doubleBookings = 0;

  for (const engine of process.env.USP_BENCH_SCALE === 'only' ? [] : engines()) {
    if (engine.skip) {
      notes.push(`${engine.name}: ${engine.skip}.`);
      rows.push([engine.name, 'skipped', '–', '–', '–', '–', '–', '–']);
      continue;
    }
    // SQLite: one process (the driver is synchronous; a second process would only queue on the
    // file lock), against the previous build when one is given. PostgreSQL: one process against three.
    const variants =
      engine.kind === 'sqlite'
        ? [
            { name: 'SQLite', processes: 1 },
            ...(process.env.USP_BENCH_BASE_DIST
              ? [{ name: 'SQLite, previous build', processes: 1, dist: process.env.USP_BENCH_BASE_DIST }]
              : []),
          ]
        : [
            { name: 'PostgreSQL, 1 process', processes: 1 },
            { name: 'PostgreSQL, 3 processes', processes: 3 },
          ];
    const setups = [];
    try {
      for (const v of variants) setups.push(await startSetup({ ...v, engine, execArgv }));
      const burstMs = engine.kind === 'sqlite' ? t.burst : t.pgBurst;
      const rounds = engine.kind === 'sqlite' ? t.rounds : t.pgRounds;
      for (const s of setups) await uncontendedBurst(s, newStats(), t.warm, { record: false });
      for (const s of setups) await s.resetPeak();
      const u = await interleave(setups, rounds, (s, st) => uncontendedBurst(s, st, burstMs));
      for (const s of setups)
        memory.push({ load: `${s.name} bookings, ${CLIENTS} clients uncontended`, ...(await s.peak()) });
      for (const s of setups) await s.resetPeak();
      const k = await interleave(setups, rounds, (s, st) => contendedBurst(s, st, t.fight));
      for (const s of setups)
        memory.push({ load: `${s.name} bookings, ${CLIENTS} clients on one slot`, ...(await s.peak()) });
      for (let i = 0; i < setups.length; i++) {
        const audit = await setups[i].audit();
        const doubles = auditDoubles(audit) + k[i].overbooked;
        doubleBookings += doubles;
        rows.push(uncontendedRow(setups[i].name, u[i], doubles), contendedRow(setups[i].name, k[i], doubles));
        notes.push(
          `${setups[i].name}: contended outcomes ${Object.entries(k[i].outcomes)
            .map(([o, n]) => `${o} ${fmt(n, 0)}`)
            .join(
              ', ',
            )}; audit: ${fmt(audit.live, 0)} live bookings on ${fmt(audit.slots, 0)} slots, ${auditDoubles(audit)} double.`,
        );
        data[setups[i].name] = {
          uncontended: { rate: rate(u[i]), booking: summarize(u[i].lat), cpuMsPerBooking: u[i].cpuMs / u[i].booked },
          contended: { rate: rate(k[i]), attempts: k[i].attempts, outcomes: k[i].outcomes },
          audit,
        };
        targets.push({
          name: `${setups[i].name}: double bookings`,
          target: '0',
          value: String(doubles),
          ok: doubles === 0,
        });
      }
      if (engine.kind === 'sqlite') {
        const p99 = summarize(u[0].lat).p99;
        targets.unshift({
          name: 'SQLite: bookings/s uncontended (hold + create), p99',
          target: `≥ ${fmt(TARGET_BOOKINGS_PER_S, 0)}/s, p99 < ${TARGET_P99_MS} ms`,
          value: `${fmt(rate(u[0]), 0)}/s (p99 ${fmtMs(p99)})`,
          ok: rate(u[0]) >= TARGET_BOOKINGS_PER_S && p99 < TARGET_P99_MS,
        });
        if (setups.length > 1) {
          targets.push({
            name: 'SQLite: this build ÷ previous build, bookings/s and CPU per booking',
            target: '(reported)',
            value: `${fmtX(rate(u[0]) / rate(u[1]))} bookings/s, ${fmtX(u[0].cpuMs / u[0].booked / (u[1].cpuMs / u[1].booked))} CPU per booking`,
            ok: null,
          });
        }
      } else {
        targets.push({
          name: 'PostgreSQL: 3 processes ÷ 1 process, bookings/s uncontended',
          target: '(reported: 2 cores)',
          value: `${fmtX(rate(u[1]) / rate(u[0]))} (${fmt(rate(u[1]), 0)} vs ${fmt(rate(u[0]), 0)}/s)`,
          ok: null,
        });
        // Issue 40's scale-out target is cost, not throughput (this machine has 2 cores): server CPU per
        // booking with three processes within 1.2× of one. PostgreSQL's own CPU is measured by
        // bench/write-path-stages.mjs (USP_BENCH_PG_DATA), not here.
        const perBooking = (st) => st.cpuMs / st.booked;
        targets.push({
          name: 'PostgreSQL: 3 processes ÷ 1 process, server CPU per booking',
          target: '≤ 1.2×',
          value: `${fmtX(perBooking(u[1]) / perBooking(u[0]))} (${fmtMs(perBooking(u[1]))} vs ${fmtMs(perBooking(u[0]))})`,
          ok: perBooking(u[1]) / perBooking(u[0]) <= 1.2,
        });
        if (data.SQLite) {
          const ratio = perBooking(u[0]) / data.SQLite.uncontended.cpuMsPerBooking;
          targets.push({
            name: 'PostgreSQL ÷ SQLite, server CPU per booking (1 process)',
            target: '≤ 2×',
            value: `${fmtX(ratio)} (${fmtMs(perBooking(u[0]))} vs ${fmtMs(data.SQLite.uncontended.cpuMsPerBooking)})`,
            ok: ratio <= 2,
          });
        }
        targets.push({
          name: 'PostgreSQL: 3 processes ÷ 1 process, contended rounds/s',
          target: '(reported)',
          value: `${fmtX(k[1].rounds / k[1].seconds / (k[0].rounds / k[0].seconds))}`,
          ok: null,
        });
      }
    } catch (err) {
      if (engine.kind !== 'sqlite' && /postgres|ECONNREFUSED|connect/i.test(String(err))) {
        notes.push(
          `${engine.name}: skipped, the server could not use it: ${String(err.message ?? err).split('\n')[0]}`,
        );
        rows.push([engine.name, 'skipped', '–', '–', '–', '–', '–', '–']);
        continue;
      }
      throw err;
    } finally {
      for (const s of setups) await s.stop();
    }
  }
  notes.unshift(
    `Business: ${BUSINESS.staff} staff, 15-minute slots 09:00–18:00 every day, a year ahead, free and auto-confirmed; servers are child processes (sandbox, clock pinned, rate limits off as with --no-rate-limit). Each client: its own profile, a new Idempotency-Key per request, HTTP keep-alive. A booking's latency is hold + create. Setups of one engine run in interleaved rounds (${t.rounds} × ${t.burst / 1000} s uncontended, then ${t.rounds} × ${t.fight / 1000} s contended, SQLite; ${t.pgRounds} × ${t.pgBurst / 1000} s, PostgreSQL), so load from other processes falls on each alike; a PostgreSQL setup's server CPU is the sum over its processes (the database server's own CPU is not counted).`,
  );

  // ---- scale in the data ----------------------------------------------------------------------
  const scaleRows = [];
  const scaleSetups = [];
  try {
    // With a previous build, each size runs on both builds too (interleaved with the rest).
    const builds = [
      { label: '', dist: undefined },
      ...(process.env.USP_BENCH_BASE_DIST
        ? [{ label: ', previous build', dist: process.env.USP_BENCH_BASE_DIST }]
        : []),
    ];
    for (const build of builds) {
      for (const n of process.env.USP_BENCH_SCALE === '0' ? [] : t.seeds) {
        const s = await startSetup({
          name: `SQLite${build.label}, ${fmt(n, 0)} existing bookings`,
          engine: { kind: 'sqlite' },
          seed: n,
          execArgv,
          dist: build.dist,
        });
        s.scale = true;
        s.build = build.label;
        scaleSetups.push(s);
      }
    }
    for (const s of scaleSetups) await uncontendedBurst(s, newStats(), t.warm, { record: false });
    for (const s of scaleSetups) await availabilityBurst(s, newStats(), t.warm / 2);
    const b = await interleave(scaleSetups, t.scaleRounds, (s, st) => uncontendedBurst(s, st, t.scaleBurst));
    const a = await interleave(scaleSetups, t.scaleRounds, (s, st) => availabilityBurst(s, st, t.availability));
    if (scaleSetups.length === 0) throw SKIP_SCALE;
    for (let i = 0; i < scaleSetups.length; i++) {
      // Each build against its own empty database.
      const e = scaleSetups.findIndex((s) => s.build === scaleSetups[i].build);
      const base = { b: summarize(b[e].lat), a: summarize(a[e].lat) };
      const audit = await scaleSetups[i].audit();
      doubleBookings += auditDoubles(audit);
      const bs = summarize(b[i].lat);
      const as = summarize(a[i].lat);
      scaleRows.push([
        `${fmt(scaleSetups[i].seed, 0)}${scaleSetups[i].build}`,
        `${fmtMs(bs.p50)} / ${fmtMs(bs.p99)}`,
        fmtX(bs.p50 / base.b.p50),
        fmt(rate(b[i]), 0),
        fmtMs(b[i].cpuMs / b[i].booked),
        `${fmtMs(as.p50)} / ${fmtMs(as.p99)}`,
        fmtX(as.p50 / base.a.p50),
        `${fmt(audit.live, 0)} live, ${auditDoubles(audit)} double`,
      ]);
      data[scaleSetups[i].name] = { booking: bs, availability: as, cpuMsPerBooking: b[i].cpuMs / b[i].booked, audit };
    }
    const last = t.seeds.length - 1;
    const bRatio = summarize(b[last].lat).p50 / summarize(b[0].lat).p50;
    const aRatio = summarize(a[last].lat).p50 / summarize(a[0].lat).p50;
    targets.push({
      name: `SQLite: latency at ${fmt(scaleSetups[last].seed, 0)} existing bookings ÷ at 0 (p50)`,
      target: `≤ ${fmtX(FLAT_FACTOR)}`,
      value: `booking ${fmtX(bRatio)}, availability ${fmtX(aRatio)}`,
      ok: bRatio <= FLAT_FACTOR && aRatio <= FLAT_FACTOR,
    });
  } catch (err) {
    if (err !== SKIP_SCALE) throw err;
    notes.push('Scale: skipped (USP_BENCH_SCALE=0).');
  } finally {
    for (const s of scaleSetups) await s.stop();
  }

  return {
    id: 'bookings',
    title: `4. Booking writes (REST, ${CLIENTS} concurrent clients)`,
    sections: [
      {
        caption: 'Hold + create',
        header: [
          'setup',
          'scenario',
          'bookings/s',
          'booking p50 / p99',
          'request p50 / p99',
          'count',
          'server CPU',
          'double bookings',
        ],
        rows,
      },
      {
        caption: 'Scale in the data (SQLite, interleaved rounds)',
        header: [
          'existing bookings',
          'booking p50 / p99',
          'p50 ÷ empty',
          'bookings/s',
          'server CPU per booking',
          'availability p50 / p99 (one day)',
          'p50 ÷ empty',
          'audit',
        ],
        rows: scaleRows,
      },
    ],
    notes: [
      ...notes,
      `Scale: existing bookings are written straight into the store as the server writes them (a booking, its converted hold, its claim, its two outbox events, two idempotency records and two credentials each, its due events marked dispatched in the same transaction) on days ${DAYS.seed[0]}–${DAYS.seed[0] + DAYS.seed[1] - 1}; new bookings go to days ${DAYS.scaleBookings[0]}–${DAYS.scaleBookings[0] + DAYS.scaleBookings[1] - 1} (${CLIENTS} clients, ${t.scaleRounds} × ${t.scaleBurst / 1000} s), availability asks for one of days ${DAYS.scaleAvailability[0]}–${DAYS.scaleAvailability[0] + DAYS.scaleAvailability[1] - 1} (sequential, ${t.scaleRounds} × ${t.availability / 1000} s), so each database does the same work and only its size differs. Server CPU per booking is the server process's whole CPU over the booking rounds (its webhook dispatcher and checkpoints included).${process.env.USP_BENCH_BASE_DIST ? ' Rows marked "previous build" run USP_BENCH_BASE_DIST on the same seeds, interleaved with the rest; each ratio is against that build\'s empty database.' : ''}`,
    ],
    targets,
    memory,
    doubleBookings,
    data,
  };
}
