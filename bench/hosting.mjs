/**
 * Many businesses on one process (`usp-server host serve`, issue 39 item 7), against the issue's
 * floors: heap per idle loaded business under 50 KB with many loaded, the first request of a business
 * not yet loaded under 50 ms at the median, and bookings per second across many businesses at least
 * 0.9 of one business's. N copies of a generated business (50 staff, 15-minute slots a year ahead,
 * free, auto-confirmed; ids of their own) are hosted on one listener on SQLite in a temporary folder,
 * on a clock pinned to BENCH_NOW, rate limits off. Each gets one profile request (the first opens it:
 * its file, store and composition), timed; the heap is read after a full GC before and after. Then
 * bookings (POST /bookings on distinct slots, 16 clients, keep-alive) in interleaved rounds: all on
 * one business, or each on the next business in turn. With USP_BENCH_PG_URL (or DATABASE_URL) the same
 * again with every business in one PostgreSQL schema keyed by business (`host serve --pg-keyed`), in a
 * database made for the run (dropped after) as a role that is neither superuser nor BYPASSRLS.
 *
 * The measuring runs in a child process with --expose-gc (its heap is the hosting's alone):
 *   npm run build && node bench/hosting.mjs      (or `node bench/run.mjs --only=hosting`)
 *   USP_BENCH_HOSTED=N                           loaded businesses (full 1,000, quick 5)
 * Child only (`node --expose-gc bench/hosting.mjs --child`, prints one JSON line), for finding where a
 * booking's cost goes:
 *   USP_BENCH_DIST=path                          the build measured (default ../dist; A/B against another)
 *   USP_BENCH_HOSTED_PROBE=1                     count write transactions (BEGIN IMMEDIATE) per booking, each setup
 *   USP_BENCH_HOSTED_CPUPROF=dir                 a CPU profile of each timed burst, per setup (profile-summary.mjs)
 *   USP_BENCH_HOSTED_SETTLE=1                    count each burst's CPU until its checkpoints are done (full mode sets it)
 *   USP_BENCH_HOSTED_PG=url                      keyed PostgreSQL on the server `url` names, instead of SQLite files
 *   USP_BENCH_HOSTED_IDLE_MS=ms                  how long the idle CPU is measured (default 10 s)
 * The child always reports its own CPU per booking in each setup (server, workers and the 16 clients).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BENCH_NOW, fmt, fmtMs, fmtX, generatedBusiness, runDatabase, seedSlot, staffId } from './lib.mjs';

const HEAP_FLOOR_KB = 50;
const FIRST_FLOOR_MS = 50;
const RATIO_FLOOR = 0.9;
const CLIENTS = 16;

export async function run({ quick }) {
  // Issue 39 item 7 names 1,000 businesses active on one process.
  const n = Number(process.env.USP_BENCH_HOSTED ?? (quick ? 5 : 1000));
  // 500 per burst: at 200 the ratio moved by 0.15 between runs.
  const bookings = quick ? 20 : 1500;
  const pgUrl = process.env.USP_BENCH_PG_URL ?? process.env.DATABASE_URL;
  const engines = [
    ['SQLite, a file each', {}],
    ...(pgUrl ? [['PostgreSQL, one schema keyed by business', { USP_BENCH_HOSTED_PG: pgUrl }]] : []),
  ];
  const results = [];
  for (const [label, env] of engines) {
    const out = await new Promise((resolve, reject) =>
      execFile(
        process.execPath,
        ['--expose-gc', fileURLToPath(import.meta.url), '--child'],
        {
          env: {
            ...process.env,
            ...env,
            USP_BENCH_HOSTED: String(n),
            USP_BENCH_HOSTED_BOOKINGS: String(bookings),
            ...(quick ? { USP_BENCH_HOSTED_IDLE_MS: '200' } : { USP_BENCH_HOSTED_SETTLE: '1' }),
          },
          maxBuffer: 1 << 20,
        },
        (err, stdout, stderr) => (err ? reject(new Error(`hosting: ${err.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    results.push([label, JSON.parse(out.trim().split('\n').pop())]);
  }
  const targets = [];
  for (const [label, r] of results) {
    const ratio = r.bookings_per_s.many / r.bookings_per_s.one;
    const on = results.length > 1 ? ` (${label})` : '';
    targets.push(
      {
        name: `Heap per idle business, ${fmt(r.businesses, 0)} loaded on one process${on}`,
        target: `< ${HEAP_FLOOR_KB} KB`,
        value: `${fmt(r.heap_per_loaded_business_kb, 0)} KB`,
        ok: r.heap_per_loaded_business_kb < HEAP_FLOOR_KB,
      },
      {
        name: `First request of a business not yet loaded, median${on}`,
        target: `< ${FIRST_FLOOR_MS} ms`,
        value: fmtMs(r.first_request_ms.p50),
        ok: r.first_request_ms.p50 < FIRST_FLOOR_MS,
      },
      {
        name: `Bookings/s across ${fmt(r.businesses, 0)} businesses vs one${on}`,
        target: `>= ${RATIO_FLOOR}`,
        value: fmtX(ratio),
        ok: ratio >= RATIO_FLOOR,
      },
    );
  }
  return {
    id: 'hosting',
    title: '13. Many businesses on one process: what each loaded business costs',
    sections: results.map(([label, r]) => ({
      caption: `${fmt(r.businesses, 0)} businesses loaded on one process (${label})`,
      header: ['measure', 'value'],
      rows: [
        ['heap per idle loaded business', `${fmt(r.heap_per_loaded_business_kb, 0)} KB`],
        [
          'heap per loaded business after one booking each',
          r.heap_per_booked_business_kb === null ? 'n/a' : `${fmt(r.heap_per_booked_business_kb, 0)} KB`,
        ],
        ['RSS per idle loaded business', `${fmt(r.rss_per_loaded_business_kb / 1024, 2)} MB`],
        ['process CPU while every loaded business is idle', `${fmt(r.idle_cpu_ms_per_s, 1)} ms a second`],
        [
          `first request of a business not yet loaded (${r.engine === 'sqlite' ? 'its file made' : 'its seed rows written'}), p50 / p90 / max`,
          `${fmtMs(r.first_request_ms.p50)} / ${fmtMs(r.first_request_ms.p90)} / ${fmtMs(r.first_request_ms.max)}`,
        ],
        [
          'first request of a business closed and opened again, p50 / p90',
          `${fmtMs(r.reopened_first_request_ms.p50)} / ${fmtMs(r.reopened_first_request_ms.p90)}`,
        ],
        ['the first business of the process (modules, JIT)', fmtMs(r.first_business_ms)],
        ['bookings/s, all on one business', fmt(r.bookings_per_s.one, 0)],
        [`bookings/s, each on the next of ${fmt(r.businesses, 0)} businesses`, fmt(r.bookings_per_s.many, 0)],
        [
          `process CPU per booking, one / ${fmt(r.businesses, 0)}${!r.settled ? '' : r.engine === 'sqlite' ? ' (with its checkpoints, and every loaded business’s background work until they are done)' : ' (with every loaded business’s background work until the pause after its burst ends)'}`,
          `${fmtMs(r.cpu_ms_per_booking.one)} / ${fmtMs(r.cpu_ms_per_booking.many)}`,
        ],
      ],
    })),
    notes: [
      `Each business has its own store, workers, keys, pipeline and door instances (the route tables of the host, REST and MCP doors and the metrics registry are the process's; the dashboard, buyer pages, OAuth authorization server and store repositories are built on first use): docs/SCALING.md says where the heap goes. Heap and RSS: growth after a full GC from one loaded business to all of them, divided by their number. Idle CPU: the process's over ${quick ? '0.2' : '10'} s right after every business was loaded, with nobody asking anything (the work hub's asks, the checkpoint worker, timers). Bookings: ${fmt(bookings, 0)} per setup in 5 interleaved rounds, ${CLIENTS} clients, distinct slots, after one untimed round that books once on every business (so no timed booking is a business's first). PostgreSQL (when USP_BENCH_PG_URL is set): every business in one schema keyed by business under forced row-level security (\`host serve --pg-keyed\`), in a database made for the run, as a role that is neither superuser nor BYPASSRLS.`,
      ...results
        .filter(([, r]) => r.settled)
        .map(([label, r]) =>
          r.engine !== 'sqlite'
            ? `${label}: the same pause after each burst (no checkpoints of ours: the database's own background work falls in it), its CPU counted the same way. Bookings/s by round, one: ${r.bookings_per_s_by_round.one.map((x) => fmt(x, 0)).join(', ')}; many: ${r.bookings_per_s_by_round.many.map((x) => fmt(x, 0)).join(', ')}.`
            : `${label}: each burst is followed by ${fmt(r.settled / 1000, 1)} s for the checkpoints it caused (a quiet file is checkpointed once 8 commits wait or after 10 s, so across many businesses most of a burst's checkpoints come after it), so that they do not fall into the next setup's burst (without this pause the ratio read 0.90–1.05 across 1,000, the other setup paying for them); its CPU is counted over that pause too, with what every loaded business does meanwhile. The untimed round is followed by the same pause. Bookings/s by round, one: ${r.bookings_per_s_by_round.one.map((x) => fmt(x, 0)).join(', ')}; many: ${r.bookings_per_s_by_round.many.map((x) => fmt(x, 0)).join(', ')}.`,
        ),
    ],
    targets,
  };
}

/** One request with the given Host; resolves with its status and parsed body. */
function call(agent, port, host, method, path, body, profile) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = { host: `${host}:${port}`, 'usp-agent': `profile="${profile}"`, 'idempotency-key': randomUUID() };
    if (payload)
      Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(payload.length) });
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Counts write transactions (BEGIN IMMEDIATE runs) of every SQLite connection in this process, and the wall time in their COMMITs. */
async function writeProbe() {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(':memory:');
  const proto = Object.getPrototypeOf(db.prepare('SELECT 1'));
  db.close();
  const run = proto.run;
  const probe = { writes: 0, commitMs: 0 };
  proto.run = function (...args) {
    if (this.source === 'BEGIN IMMEDIATE') probe.writes++;
    if (this.source !== 'COMMIT') return run.apply(this, args);
    const t = performance.now();
    try {
      return run.apply(this, args);
    } finally {
      probe.commitMs += performance.now() - t;
    }
  };
  return probe;
}

