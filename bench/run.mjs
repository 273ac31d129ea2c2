#!/usr/bin/env node
/**
 * Runs every benchmark, prints a table, and (in full mode) writes docs/BENCHMARKS.md.
 *
 *   npm run bench                      full mode (~4-5 minutes on the 2-core bench machine)
 *   node bench/run.mjs --quick         each benchmark for a fraction of a second: checks it runs (CI)
 *   node bench/run.mjs --only=rest,mcp run some of them (slots, mcp, rest, bookings, security, registry, avail, mcpmem, flow, payments, mail, views, calendars, tenancy, hosting, cli)
 *   node bench/run.mjs --cpu-prof      also write CPU profiles of the server children to bench/profiles/
 *   node bench/run.mjs --write         write docs/BENCHMARKS.md in quick mode too
 *   node bench/run.mjs --no-write      never write it (experiments with --only)
 *
 * Benchmarks import the compiled code from dist/ (npm run bench builds first). A failed check
 * (an error, or any double booking) exits non-zero; a missed performance target does not.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { ROOT, fmtMb, mdTable, textTable } from './lib.mjs';
import { ANALYSIS } from './analysis.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const write = (!quick || args.includes('--write')) && !args.includes('--no-write');
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');
const cpuProf = args.includes('--cpu-prof') ? join(ROOT, 'bench/profiles') : undefined;
if (cpuProf) {
  mkdirSync(cpuProf, { recursive: true });
  writeFileSync(join(cpuProf, '.gitignore'), '*\n');
}

/** Issue 40 item 5: peak RSS at 64 connections. */
const MEMORY_TARGET_BYTES = 150 * 1024 * 1024;
const MODULES = [
  ['slots', './slots.mjs'],
  ['mcp', './mcp.mjs'],
  ['rest', './rest.mjs'],
  ['bookings', './bookings.mjs'],
  ['security', './security.mjs'],
  ['registry', './registry.mjs'],
  ['avail', './availability-cache.mjs'],
  ['mcpmem', './mcp-memory.mjs'],
  ['flow', './assistant-flow.mjs'],
  ['payments', './payments.mjs'],
  ['mail', './mail.mjs'],
  ['views', './views.mjs'],
  ['calendars', './calendars.mjs'],
  ['tenancy', './tenancy.mjs'],
  ['hosting', './hosting.mjs'],
  ['cli', './cli-start.mjs'],
];

const started = new Date();
const load0 = os.loadavg();
const t0 = Date.now();
const results = [];
const failures = [];
for (const [id, path] of MODULES) {
  if (only && !only.includes(id)) continue;
  const t = Date.now();
  process.stderr.write(`bench: ${id}${quick ? ' (quick)' : ''} ...`);
  try {
    const mod = await import(path);
    const r = await mod.run({ quick, cpuProf });
    r.seconds = (Date.now() - t) / 1000;
    results.push(r);
    process.stderr.write(` ${r.seconds.toFixed(1)} s\n`);
  } catch (err) {
    process.stderr.write(' FAILED\n');
    console.error(err);
    failures.push(`${id}: ${err?.message ?? err}`);
  }
}
const load1 = os.loadavg();
const totalSeconds = (Date.now() - t0) / 1000;

