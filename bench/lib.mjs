/**
 * Shared helpers for the benchmarks: statistics, a generated business, child-process servers
 * and small formatting utilities. Plain ESM over the compiled code in dist/.
 */
import { fork } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBusinessFile } from '../dist/server/business-file.js';
import { localToUtcMs } from '../dist/domain/time.js';

export const ROOT = join(import.meta.dirname, '..');

/** Tuesday 2026-12-01 12:00 in New York (17:00Z), the instant the test suite pins its clock to. */
export const BENCH_NOW = Date.parse('2026-12-01T17:00:00Z');
export const ZONE = 'America/New_York';
export const PLATFORM = 'https://platform.example/profiles/bench-agent.json';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

// ---------------------------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------------------------

/** Percentile by nearest rank over an unsorted array (copied and sorted). */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function summarize(samples) {
  const sorted = Float64Array.from(samples).sort();
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    n: sorted.length,
    mean: sum / sorted.length,
    p50: at(50),
    p90: at(90),
    p99: at(99),
    min: sorted[0],
    max: sorted[sorted.length - 1],
  };
}

/** Elapsed milliseconds as a float from a process.hrtime.bigint() start. */
export const msSince = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
export const now = () => process.hrtime.bigint();

/**
 * Runs `fn` repeatedly for about `ms` milliseconds (at least `minIter` times) after `warmup`
 * calls, returning per-call timings in milliseconds. `batch` calls are timed together when one
 * call is too short for the timer (the per-call figure is then the batch mean).
 */
export function timeLoop(fn, { ms, warmup = 0, minIter = 5, batch = 1 }) {
  for (let i = 0; i < warmup; i++) fn();
  const samples = [];
  const deadline = Date.now() + ms;
  while (samples.length < minIter || Date.now() < deadline) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6 / batch);
  }
  return samples;
}

// ---------------------------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------------------------

export function fmt(v, digits = 2) {
  if (v === undefined || v === null || Number.isNaN(v)) return '–';
  if (typeof v !== 'number') return String(v);
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  if (Math.abs(v) >= 100) return v.toFixed(Math.max(0, digits - 2));
  if (Math.abs(v) >= 10) return v.toFixed(Math.max(0, digits - 1));
  return v.toFixed(digits);
}

export const fmtUs = (ms) => `${fmt(ms * 1000, 1)} µs`;
export const fmtMs = (ms) => `${fmt(ms, 2)} ms`;
export const fmtX = (r) => `${fmt(r, 2)}×`;
export const fmtMb = (bytes) => `${fmt(bytes / 1048576, 1)} MB`;

