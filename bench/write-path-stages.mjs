/**
 * What a booking costs, stage by stage: one server in this process (no sockets: requests go to its
 * app.fetch), hold + create through the REST routes from 16 concurrent workers (so SQLite's group
 * commit batches as under load), under V8's CPU profiler. Each profiler sample is given to the stage
 * of the innermost frame on its stack that belongs to one (authentication, idempotency, availability
 * check, rows inserted, outbox, mail queueing, webhook dispatch after commit, the transaction and
 * driver), the rest is the HTTP door, the pipeline and the benchmark's own requests. Samples are
 * taken on wall time, so a stage's milliseconds are its share of the samples times the process's CPU. Also: process
 * CPU per booking, and on PostgreSQL the database server's CPU per booking when its data directory
 * is given (USP_BENCH_PG_DATA: the postmaster and its children are read from /proc), and the
 * statements (SQLite) or round trips (PostgreSQL) per booking from the store's counter.
 *
 * USP_BENCH_INSTANCES=n (PostgreSQL) runs n servers on one schema in this process, each with its
 * own pool, dispatcher and LISTEN connection, worker w calling server w mod n: what more processes
 * cost the database per booking, and which statements they add (printed per booking, by kind).
 *
 * USP_BENCH_COUNT=0 runs without the statement counter (its cost is in the profile otherwise).
 * USP_BENCH_PROFILE=file.cpuprofile keeps the profile (bench/profile-summary.mjs reads it).
 *
 *   node bench/write-path-stages.mjs [sqlite | postgres://...] [bookings]
 */
import { Session } from 'node:inspector/promises';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import * as lib from './lib.mjs';

const target = process.argv[2] ?? 'sqlite';
const BOOKINGS = Number(process.argv[3] ?? 1600);
const WORKERS = 16;
const DIST = new URL(`${process.env.USP_BENCH_DIST ?? '../dist'}/`, import.meta.url).href;
const { createUspServer } = await import(`${DIST}server/compose.js`);
const { ManualClock, silentLogger } = await import(`${DIST}operations/index.js`);
const { slotIdEncoder } = await import(`${DIST}domain/slot-id.js`);

const dir = mkdtempSync(join(tmpdir(), 'wp-stages-'));
let db = join(dir, 'b.db');
if (target.startsWith('postgres')) {
  const u = new URL(target);
  u.searchParams.set('schema', `stages_${randomUUID().replace(/-/g, '').slice(0, 10)}`);
  db = u.toString();
}
let statements = 0;
const kinds = new Map();
const INSTANCES = target.startsWith('postgres') ? Number(process.env.USP_BENCH_INSTANCES ?? 1) : 1;
const servers = [];
for (let i = 0; i < INSTANCES; i++)
  servers.push(
    await createUspServer({
      business: lib.generatedBusiness({ staff: 50, interval: 15, duration: 15, maxAdvanceDays: 365 }),
      db,
      sandbox: true,
      clock: new ManualClock(lib.BENCH_NOW),
      log: silentLogger,
      sweepIntervalMs: 0,
      security: { rateLimits: false },
      // The counter asks the driver for each statement's expanded text: USP_BENCH_COUNT=0 profiles without it.
      onDbStatement:
        process.env.USP_BENCH_COUNT === '0'
          ? undefined
          : (sql) => {
              statements++;
              const kind = sql
                .replace(/\s+/g, ' ')
                .replace(/'[^']*'/g, "'?'")
                .slice(0, 70);
              kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
            },
    }),
  );

const encoders = new Map();
let j = 0;
const post = async (path, body, w) => {
  const r = await servers[w % servers.length].app.fetch(
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
async function run(count) {
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, w) => {
      for (let k = 0; k < count / WORKERS; k++) {
        const slot = lib.seedSlot(j++, 1, 300);
        const rid = lib.staffId(slot.staff);
        let e = encoders.get(rid);
        if (!e) encoders.set(rid, (e = slotIdEncoder('svc_bench', [rid])));
        const id = e(slot.startMs);
        const h = await post('/availability/holds', { service_id: 'svc_bench', slot_id: id }, w);
        if (h.status !== 201) throw new Error(JSON.stringify(h.body).slice(0, 200));
        const b = await post(
          '/bookings',
          {
            service_id: 'svc_bench',
            slot_id: id,
            hold_id: h.body.hold.id,
            buyer: { first_name: 'A', last_name: 'B', email: 'a@example.com' },
          },
          w,
        );
        if (b.status !== 201) throw new Error(JSON.stringify(b.body).slice(0, 200));
      }
    }),
  );
}

/** CPU ticks (user + system) of the PostgreSQL cluster whose data directory is given: the postmaster and its children. */
function pgTicks() {
  const data = process.env.USP_BENCH_PG_DATA;
  if (!data || !target.startsWith('postgres')) return undefined;
  const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let ticks = 0;
  for (const p of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const f = readFileSync(`/proc/${p}/stat`, 'utf8')
        .slice(readFileSync(`/proc/${p}/stat`, 'utf8').lastIndexOf(')') + 2)
        .split(' ');
      // fields after the name: state(0) ppid(1) ... utime(11) stime(12)
      if (Number(p) === postmaster || Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
    } catch {
      /* gone */
    }
  }
  return ticks;
}

