#!/usr/bin/env node
/**
 * Where the booking p99 comes from: the uncontended SQLite booking load of bench/bookings.mjs
 * (64 clients over HTTP, distinct slots, a server child on a WAL file), with the child watching
 * itself (bench/server-child.mjs `stalls-start` / `stalls-stop`): its event loop's delay (the
 * length of a turn), every stall over 40 ms, every GC pause; each request's wait before the server
 * began reading it (from the client's `x-bench-sent` header, on the clock both processes share) and
 * its time inside the server; each write transaction's wait in the store's queue, its body and its
 * wait for the group COMMIT; each COMMIT's own length; the write-ahead log's size after each round.
 * Builds alternate round by round when USP_BENCH_BASE_DIST names another build (an A/B in one run).
 *
 *   node bench/write-path-tail.mjs [rounds=3] [ms=3000]
 *   USP_BENCH_BASE_DIST=/abs/dist node bench/write-path-tail.mjs 4 3000
 *   USP_BENCH_CHILD_ARGS='--cpu-prof --cpu-prof-dir=/tmp/p' node bench/write-path-tail.mjs 1
 */
import { loadavg } from 'node:os';
import { newStats, startSetup, uncontendedBurst } from './bookings.mjs';
import { fmt, summarize } from './lib.mjs';

const rounds = Number(process.argv[2] ?? 3);
const ms = Number(process.argv[3] ?? 3000);
const execArgv = (process.env.USP_BENCH_CHILD_ARGS ?? '').split(' ').filter(Boolean);
const builds = [{ name: 'this build' }];
if (process.env.USP_BENCH_BASE_DIST) builds.push({ name: 'base', dist: process.env.USP_BENCH_BASE_DIST });

console.log(
  `load average at start: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
const { monitorEventLoopDelay } = await import('node:perf_hooks');
const clientLoop = monitorEventLoopDelay({ resolution: 5 });
const setups = [];
for (const b of builds)
  setups.push(await startSetup({ name: b.name, engine: { kind: 'sqlite' }, dist: b.dist, execArgv }));
const acc = setups.map(() => ({
  st: newStats(),
  gaps: [],
  gcs: [],
  served: [],
  lags: [],
  commits: [],
  txs: { queued: [], body: [], commit: [] },
  delay: [],
  seconds: 0,
  cpuMs: 0,
}));
try {
  for (const s of setups) await uncontendedBurst(s, newStats(), 1000, { record: false });
  clientLoop.enable();
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < setups.length; k++) {
      const i = (r + k) % setups.length;
      const s = setups[i];
      s.client.fresh();
      await s.children[0].rpc('stalls-start', { gapMs: 40 });
      await uncontendedBurst(s, acc[i].st, ms);
      const m = await s.children[0].rpc('stalls-stop');
      acc[i].gaps.push(...m.gaps);
      acc[i].gcs.push(...m.gcs);
      acc[i].served.push(...m.served);
      acc[i].lags.push(...m.lags);
      acc[i].commits.push(...m.commits);
      console.log(`${s.name}: round ${r}: WAL ${m.walBytes} bytes, loop p99 ${fmt(m.delay.p99, 0)} ms`);
      for (const k of Object.keys(acc[i].txs)) acc[i].txs[k].push(...m.txs[k]);
      acc[i].delay.push(m.delay);
      acc[i].seconds += m.seconds;
    }
  }
  clientLoop.disable();
  console.log(
    `the client's own loop delay (all rounds): p50 ${fmt(clientLoop.percentile(50) / 1e6, 1)} p99 ${fmt(clientLoop.percentile(99) / 1e6, 1)} max ${fmt(clientLoop.max / 1e6, 0)} ms`,
  );
  for (let i = 0; i < setups.length; i++) {
    const a = acc[i];
    const b = summarize(a.st.lat);
    const q = summarize(a.st.requests);
    const gcBy = {};
    for (const g of a.gcs) {
      const e = (gcBy[g.kind] ??= { n: 0, ms: 0, max: 0 });
      e.n++;
      e.ms += g.ms;
      e.max = Math.max(e.max, g.ms);
    }
    const gapMs = a.gaps.reduce((t, g) => t + g.ms, 0);
    console.log(`\n== ${setups[i].name}`);
    console.log(
      `bookings/s ${fmt(a.st.booked / a.st.seconds, 0)}; booking p50 ${fmt(b.p50, 1)} p99 ${fmt(b.p99, 1)} ms;` +
        ` request p50 ${fmt(q.p50, 1)} p99 ${fmt(q.p99, 1)} ms; CPU ${fmt(a.st.cpuMs / a.st.booked, 2)} ms/booking`,
    );
    const lg = summarize(a.lags);
    console.log(
      `sent until the server began reading it: p50 ${fmt(lg.p50, 1)} p99 ${fmt(lg.p99, 1)} max ${fmt(lg.max ?? 0, 0)} ms`,
    );
    const cm = summarize(a.commits);
    const over = (ms) => a.commits.filter((c) => c > ms).length;
    console.log(
      `COMMIT: n ${cm.n} p50 ${fmt(cm.p50, 2)} p99 ${fmt(cm.p99, 1)} max ${fmt(cm.max ?? 0, 1)} ms, ${fmt(
        a.commits.reduce((t, c) => t + c, 0),
        0,
      )} ms in all; over 5 ms: ${over(5)}, over 20 ms: ${over(20)}`,
    );
    const sv = summarize(a.served);
    console.log(
      `request time inside the server: p50 ${fmt(sv.p50, 1)} p99 ${fmt(sv.p99, 1)} max ${fmt(sv.max ?? 0, 0)} ms`,
    );
    for (const [k, v] of Object.entries(a.txs)) {
      const x = summarize(v);
      console.log(
        `write transactions, ${k}: n ${x.n} p50 ${fmt(x.p50, 2)} p99 ${fmt(x.p99, 1)} max ${fmt(x.max ?? 0, 0)} ms`,
      );
    }
    console.log(
      `loop delay per round (p50/p99/max ms): ${a.delay.map((d) => `${fmt(d.p50, 1)}/${fmt(d.p99, 1)}/${fmt(d.max, 0)}`).join(', ')}`,
    );
    console.log(
      `stalls > 40 ms: ${a.gaps.length} (${fmt(gapMs, 0)} ms in ${fmt(a.seconds, 1)} s); longest: ${a.gaps
        .map((g) => g.ms)
        .sort((x, y) => y - x)
        .slice(0, 10)
        .join(', ')}`,
    );
    for (const [kind, e] of Object.entries(gcBy))
      console.log(`gc kind ${kind}: ${e.n} pauses, ${fmt(e.ms, 0)} ms in all, longest ${fmt(e.max, 1)} ms`);
  }
} finally {
  for (const s of setups) await s.stop();
}
