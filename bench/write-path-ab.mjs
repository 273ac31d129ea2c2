/**
 * In-process A/B of the booking write path, for when the machine is too loaded for the HTTP
 * benchmark's ratios to mean much: both builds in ONE process (so both see the same machine),
 * interleaved rounds of hold + create through each server's app.fetch (no sockets, webhooks off),
 * 16 concurrent workers (so group commit batches as under load), CPU time per booking per build.
 *
 *   USP_BENCH_BASE_DIST=/abs/path/to/old/dist node bench/write-path-ab.mjs [rounds] [postgres://...]
 *
 * With a PostgreSQL URL each build gets a fresh schema there (dropped at the end) and webhooks stay on
 * (their deliveries are store work per booking too; USP_BENCH_WEBHOOKS=off turns them off); with
 * USP_BENCH_PG_DATA=the cluster's data directory the database server's CPU per booking is given per
 * build as well (the postmaster and its children, read from /proc during each build's rounds).
 *
 * The old dist must resolve this repository's node_modules (keep it inside the repository).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import * as lib from './lib.mjs';
if (!process.env.USP_BENCH_BASE_DIST) throw new Error('set USP_BENCH_BASE_DIST to the build to compare with');
const PG = process.argv[3]?.startsWith('postgres') ? process.argv[3] : undefined;
const PG_DATA = PG ? process.env.USP_BENCH_PG_DATA : undefined;
const WEBHOOKS = PG ? process.env.USP_BENCH_WEBHOOKS !== 'off' : false;
const schemas = [];
const builds = [
  ['this build', '../dist/'],
  ['previous build', `${pathToFileURL(process.env.USP_BENCH_BASE_DIST).href}/`],
];
const servers = [];
for (const [name, d] of builds) {
  const { createUspServer } = await import(`${d}server/compose.js`);
  const { ManualClock, silentLogger } = await import(`${d}operations/index.js`);
  const { slotIdEncoder } = await import(`${d}domain/slot-id.js`);
  let db = join(mkdtempSync(join(tmpdir(), 'wp-ab-')), 'b.db');
  if (PG) {
    const u = new URL(PG);
    schemas.push(`wpab_${randomUUID().replace(/-/g, '').slice(0, 10)}`);
    u.searchParams.set('schema', schemas.at(-1));
    db = u.toString();
  }
  const usp = await createUspServer({
    business: lib.generatedBusiness({ staff: 50, interval: 15, duration: 15, maxAdvanceDays: 365 }),
    db,
    sandbox: true,
    clock: new ManualClock(lib.BENCH_NOW),
    log: silentLogger,
    sweepIntervalMs: 0,
    security: { rateLimits: false },
    webhooks: { enabled: WEBHOOKS },
  });
  servers.push({ name, usp, enc: new Map(), slotIdEncoder, j: 0, cpu: 0, pg: 0, n: 0 });
}
const post = async (s, path, body, w) => {
  const r = await s.usp.app.fetch(
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
async function round(s, count) {
  const t0 = PG_DATA ? lib.pgClusterTicks(PG_DATA) : undefined;
  const c0 = process.cpuUsage();
  // 16 concurrent workers, so group commit batches as under load.
  await Promise.all(
    Array.from({ length: 16 }, async (_, w) => {
      for (let k = 0; k < count / 16; k++) {
        const slot = lib.seedSlot(s.j++, 1, 300);
        const rid = lib.staffId(slot.staff);
        let e = s.enc.get(rid);
        if (!e) s.enc.set(rid, (e = s.slotIdEncoder('svc_bench', [rid])));
        const id = e(slot.startMs);
        const h = await post(s, '/availability/holds', { service_id: 'svc_bench', slot_id: id }, w);
        if (h.status !== 201) throw new Error(JSON.stringify(h.body).slice(0, 200));
        const b = await post(
          s,
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
  const c = process.cpuUsage(c0);
  if (PG_DATA) s.pg += lib.pgTicksSince(PG_DATA, t0) * 10;
  return (c.user + c.system) / 1000;
}
for (const s of servers) await round(s, 320); // warm
const ROUNDS = Number(process.argv[2] ?? 8);
for (let r = 0; r < ROUNDS; r++)
  for (let k = 0; k < servers.length; k++) {
    const s = servers[(r + k) % servers.length];
    s.cpu += await round(s, 480);
    s.n += 480;
  }
console.log(`${PG ? `PostgreSQL, webhooks ${WEBHOOKS ? 'on' : 'off'}` : 'SQLite'}; load average ${lib.loadavg()}`);
for (const s of servers)
  console.log(
    s.name,
    (s.cpu / s.n).toFixed(3),
    'ms CPU per booking (in-process, hold + create)',
    PG_DATA ? `; PostgreSQL server ${(s.pg / s.n).toFixed(3)} ms` : '',
  );
console.log(
  'this build ÷ previous build, CPU per booking:',
  (servers[0].cpu / servers[0].n / (servers[1].cpu / servers[1].n)).toFixed(3),
);
if (PG_DATA)
  console.log(
    'this build ÷ previous build, PostgreSQL server CPU per booking:',
    (servers[0].pg / servers[0].n / (servers[1].pg / servers[1].n)).toFixed(3),
  );
for (const s of servers) await s.usp.close();
if (PG) {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  for (const schema of schemas) await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
}
