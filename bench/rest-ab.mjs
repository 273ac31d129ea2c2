/**
 * REST CPU per request, this build against another, interleaved (issue 40 item 3). A server child of
 * each build (bench/server-child.mjs, as bench/rest.mjs starts it) runs for the whole run; for each of
 * bench/rest.mjs's routes, after 2 s of warm-up each, autocannon (64 connections) loads them in turn
 * in short rounds, and each round reads the child's user + system CPU over it: CPU per request depends
 * less on the machine's load than requests/s does, and alternating lets the load fall on both alike.
 *
 *   USP_BENCH_BASE_DIST=/path/to/old/dist node bench/rest-ab.mjs [rounds=3] [seconds=4]
 *   USP_BENCH_ROUTE=services ...                      one route only (a substring of its name)
 *   USP_BENCH_PROFILE=dir node bench/rest-ab.mjs 1 8    # this build only, --cpu-prof into dir
 */
import autocannon from 'autocannon';
import { startChild } from './lib.mjs';
import { routes } from './rest.mjs';

const ROUNDS = Number(process.argv[2] ?? 3);
const SECONDS = Number(process.argv[3] ?? 4);
const ONLY = process.env.USP_BENCH_ROUTE; // a route name's substring, e.g. "services"
const profileDir = process.env.USP_BENCH_PROFILE;

const builds = [{ name: 'this build', dist: undefined }];
if (process.env.USP_BENCH_BASE_DIST && !profileDir)
  builds.unshift({ name: 'previous build', dist: process.env.USP_BENCH_BASE_DIST });

function cannon(url, route, seconds) {
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url: url + route.path,
        method: route.method,
        headers: route.headers,
        body: route.body,
        connections: 64,
        pipelining: 1,
        duration: seconds,
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    ),
  );
}

const chosen = routes().filter((r) => !ONLY || r.name.includes(ONLY));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// Both builds' servers run side by side for the whole run, and the load alternates between them in
// short bursts, so that whatever else the machine runs falls on both alike.
const children = [];
for (const b of builds)
  children.push(
    await startChild(
      { kind: 'usp', business: 'demo' },
      {
        env: b.dist ? { USP_BENCH_DIST: b.dist } : {},
        execArgv: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
      },
    ),
  );
try {
  for (const r of chosen) {
    for (const c of children) await cannon(c.url, r, 2);
    const cpu = builds.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < children.length; i++) {
        // Alternate which build goes first.
        const k = round % 2 === 0 ? i : children.length - 1 - i;
        const child = children[k];
        const before = await child.resetPeak();
        const res = await cannon(child.url, r, SECONDS);
        const after = await child.memory();
        if (res.non2xx + res.errors + res.timeouts > 0) throw new Error(`${r.name}: ${res.non2xx} non-2xx`);
        cpu[k].push(((after.cpuMs - before.cpuMs) / res.requests.total) * 1000);
      }
    }
    const line = builds.map(
      (b, k) => `${b.name} ${cpu[k].map((x) => x.toFixed(0)).join(', ')} µs (median ${median(cpu[k]).toFixed(0)})`,
    );
    console.log(`${r.name}, CPU per request: ${line.join('; ')}`);
    if (builds.length === 2) {
      const ratios = cpu[1].map((x, i) => x / cpu[0][i]);
      console.log(
        `  this ÷ previous per round: ${ratios.map((x) => x.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)})`,
      );
    }
  }
} finally {
  for (const c of children) await c.stop();
}
