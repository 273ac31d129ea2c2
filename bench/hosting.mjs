/**
 * Hosting many businesses in one process (`usp-server host serve`, issue 39), the first step: what
 * one more LOADED business costs when each is composed whole (its own store, workers, keys, OAuth,
 * dashboard), and how long the first request of a business not yet loaded takes. N copies of the
 * Nord Studio fixture (ids of their own) are hosted on one listener on SQLite in a temporary folder;
 * each gets one profile request (the first composes it), timed; the heap is read after a full GC
 * every step. Run from the built tree: `npm run build && node --expose-gc bench/hosting.mjs`
 * (USP_BENCH_HOSTED=N, default 40).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHosting } from '../dist/server/hosting.js';
import { openDeploymentDirectory } from '../dist/store/index.js';

const N = Number(process.env.USP_BENCH_HOSTED ?? 40);
const gc = globalThis.gc ?? (() => {});
const quiet = { info() {}, warn() {}, error() {} };

function get(port, host, path) {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, path, headers: { Host: `${host}:${port}` }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    r.on('error', reject);
    r.end();
  });
}

const dir = mkdtempSync(join(tmpdir(), 'usp-bench-hosting-'));
const fixture = JSON.parse(readFileSync(new URL('../test/fixtures/hosting/nord-studio.json', import.meta.url), 'utf8'));
const directory = openDeploymentDirectory(join(dir, 'deployment.db'));
for (let i = 0; i < N + 1; i++) {
  const file = join(dir, `b${i}.json`);
  writeFileSync(file, JSON.stringify({ ...fixture, business: { ...fixture.business, id: `biz_bench_${i}` } }));
  directory.add({ id: `biz_bench_${i}`, hosts: [`b${i}.localhost`], origin: file, addedAt: i });
}
const hosting = createHosting({ directory, dataDir: dir, server: { sandbox: true, sweepIntervalMs: 0 }, log: quiet, maxLoaded: N + 1, idleCloseMs: 0 });
const port = new URL(await hosting.listen(0, '127.0.0.1')).port;
// The first business pays for the process's warm-up (modules, JIT): measured apart.
let t = performance.now();
await get(port, 'b0.localhost', '/.well-known/usp');
const warmup = performance.now() - t;
gc();
const heap0 = process.memoryUsage().heapUsed;
const rss0 = process.memoryUsage().rss;
const firsts = [];
for (let i = 1; i <= N; i++) {
  t = performance.now();
  const status = await get(port, `b${i}.localhost`, '/.well-known/usp');
  firsts.push(performance.now() - t);
  if (status !== 200) throw new Error(`b${i}: ${status}`);
}
gc();
const heapN = process.memoryUsage().heapUsed;
const rssN = process.memoryUsage().rss;
t = performance.now();
for (let i = 1; i <= N; i++) await get(port, `b${i}.localhost`, '/.well-known/usp');
const warm = (performance.now() - t) / N;
// Closed (evicted) and opened again from an existing store: no migration, no catalog import.
await hosting.pool.closeAll();
const reopens = [];
for (let i = 1; i <= N; i++) {
  t = performance.now();
  await get(port, `b${i}.localhost`, '/.well-known/usp');
  reopens.push(performance.now() - t);
}
const pctOf = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return (p) => Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]);
};
const pct = pctOf(firsts);
const re = pctOf(reopens);
console.log(
  JSON.stringify(
    {
      businesses: N,
      first_business_ms: Math.round(warmup),
      first_request_ms: { p50: pct(0.5), p90: pct(0.9), max: pct(1) },
      reopened_first_request_ms: { p50: re(0.5), p90: re(0.9), max: re(1) },
      warm_request_ms: Number(warm.toFixed(2)),
      heap_per_loaded_business_kb: Math.round((heapN - heap0) / N / 1024),
      rss_per_loaded_business_kb: Math.round((rssN - rss0) / N / 1024),
    },
    null,
    2,
  ),
);
await hosting.close();
rmSync(dir, { recursive: true, force: true });