/** A Markdown table from a header row and rows of cells. */
export function mdTable(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** A plain-text table for the terminal. */
export function textTable(header, rows) {
  const all = [header, ...rows].map((r) => r.map((c) => String(c)));
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
  return [line(all[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)].join('\n');
}

export const verdict = (ok) => (ok ? 'met' : 'MISSED');

// ---------------------------------------------------------------------------------------------
// Businesses
// ---------------------------------------------------------------------------------------------

export function demoBusinessDef() {
  const raw = JSON.parse(readFileSync(join(ROOT, 'src/server/demo-business.json'), 'utf8'));
  return parseBusinessFile(raw, 'demo-business.json');
}

/**
 * A generated business: one appointment service (`svc_bench`) deliverable by any of `staff`
 * staff members, each working `opens`–`closes` every day, `interval` minutes between slot starts,
 * `duration` minutes long, bookable `maxAdvanceDays` ahead. Validated by the real business-file parser.
 */
export function generatedBusiness({
  staff = 10,
  interval = 15,
  duration = 15,
  opens = '09:00',
  closes = '18:00',
  maxAdvanceDays = 60,
  price = 0,
} = {}) {
  const resources = [];
  for (let i = 0; i < staff; i++) {
    const schedule = {};
    for (const d of WEEKDAYS) schedule[d] = [{ opens, closes }];
    resources.push({
      id: `res_staff_${String(i).padStart(3, '0')}`,
      type: 'staff',
      name: `Staff ${i}`,
      location_id: 'loc_main',
      schedule,
    });
  }
  const raw = {
    business: {
      id: 'biz_bench',
      name: 'Bench Studio',
      timezone: ZONE,
      currency: 'USD',
      locations: [{ id: 'loc_main', name: 'Bench Studio Main', address: '1 Bench Street, New York, NY 10001' }],
    },
    settings: { public_url: 'http://localhost:8787', max_query_days: 31, max_active_holds_per_buyer: 3 },
    resources,
    services: [
      {
        id: 'svc_bench',
        name: 'Bench Appointment',
        type: 'appointment',
        status: 'active',
        description: { plain: 'A generated appointment for benchmarks.' },
        duration: { fixed: `PT${duration}M` },
        // `price` (minor units): paid online when booking, else free.
        pricing: price > 0 ? { model: 'fixed', amount: price, currency: 'USD' } : { model: 'free', currency: 'USD' },
        channel: { type: 'at_business_location' },
        policies: {
          cancellation: { allowed: true },
          rescheduling: { allowed: true },
          booking_window: { min_advance: 'PT0M', max_advance: `P${maxAdvanceDays}D`, slot_interval: `PT${interval}M` },
          confirmation_mode: 'auto',
          ...(price > 0 ? { requires_payment: true, payment_timing: 'at_booking' } : { requires_payment: false }),
        },
        requirements: [{ type: 'staff', name: 'Staff', selectable: true, resource_ids: resources.map((r) => r.id) }],
        location_ids: ['loc_main'],
      },
    ],
  };
  return parseBusinessFile(raw, 'generated-bench-business');
}

/**
 * The date `n` days after BENCH_NOW's, for servers whose clock is pinned to BENCH_NOW (startChild,
 * in-process servers with a ManualClock). Never hand it to a process on the real clock (the stdio
 * server, the CLI): once the day passes it has no slots. test/architecture/real-clock-children.test.ts
 * keeps that rule.
 */
export function benchDate(n) {
  return new Date(BENCH_NOW + n * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The business-zone (America/New_York) date `n` days after `nowMs`: the day to ask a process on the
 * real clock about (`usp-server mcp --demo` over stdio). A child inherits this process's clock,
 * faketime included, so `Date.now()` here is the child's clock.
 */
export function liveDate(n, nowMs = Date.now()) {
  return new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(nowMs + n * 86_400_000),
  );
}

/** Resource id of the n-th staff member of generatedBusiness(). */
export const staffId = (n) => `res_staff_${String(n).padStart(3, '0')}`;

/** Slots per staff member per day in the booking benchmark's business (09:00-18:00, every 15 minutes). */
export const BENCH_SLOTS_PER_DAY = 36;
export const BENCH_STAFF = 50;

const opens = new Map();
/** 09:00 local on bench day n, as epoch ms. */
function openingMs(day) {
  let o = opens.get(day);
  if (o === undefined) opens.set(day, (o = localToUtcMs(benchDate(day), '09:00', ZONE)));
  return o;
}

/**
 * The i-th slot of the days [firstDay, firstDay + days), enumerated so consecutive ones land on
 * different days (each day fills slowly): { day, staff, startMs }.
 */
export function seedSlot(i, firstDay, days) {
  const day = firstDay + (i % days);
  const k = Math.floor(i / days);
  const staff = k % BENCH_STAFF;
  const slot = Math.floor(k / BENCH_STAFF);
  if (slot >= BENCH_SLOTS_PER_DAY) throw new Error('bench: ran out of distinct slots');
  return { day, staff, startMs: openingMs(day) + slot * 15 * 60_000 };
}

// ---------------------------------------------------------------------------------------------
// Child-process servers (bench/server-child.mjs)
// ---------------------------------------------------------------------------------------------

/**
 * Forks bench/server-child.mjs with `config` and resolves once it listens. The handle talks to the
 * child over IPC: `rpc(type, payload)` sends one request and resolves with its reply.
 */
export async function startChild(config, { execArgv = [], env = {} } = {}) {
  const child = fork(join(ROOT, 'bench/server-child.mjs'), [JSON.stringify(config)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv,
    env: { ...process.env, ...env },
  });
  let seq = 0;
  const pending = new Map();
  let readyResolve, readyReject;
  const ready = new Promise((res, rej) => ((readyResolve = res), (readyReject = rej)));
  child.on('message', (m) => {
    if (m.type === 'ready') return readyResolve(m);
    if (m.type === 'error') return readyReject(new Error(m.message));
    const p = pending.get(m.seq);
    if (p) {
      pending.delete(m.seq);
      if (m.error) p.reject(new Error(m.error));
      else p.resolve(m.result);
    }
  });
  const exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })));
  let stopping = false;
  exited.then(({ code, signal }) => {
    readyReject(new Error('server child exited before it was ready'));
    if (!stopping)
      process.stderr.write(`\nbench: server child ${child.pid} exited unexpectedly (code ${code}, signal ${signal})\n`);
  });
  const info = await ready;
  const rpc = (type, payload = {}) =>
    new Promise((resolve, reject) => {
      const s = ++seq;
      pending.set(s, { resolve, reject });
      child.send({ type, seq: s, ...payload });
    });
  return {
    url: info.url,
    pid: child.pid,
    child,
    rpc,
    /** Restart peak tracking from the current RSS. */
    resetPeak: () => rpc('reset-peak'),
    /** { peakRss, rss, heapUsed } in bytes since the last reset. */
    memory: () => rpc('memory'),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      stopping = true;
      child.send({ type: 'stop', seq: ++seq });
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Peak RSS (VmHWM) of any process of ours, in bytes; null when /proc is not there. */
export function procPeakRss(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Reset a process's peak RSS to its current RSS (Linux: `5` into /proc/PID/clear_refs). */
export function procResetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Sleeps `ms` milliseconds. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * CPU ticks (user + system, 1/100 s) of the PostgreSQL cluster whose data directory is given, per
 * process: the postmaster and its children, read from /proc (Linux). `pgTicksSince` gives the ticks
 * spent since such a reading.
 */
export function pgClusterTicks(dataDir) {
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const ticks = new Map();
  for (const p of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      // fields after the name: state(0) ppid(1) ... utime(11) stime(12)
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(p) === postmaster || Number(f[1]) === postmaster) ticks.set(p, Number(f[11]) + Number(f[12]));
    } catch {
      /* gone */
    }
  }
  return ticks;
}