// ---- 6. memory, gathered from the servers of the other benchmarks ------------------------------
const memoryRows = results.flatMap((r) => r.memory ?? []);
if (memoryRows.length > 0) {
  const worst = memoryRows.reduce((a, b) => (b.peakRss > a.peakRss ? b : a));
  const at64 = memoryRows.filter((m) => /64 (connections|clients)/.test(m.load));
  const worst64 = at64.length ? at64.reduce((a, b) => (b.peakRss > a.peakRss ? b : a)) : worst;
  results.push({
    id: 'memory',
    title: '6. Peak server memory (RSS) under each load',
    sections: [
      {
        caption: 'Peak RSS',
        header: ['load', 'peak RSS', 'at the highest sample: V8 heap (used / reserved)', 'outside the V8 heap'],
        rows: memoryRows.map((m) => [
          m.load,
          m.peakRss ? fmtMb(m.peakRss) : 'n/a',
          m.atPeak ? `${fmtMb(m.atPeak.heapUsed)} / ${fmtMb(m.atPeak.heapTotal)}` : '',
          m.atPeak ? fmtMb(m.atPeak.rss - m.atPeak.heapTotal) : '',
        ]),
      },
    ],
    notes: [
      "The kernel's exact peak (VmHWM), restarted before each load by writing 5 to /proc/PID/clear_refs (server children do it themselves; the stdio server is reset from outside). In-memory SQLite for REST and MCP loads (the database lives in the RSS); a WAL file for the booking loads. The MCP loads are 3,300 sequential calls each.",
      "What the peak is made of, where a server child reports it: its highest RSS sample (every 20 ms) split into the V8 heap (used, and reserved: heapTotal) and everything outside it (code, buffers, sockets, and SQLite's page caches: 16 MB for each of a file's two connections).",
    ],
    targets: [
      {
        name: 'Peak RSS at 64 connections',
        target: '< 150 MB',
        value: `${fmtMb(worst64.peakRss)} (${worst64.load})`,
        ok: worst64.peakRss < MEMORY_TARGET_BYTES,
      },
    ],
  });
}

// ---- output -----------------------------------------------------------------------------------
const doubleBookings = results.reduce((n, r) => n + (r.doubleBookings ?? 0), 0);
if (doubleBookings > 0) failures.push(`${doubleBookings} double booking(s)`);

const status = (ok) => (ok === null || ok === undefined ? 'info' : ok ? 'met' : 'MISSED');
const targetRows = results.flatMap((r) => r.targets ?? []).map((t) => [t.name, t.target, t.value, status(t.ok)]);

const env = {
  date: started.toISOString(),
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
  node: process.version,
  platform: `${os.type()} ${os.release()} ${os.arch()}`,
  memory: fmtMb(os.totalmem()),
  load: `${load0.map((l) => l.toFixed(2)).join(' / ')} at start, ${load1.map((l) => l.toFixed(2)).join(' / ')} at end (1/5/15 min)`,
};

console.log('');
console.log(`usp-server benchmarks${quick ? ' (QUICK: smoke run, figures are not meaningful)' : ''}`);
console.log(`${env.date}  ${env.cpu}  ×${env.cores}  Node ${env.node}  load ${env.load}`);
for (const r of results) {
  console.log(`\n== ${r.title}`);
  for (const s of r.sections) {
    console.log(`-- ${s.caption}`);
    console.log(textTable(s.header, s.rows));
  }
  for (const n of r.notes ?? []) console.log(`   ${n}`);
}
console.log('\n== Targets');
console.log(textTable(['target', 'goal', 'measured', 'status'], targetRows));
console.log(`\ntotal ${totalSeconds.toFixed(1)} s`);