/**
 * PostgreSQL: the queries the process sends, by kind (the first words of each, or what it is for), so
 * that a setup's queries per booking can be compared (`USP_BENCH_HOSTED_PROBE`).
 */
async function queryProbe() {
  const { default: pg } = await import('pg');
  const query = pg.Client.prototype.query;
  const probe = { queries: 0, kinds: new Map() };
  const kindOf = (text) =>
    /webhooks:expand/.test(text)
      ? 'expansion pass'
      : /INSERT INTO webhook_attempts/.test(text)
        ? "attempt's record"
        : /FOR UPDATE SKIP LOCKED/.test(text)
          ? 'claim'
          : /^SELECT pg_notify/.test(text)
            ? 'notify'
            : /^LISTEN|^UNLISTEN/.test(text)
              ? 'listen'
              : text.replace(/\s+/g, ' ').slice(0, 48);
  pg.Client.prototype.query = function (config, ...rest) {
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string') {
      probe.queries++;
      const k = kindOf(text);
      probe.kinds.set(k, (probe.kinds.get(k) ?? 0) + 1);
    }
    return query.call(this, config, ...rest);
  };
  return probe;
}

/** A CPU profile per timed burst, written to `dir` as `<setup>-<round>.cpuprofile`. */
async function profiler(dir) {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  return {
    start: () => session.post('Profiler.start'),
    async stop(name) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    },
  };
}

