/**
 * Two heap snapshots of a hosting process for bench/heap-retainers.mjs: W businesses loaded (the
 * process's warm-up: modules, JIT), then N more, each opened by one profile request (the bench's
 * 50-staff business, SQLite, as bench/hosting.mjs). BOOK=1 books once on each of the N before the
 * second snapshot. Prints the heap per business from heapUsed after a full GC.
 *   npm run build && N=100 W=20 OUT=/tmp/ node --expose-gc bench/heap-snapshots.mjs
 *   node --max-old-space-size=4000 bench/heap-retainers.mjs /tmp/a.heapsnapshot /tmp/b.heapsnapshot 100
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import { BENCH_NOW, generatedBusiness, seedSlot, staffId } from './lib.mjs';

const { createHosting } = await import('../dist/server/hosting.js');
const { openDeploymentDirectory } = await import('../dist/store/index.js');
const { ManualClock } = await import('../dist/operations/index.js');
const { slotIdEncoder } = await import('../dist/domain/slot-id.js');
const N = Number(process.env.N ?? 100);
const W = Number(process.env.W ?? 20);
const OUT = process.env.OUT ?? tmpdir();
const dir = mkdtempSync(join(tmpdir(), 'usp-heap-'));
const def = generatedBusiness({ staff: 50, maxAdvanceDays: 365 });
const directory = openDeploymentDirectory(join(dir, 'deployment.db'));
for (let i = 0; i < N + W; i++) {
  const file = join(dir, `b${i}.json`);
  writeFileSync(file, JSON.stringify({ ...def, business: { ...def.business, id: `biz_bench_${i}` } }));
  directory.add({ id: `biz_bench_${i}`, hosts: [`b${i}.localhost`], origin: file, addedAt: i });
}
const quiet = { info() {}, warn() {}, error() {}, debug() {} };
const hosting = createHosting({
  directory,
  dataDir: dir,
  server: { sandbox: true, sweepIntervalMs: 0, clock: new ManualClock(BENCH_NOW), security: { rateLimits: false } },
  log: quiet,
  maxLoaded: N + W + 1,
  idleCloseMs: 0,
});
const port = new URL(await hosting.listen(0, '127.0.0.1')).port;
const call = (i, method, path, body) =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = {
      host: `b${i}.localhost:${port}`,
      'usp-agent': 'profile="https://platform.example/p.json"',
      'idempotency-key': randomUUID(),
      ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
    };
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end(payload);
  });
const encoder = slotIdEncoder('svc_bench', [staffId(0)]);
const book = async (i) => {
  const s = seedSlot(0, 1, 360);
  const slot = s.staff === 0 ? encoder(s.startMs) : slotIdEncoder('svc_bench', [staffId(s.staff)])(s.startMs);
  const buyer = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };
  const status = await call(i, 'POST', '/bookings', { service_id: 'svc_bench', slot_id: slot, buyer });
  if (status !== 201) throw new Error(`booking at b${i}: ${status}`);
};
const book1 = process.env.BOOK === '1';
for (let i = 0; i < W; i++) {
  await call(i, 'GET', '/.well-known/usp');
  if (book1) await book(i);
}
gc();
const m0 = process.memoryUsage().heapUsed;
v8.writeHeapSnapshot(join(OUT, 'a.heapsnapshot'));
for (let i = W; i < W + N; i++) await call(i, 'GET', '/.well-known/usp');
if (book1) for (let i = W; i < W + N; i++) await book(i);
gc();
const m1 = process.memoryUsage().heapUsed;
v8.writeHeapSnapshot(join(OUT, 'b.heapsnapshot'));
console.log(`heap per business: ${((m1 - m0) / N / 1024).toFixed(1)} KB`);
await hosting.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