if (write && failures.length === 0) {
  const md = [];
  md.push('# Benchmarks', '');
  md.push(
    'Generated by `npm run bench` (bench/run.mjs); do not edit by hand: rerun it (the sections after Running are written by hand, and a rerun keeps them). The code under test is the compiled `dist/`; every benchmark lives in `bench/` as one module.',
    '',
  );
  md.push('| | |', '| --- | --- |');
  md.push(
    `| date | ${env.date} |`,
    `| CPU | ${env.cpu} |`,
    `| cores | ${env.cores} |`,
    `| Node | ${env.node} |`,
    `| OS | ${env.platform} |`,
    `| memory | ${env.memory} |`,
    `| load average | ${env.load} |`,
  );
  md.push(
    `| mode | ${quick ? 'quick (smoke run: figures not meaningful)' : 'full'}, ${totalSeconds.toFixed(0)} s in all |`,
    '',
  );
  md.push(
    load0[0] < 1
      ? `A quiet machine: the load average was ${load0[0].toFixed(2)} over the minute before the start, and the run is the only work started on it. Throughput and tail latency still move between runs on a 2-core VM; figures that do not depend on that are given where they matter: ratios measured in interleaved rounds (security, MCP) and server CPU time per request (REST, bookings).`
      : 'The bench machine is shared: other processes (test runs) were active during the run, which shows up as noise in throughput and tail latency. Figures that do not depend on it are given where they matter: ratios measured in interleaved rounds (security, MCP) and server CPU time per request (REST, bookings).',
    '',
  );
  md.push('## Targets', '', mdTable(['target', 'goal', 'measured', 'status'], targetRows), '');
  for (const r of results) {
    md.push(`## ${r.title}`, '');
    for (const s of r.sections) md.push(`${s.caption}:`, '', mdTable(s.header, s.rows), '');
    for (const n of r.notes ?? []) md.push(`- ${n}`);
    md.push('');
  }
  md.push(WHERE_WE_STAND(results), '');
  md.push(
    '## Running',
    '',
    '```',
    'npm run bench                      # full run, rewrites this file',
    'node bench/run.mjs --quick         # smoke run (CI): each benchmark for a fraction of a second',
    'node bench/run.mjs --only=rest      # some of them: slots, mcp, rest, bookings, security, registry, avail, mcpmem, flow, payments, mail, views, calendars, tenancy, hosting, cli',
    'USP_BENCH_BASE_DIST=/path/to/old/dist node bench/run.mjs --only=mcpmem --no-write   # memory per idle MCP session, this build against an older one',
    'node bench/run.mjs --cpu-prof      # CPU profiles of the server children in bench/profiles/',
    'node bench/profile-summary.mjs bench/profiles/X.cpuprofile   # top functions of a profile',
    'USP_BENCH_PG_URL=postgres://... npm run bench   # adds PostgreSQL (1 and 3 processes, a fresh schema each) to the booking benchmark',
    'USP_BENCH_BASE_DIST=/path/to/old/dist node bench/run.mjs --only=bookings --no-write   # this build against an older one, interleaved',
    'USP_BENCH_SCALE=0 node bench/run.mjs --only=bookings --no-write   # leave out the 0 / 10,000 / 100,000 bookings part',
    'USP_BENCH_PG_URL=postgres://... node bench/run.mjs --only=tenancy --no-write   # many businesses: both storage designs per engine (USP_BENCH_TENANTS=10000 on PostgreSQL by default), and provisioning through the product keyed (USP_BENCH_PROVISION=10000)',
    'USP_BENCH_HOSTED=1000 node bench/run.mjs --only=hosting --no-write   # many businesses loaded on one process (full 1,000 by default)',
    '```',
    '',
  );
  md.push(...handWrittenSections());
  writeFileSync(join(ROOT, 'docs/BENCHMARKS.md'), md.join('\n'));
  console.log('wrote docs/BENCHMARKS.md');
}

if (failures.length > 0) {
  console.error(`\nbench FAILED: ${failures.join('; ')}`);
  process.exitCode = 1;
}

/** "Where we stand": the targets missed in this run, then the profiling findings (bench/analysis.mjs). */
function WHERE_WE_STAND(res) {
  const lines = ['## Where we stand', ''];
  const missed = res.flatMap((r) => (r.targets ?? []).filter((t) => t.ok === false));
  lines.push(
    missed.length === 0
      ? 'Every target is met in this run.'
      : `Missed in this run: ${missed.map((t) => t.name).join('; ')}.`,
    '',
  );
  lines.push(...ANALYSIS);
  return lines.join('\n');
}

/**
 * Sections written by hand after "## Running" (measurements this script does not make, such as
 * "What a model reads"): carried over from the current docs/BENCHMARKS.md unchanged, so a rerun
 * never drops them.
 */
function handWrittenSections() {
  const path = join(ROOT, 'docs/BENCHMARKS.md');
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, 'utf8').split('\n');
  const running = lines.indexOf('## Running');
  if (running < 0) return [];
  const next = lines.findIndex((l, i) => i > running && l.startsWith('## '));
  if (next < 0) return [];
  const kept = lines.slice(next);
  while (kept.length > 0 && kept[kept.length - 1] === '') kept.pop();
  return [...kept, ''];
}