async function child() {
  const dist = process.env.USP_BENCH_DIST
    ? pathToFileURL(resolve(process.env.USP_BENCH_DIST)).href
    : new URL('../dist', import.meta.url).href;
  const { createHosting } = await import(`${dist}/server/hosting.js`);
  const { openDeploymentDirectory } = await import(`${dist}/store/index.js`);
  const { ManualClock } = await import(`${dist}/operations/index.js`);
  const { slotIdEncoder } = await import(`${dist}/domain/slot-id.js`);
  const probe = process.env.USP_BENCH_HOSTED_PROBE ? await writeProbe() : undefined;
  const pgProbe =
    process.env.USP_BENCH_HOSTED_PROBE && process.env.USP_BENCH_HOSTED_PG ? await queryProbe() : undefined;
  const prof = process.env.USP_BENCH_HOSTED_CPUPROF ? await profiler(process.env.USP_BENCH_HOSTED_CPUPROF) : undefined;
  const N = Number(process.env.USP_BENCH_HOSTED ?? 10);
  const { CHECKPOINT_MAX_DELAY_MS } = await import(`${dist}/store/sqlite/checkpointer.js`);
  const settleMs = process.env.USP_BENCH_HOSTED_SETTLE === '1' ? CHECKPOINT_MAX_DELAY_MS + 500 : 50;
  const BOOKINGS = Number(process.env.USP_BENCH_HOSTED_BOOKINGS ?? 40);
  const gc = globalThis.gc ?? (() => {});
  const quiet = { info() {}, warn() {}, error() {}, debug() {} };
  const dir = mkdtempSync(join(tmpdir(), 'usp-bench-hosting-'));
  const def = generatedBusiness({ staff: 50, maxAdvanceDays: 365 });
  const directory = openDeploymentDirectory(join(dir, 'deployment.db'));
  const pgBase = process.env.USP_BENCH_HOSTED_PG;
  const pgDb = pgBase
    ? await runDatabase(pgBase, 'usp_bench_hosting_app', `usp_bench_hosting_${process.pid}`)
    : undefined;
  for (let i = 0; i <= N; i++) {
    const file = join(dir, `b${i}.json`);
    writeFileSync(file, JSON.stringify({ ...def, business: { ...def.business, id: `biz_bench_${i}` } }));
    directory.add({ id: `biz_bench_${i}`, hosts: [`b${i}.localhost`], origin: file, addedAt: i });
  }
  const hosting = createHosting({
    directory,
    dataDir: dir,
    ...(pgDb ? { db: pgDb.url, pgKeyed: 'usp_keyed' } : {}),
    server: { sandbox: true, sweepIntervalMs: 0, clock: new ManualClock(BENCH_NOW), security: { rateLimits: false } },
    log: quiet,
    maxLoaded: N + 1,
    idleCloseMs: 0,
  });
  const port = new URL(await hosting.listen(0, '127.0.0.1')).port;
  // Keep-alive within a burst only: a socket left idle past the server's keep-alive timeout (a long
  // GC between phases at 1,000 businesses) is closed by it, and reusing it would be reset.
  let agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const get = async (i) => {
    const r = await call(
      false,
      port,
      `b${i}.localhost`,
      'GET',
      '/.well-known/usp',
      undefined,
      'https://platform.example/p.json',
    );
    if (r.status !== 200) throw new Error(`b${i}: ${r.status} ${r.body.slice(0, 200)}`);
  };
  // The first business pays for the process's warm-up (modules, JIT): measured apart.
  let t = performance.now();
  await get(0);
  const warmup = performance.now() - t;
  gc();
  const m0 = process.memoryUsage();
  const firsts = [];
  for (let i = 1; i <= N; i++) {
    t = performance.now();
    await get(i);
    firsts.push(performance.now() - t);
  }
  gc();
  const mN = process.memoryUsage();
  // What the loaded businesses cost while nobody asks anything: the work hub's passes over them, the
  // checkpoint worker, pools and timers (process CPU over 10 s, in ms per second).
  const idle0 = process.cpuUsage();
  const idleStarted = performance.now();
  await new Promise((r) => setTimeout(r, Number(process.env.USP_BENCH_HOSTED_IDLE_MS ?? 10_000)));
  const idleUsage = process.cpuUsage(idle0);
  const idleCpuMsPerS = (idleUsage.user + idleUsage.system) / (performance.now() - idleStarted);

  // Bookings: distinct slots of each business, consecutive ones on different days.
  const encoder = slotIdEncoder('svc_bench', [staffId(0)]);
  const encoders = new Map();
  const slotOf = (j) => {
    const s = seedSlot(j, 1, 360);
    const rid = staffId(s.staff);
    let e = encoders.get(rid);
    if (!e) encoders.set(rid, (e = rid === staffId(0) ? encoder : slotIdEncoder('svc_bench', [rid])));
    return e(s.startMs);
  };
  const next = new Map();
  const book = async (w, i) => {
    const j = next.get(i) ?? 0;
    next.set(i, j + 1);
    const buyer = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };
    const r = await call(
      agent,
      port,
      `b${i}.localhost`,
      'POST',
      '/bookings',
      { service_id: 'svc_bench', slot_id: slotOf(j), buyer },
      `https://platform-${w}.example/profile.json`,
    );
    if (r.status !== 201) throw new Error(`booking at b${i}: ${r.status} ${r.body.slice(0, 300)}`);
  };
  /** `count` bookings by CLIENTS workers; `target(k)` the business of the k-th; bookings per second. */
  const burst = async (count, target) => {
    let k = 0;
    agent.destroy();
    agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, w) => {
        while (k < count) await book(w, target(k++));
      }),
    );
    return count / ((performance.now() - started) / 1000);
  };
  let rr = 0;
  const many = () => 1 + (rr++ % N);
  // The untimed round books once on every business in turn, so that no timed booking is a business's
  // first (its statements prepared, its workers built); then the heap per business is measured again,
  // for businesses that took a booking. With fewer bookings than businesses (600 across 1,000) it once
  // stopped short, and two thirds of the timed bookings were first ones.
  await burst(Math.max(CLIENTS, N), many);
  gc();
  const mB = process.memoryUsage();
  await burst(CLIENTS, () => 1);
  // The untimed round's checkpoints (a thousand files, paced up to 10 s) must not fall into the first timed burst.
  await new Promise((r) => setTimeout(r, settleMs));
  // Five pairs: one burst moves by up to a fifth between runs on this machine.
  const rounds = 5;
  const rates = { one: [], many: [] };
  const cpuMs = { one: 0, many: 0 };
  const writes = { one: 0, many: 0 };
  const commitMs = { one: 0, many: 0 };
  const queries = { one: new Map(), many: new Map() };
  const perRound = Math.ceil(BOOKINGS / rounds);
  /** One timed burst; its CPU and (probed) write transactions, counted until the workers it woke settle. */
  const timed = async (setup, round, target) => {
    const w0 = probe?.writes ?? 0;
    const q0 = pgProbe ? new Map(pgProbe.kinds) : undefined;
    const m0 = probe?.commitMs ?? 0;
    await prof?.start();
    const c0 = process.cpuUsage();
    rates[setup].push(await burst(perRound, target));
    // The dispatcher's passes after the last bookings (5 ms debounce, then an attempt and its record),
    // and with USP_BENCH_HOSTED_SETTLE the checkpoints the burst caused (paced: up to 10 s later).
    await new Promise((r) => setTimeout(r, settleMs));
    const c = process.cpuUsage(c0);
    cpuMs[setup] += (c.user + c.system) / 1000;
    await prof?.stop(`${setup}-${round}`);
    writes[setup] += (probe?.writes ?? 0) - w0;
    if (pgProbe)
      for (const [k, n] of pgProbe.kinds) queries[setup].set(k, (queries[setup].get(k) ?? 0) + n - (q0.get(k) ?? 0));
    commitMs[setup] += (probe?.commitMs ?? 0) - m0;
  };
  for (let round = 0; round < rounds; round++) {
    await timed('one', round, () => 1);
    await timed('many', round, many);
  }
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

  // Closed and opened again from an existing store: no copy, no catalog import.
  await hosting.pool.closeAll();
  const reopens = [];
  for (let i = 1; i <= Math.min(N, 100); i++) {
    t = performance.now();
    await get(i);
    reopens.push(performance.now() - t);
  }
  const pctOf = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return (p) => Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]);
  };
  const pct = pctOf(firsts);
  const re = pctOf(reopens);
  agent.destroy();
  await hosting.close();
  await pgDb?.drop();
  rmSync(dir, { recursive: true, force: true });
  return {
    engine: pgDb ? 'postgres-keyed' : 'sqlite',
    businesses: N,
    first_business_ms: Math.round(warmup),
    first_request_ms: { p50: pct(0.5), p90: pct(0.9), max: pct(1) },
    reopened_first_request_ms: { p50: re(0.5), p90: re(0.9), max: re(1) },
    heap_per_loaded_business_kb: Math.round((mN.heapUsed - m0.heapUsed) / N / 1024),
    heap_per_booked_business_kb: Math.round((mB.heapUsed - m0.heapUsed) / N / 1024),
    idle_cpu_ms_per_s: idleCpuMsPerS,
    rss_per_loaded_business_kb: Math.round((mN.rss - m0.rss) / N / 1024),
    bookings: BOOKINGS,
    rounds,
    bookings_per_s: { one: mean(rates.one), many: mean(rates.many) },
    bookings_per_s_by_round: rates,
    cpu_ms_per_booking: { one: cpuMs.one / (perRound * rounds), many: cpuMs.many / (perRound * rounds) },
    settled: settleMs > 50 ? settleMs : 0,
    ...(probe
      ? {
          write_transactions_per_booking: {
            one: writes.one / (perRound * rounds),
            many: writes.many / (perRound * rounds),
          },
          commit_ms_per_booking: { one: commitMs.one / (perRound * rounds), many: commitMs.many / (perRound * rounds) },
          ...(pgProbe
            ? {
                queries_per_booking: Object.fromEntries(
                  ['one', 'many'].map((setup) => [
                    setup,
                    Object.fromEntries(
                      [...queries[setup]]
                        .map(([k, n]) => [k, Math.round((n / (perRound * rounds)) * 100) / 100])
                        .filter(([, n]) => n >= 0.05)
                        .sort((a, b) => b[1] - a[1]),
                    ),
                  ]),
                ),
              }
            : {}),
        }
      : {}),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--child')) {
    console.log(JSON.stringify(await child()));
    process.exit(0);
  } else {
    const r = await run({ quick: process.argv.includes('--quick') });
    console.log(JSON.stringify(r, null, 2));
  }
}
