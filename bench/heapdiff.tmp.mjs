import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import { BENCH_NOW, generatedBusiness } from './lib.mjs';
const { createHosting } = await import('../dist/server/hosting.js');
const { openDeploymentDirectory } = await import('../dist/store/index.js');
const { ManualClock } = await import('../dist/operations/index.js');
const N = Number(process.argv[2] ?? 200);
const quiet = { info() {}, warn() {}, error() {}, debug() {} };
const dir = mkdtempSync(join(tmpdir(), 'usp-heap-'));
const def = generatedBusiness({ staff: 50, maxAdvanceDays: 365 });
const directory = openDeploymentDirectory(join(dir, 'deployment.db'));
for (let i = 0; i <= N; i++) {
  const file = join(dir, `b${i}.json`);
  writeFileSync(file, JSON.stringify({ ...def, business: { ...def.business, id: `biz_bench_${i}` } }));
  directory.add({ id: `biz_bench_${i}`, hosts: [`b${i}.localhost`], origin: file, addedAt: i });
}
const hosting = createHosting({ directory, dataDir: dir,
  server: { sandbox: true, sweepIntervalMs: 0, clock: new ManualClock(BENCH_NOW), security: { rateLimits: false } },
  log: quiet, maxLoaded: N + 1, idleCloseMs: 0 });
const port = new URL(await hosting.listen(0, '127.0.0.1')).port;
const get = (i) => new Promise((res, rej) => http.get({ agent: false, host: '127.0.0.1', port, path: '/.well-known/usp', headers: { host: `b${i}.localhost:${port}`, 'usp-agent': 'profile="https://p.example/p.json"' } }, (r) => { r.resume(); r.on('end', res); }).on('error', rej));
await get(0);
await new Promise((r) => setTimeout(r, 500));
globalThis.gc(); const h0 = process.memoryUsage().heapUsed;
v8.writeHeapSnapshot('/tmp/exp/h0.heapsnapshot');
for (let i = 1; i <= N; i++) await get(i);
await new Promise((r) => setTimeout(r, 3000));
globalThis.gc(); const h1 = process.memoryUsage().heapUsed;
v8.writeHeapSnapshot('/tmp/exp/h1.heapsnapshot');
console.log(JSON.stringify({ N, perBusinessKB: ((h1 - h0) / N / 1024).toFixed(1) }));
await hosting.close(); process.exit(0);