/**
 * The cluster's CPU ticks since the reading `before`, per process so that a backend that exited
 * meanwhile (another client's connection closing) takes nothing away: what it spent after `before`
 * is lost, so this is a lower bound when connections close during the interval.
 */
export function pgTicksSince(dataDir, before) {
  let ticks = 0;
  for (const [p, t] of pgClusterTicks(dataDir)) ticks += t - (before.get(p) ?? 0);
  return ticks;
}

/** The 1-, 5- and 15-minute load averages, for a benchmark's report (the machine is shared). */
export const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/**
 * A database of a run's own on the server `base` names, owned by `role` (made if missing, neither
 * superuser nor BYPASSRLS, so the keyed store's row-level security applies as in production), with
 * the extensions the store needs (created as `base`'s user: they are not trusted extensions). Its URL
 * for the role (`url`) and for `base`'s user (`ownerUrl`), and `drop()`.
 */
export async function runDatabase(base, role, name) {
  const { default: pg } = await import('pg');
  const at = (database, user) => {
    const u = new URL(base);
    u.pathname = `/${database}`;
    if (user) u.username = user;
    return u.toString();
  };
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE ${role} LOGIN NOSUPERUSER NOBYPASSRLS; END IF;
  END $$`);
  await admin.query(`CREATE DATABASE ${name} OWNER ${role}`);
  const inDb = new pg.Client({ connectionString: at(name) });
  await inDb.connect();
  try {
    await inDb.query('CREATE EXTENSION btree_gist WITH SCHEMA public; CREATE EXTENSION pg_trgm WITH SCHEMA public');
  } finally {
    await inDb.end();
  }
  return {
    url: at(name, role),
    ownerUrl: at(name),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
