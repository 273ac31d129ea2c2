/**
 * The REST door in-process, no sockets: `n` sequential `app.fetch` calls of one of bench/rest.mjs's
 * routes through the host (the doors, the pipeline, the answer's text), CPU time per call. For
 * profiles of our own code without the HTTP stack's syscalls (run with --cpu-prof), and A/B:
 * USP_BENCH_BASE_DIST=path/to/another/dist loads that build too, in this process, and alternates
 * batches of 500 calls between the two (GC and the machine's load then fall on both alike).
 *
 *   node bench/rest-loop.mjs [services|availability] [calls=20000]
 */
import { getRequestListener } from '@hono/node-server';
import { BENCH_NOW, PLATFORM, benchDate, demoBusinessDef } from './lib.mjs';

// As a server listening: @hono/node-server's lightweight Request and Response in place of undici's.
getRequestListener(() => new Response(null));

const which = process.argv[2] ?? 'services';
const n = Number(process.argv[3] ?? 20_000);
const agent = { 'usp-agent': `profile="${PLATFORM}"` };
const day = benchDate(1);
const route = {
  services: { name: 'GET /services/{id}', method: 'GET', path: '/services/svc_haircut', headers: agent },
  availability: {
    name: 'POST /availability/query',
    method: 'POST',
    path: '/availability/query',
    headers: { 'content-type': 'application/json', ...agent },
    body: JSON.stringify({ service_id: 'svc_haircut', start_date: day, end_date: day }),
  },
}[which];

async function server(dist) {
  const base = new URL(`${dist}/`, import.meta.url).href;
  const { createUspServer } = await import(`${base}server/compose.js`);
  const { ManualClock, silentLogger } = await import(`${base}operations/index.js`);
  return createUspServer({
    business: demoBusinessDef(),
    db: ':memory:',
    sandbox: true,
    clock: new ManualClock(BENCH_NOW),
    log: silentLogger,
    sweepIntervalMs: 0,
    security: { rateLimits: false },
  });
}
const url = `http://127.0.0.1:8080${route.path}`;
const call = async (usp) => {
  const res = await usp.app.fetch(
    new Request(url, { method: route.method, headers: { host: '127.0.0.1:8080', ...route.headers }, body: route.body }),
  );
  if (res.status !== 200) throw new Error(`${route.name}: ${res.status} ${await res.text()}`);
};
// Both builds in this one process when USP_BENCH_BASE_DIST names the other: batches of calls
// alternate between them, so that the machine's load falls on both alike.
const builds = [{ name: 'this build', usp: await server(process.env.USP_BENCH_DIST ?? '../dist'), cpu: 0 }];
if (process.env.USP_BENCH_BASE_DIST)
  builds.unshift({ name: 'previous build', usp: await server(process.env.USP_BENCH_BASE_DIST), cpu: 0 });
for (const b of builds) for (let i = 0; i < 2000; i++) await call(b.usp);
const BATCH = 500;
for (let done = 0; done < n; done += BATCH) {
  for (const b of done % (2 * BATCH) === 0 ? builds : [...builds].reverse()) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < BATCH; i++) await call(b.usp);
    const t = process.cpuUsage(t0);
    b.cpu += t.user + t.system;
  }
}
for (const b of builds) console.log(`${route.name}, ${b.name}: ${(b.cpu / n).toFixed(1)} µs CPU per call (${n} calls)`);
if (builds.length === 2) console.log(`this ÷ previous: ${(builds[1].cpu / builds[0].cpu).toFixed(3)}`);
for (const b of builds) await b.usp.close();