/** The stage of one stack frame, or undefined. */
function stageOf(url, fn) {
  const u = url.replace(/^file:\/\//, '');
  if (/\/operations\/authenticate\.js$/.test(u) || (/\/security\//.test(u) && !/credentials\.js$/.test(u)))
    return 'authentication';
  if (/\/store\/\w+\/idempotency\.js$/.test(u) || fn === 'hashOf') return 'idempotency';
  if (/\/store\/\w+\/mail\.js$/.test(u) || /\/steps\/mail-messages\.js$/.test(u)) return 'mail queueing';
  if (/\/store\/\w+\/outbox\.js$/.test(u)) return 'outbox (webhook queueing)';
  if (/\/webhooks\//.test(u) || /\/outbox\//.test(u)) return 'webhook dispatch (after commit)';
  if (/\/store\/\w+\/claims\.js$/.test(u) && fn === 'active') return 'availability check';
  if (/\/store\/\w+\/admin-repo\.js$/.test(u) || /\/steps\/slots\.js$/.test(u) || /\/domain\//.test(u))
    return 'availability check';
  if (/\/store\/\w+\/(bookings|holds|claims|documents|security)\.js$/.test(u) || /\/security\/credentials\.js$/.test(u))
    return 'rows inserted';
  if (/\/store\/(sqlite\/(sqlite-store|statements)|postgres\/(postgres-store|session))\.js$/.test(u))
    return 'transaction and driver';
  if (/node_modules\/(pg|pg-protocol|pg-pool|better-sqlite3)\//.test(u)) return 'transaction and driver';
  return undefined;
}

await run(WORKERS * 20); // warm up
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 250 });
statements = 0;
kinds.clear();
const ticks0 = pgTicks();
const c0 = process.cpuUsage();
const t0 = performance.now();
await session.post('Profiler.start');
await run(BOOKINGS);
const { profile } = await session.post('Profiler.stop');
if (process.env.USP_BENCH_PROFILE) writeFileSync(process.env.USP_BENCH_PROFILE, JSON.stringify(profile));
const wall = performance.now() - t0;
const cpu = process.cpuUsage(c0);
const ticks1 = pgTicks();

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const memo = new Map();
const stageOfNode = (id) => {
  if (memo.has(id)) return memo.get(id);
  const n = byId.get(id);
  const own = stageOf(n.callFrame.url, n.callFrame.functionName);
  const s = own ?? (parent.has(id) ? stageOfNode(parent.get(id)) : undefined);
  memo.set(id, s);
  return s;
};
const time = new Map();
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const n = byId.get(profile.samples[i]);
  const d = profile.timeDeltas[i] ?? 0;
  if (n.callFrame.functionName === '(idle)' || n.callFrame.functionName === '(program)') continue;
  const s =
    n.callFrame.functionName === '(garbage collector)'
      ? 'garbage collection'
      : (stageOfNode(n.id) ?? 'HTTP door, pipeline, bench requests');
  time.set(s, (time.get(s) ?? 0) + d);
  total += d;
}
const cpuMs = (cpu.user + cpu.system) / 1000;
console.log(
  `${target.startsWith('postgres') ? `PostgreSQL, ${INSTANCES} server${INSTANCES > 1 ? 's' : ''}` : 'SQLite'}: ${BOOKINGS} bookings (hold + create) in ${(wall / 1000).toFixed(1)} s, ${WORKERS} workers`,
);
console.log(
  `  process CPU per booking: ${(cpuMs / BOOKINGS).toFixed(2)} ms (system ${(cpu.system / 1000 / BOOKINGS).toFixed(2)} ms); ${target.startsWith('postgres') ? 'round trips' : 'statements'} per booking: ${(statements / BOOKINGS).toFixed(1)}`,
);
if (ticks0 !== undefined)
  console.log(`  PostgreSQL server CPU per booking: ${((((ticks1 - ticks0) / 100) * 1000) / BOOKINGS).toFixed(2)} ms`);
for (const [s, t] of [...time].sort((a, b) => b[1] - a[1]))
  console.log(
    `  ${s.padEnd(36)} ${((100 * t) / total).toFixed(1).padStart(5)} %  ${((t / total) * (cpuMs / BOOKINGS)).toFixed(3)} ms/booking`,
  );
if (process.env.USP_BENCH_KINDS) {
  for (const [k, n] of [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 30))
    console.log(`    ${(n / BOOKINGS).toFixed(2).padStart(6)}  ${k}`);
}
for (const usp of servers) await usp.close();
rmSync(dir, { recursive: true, force: true });
if (target.startsWith('postgres')) {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: target });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${new URL(db).searchParams.get('schema')} CASCADE`);
  await c.end();
}
