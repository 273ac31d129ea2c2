/**
 * Benchmark 3: REST overhead. autocannon on loopback, 64 connections, against
 *  - usp-server (demo business, sandbox, in-memory SQLite, clock pinned) in a child process:
 *    `POST /availability/query` (one day of svc_haircut) and `GET /services/svc_haircut`;
 *  - the floor: a bare Hono app on @hono/node-server in a child process answering the very same
 *    bytes as a static JSON body (captured from the real server first), so the ratio is the cost
 *    of usp-server's own work and not of the payload size.
 * The server's peak RSS during each run feeds benchmark 6.
 */
import autocannon from 'autocannon';
import { PLATFORM, benchDate, fmt, fmtMs, fmtX, startChild } from './lib.mjs';

const CONNECTIONS = 64;
/** Issue 40 item 5: each route within 1.5× of its floor (requests/s), in the same run. */
const TARGET_RATIO = 1.5;

function cannon(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, pipelining: 1, ...opts }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

export function routes() {
  const day = benchDate(1);
  return [
    {
      name: 'POST /availability/query',
      method: 'POST',
      path: '/availability/query',
      headers: { 'content-type': 'application/json', 'usp-agent': `profile="${PLATFORM}"` },
      body: JSON.stringify({ service_id: 'svc_haircut', start_date: day, end_date: day }),
    },
    {
      name: 'GET /services/{id}',
      method: 'GET',
      path: '/services/svc_haircut',
      headers: { 'usp-agent': `profile="${PLATFORM}"` },
    },
  ];
}

/** One autocannon run: `seconds` long, or (quick mode) `amount` requests, since its clock ticks in whole seconds. */
async function load(url, route, seconds, amount) {
  const res = await cannon({
    url: url + route.path,
    method: route.method,
    headers: route.headers,
    body: route.body,
    ...(amount ? { amount } : { duration: seconds }),
  });
  const bad = res.non2xx + res.errors + res.timeouts;
  if (bad > 0)
    throw new Error(
      `rest: ${route.name} on ${url}: ${res.non2xx} non-2xx, ${res.errors} errors, ${res.timeouts} timeouts`,
    );
  return {
    rps: amount ? res.requests.total / res.duration : res.requests.average,
    p50: res.latency.p50,
    p99: res.latency.p99,
    total: res.requests.total,
  };
}

export async function run({ quick, cpuProf }) {
  const seconds = quick ? 0 : 10;
  const warm = quick ? 0 : 2;
  const amount = quick ? 256 : undefined;
  const usp = await startChild(
    { kind: 'usp', business: 'demo' },
    { execArgv: cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [] },
  );
  const floor = await startChild({ kind: 'rest-floor' });
  const results = [];
  const memory = [];
  try {
    // Capture the real bodies and hand them to the floor.
    const bodies = {};
    const sizes = {};
    for (const r of routes()) {
      const res = await fetch(usp.url + r.path, { method: r.method, headers: r.headers, body: r.body });
      if (res.status !== 200) throw new Error(`rest: ${r.name} answered ${res.status}: ${await res.text()}`);
      const json = await res.json();
      bodies[`${r.method} ${r.path}`] = json;
      sizes[r.name] = JSON.stringify(json).length;
      if (r.path.startsWith('/availability') && !(json.slots?.length > 0))
        throw new Error('rest: the availability query returned no slots');
    }
    await floor.rpc('set-bodies', { bodies });

    for (const r of routes()) {
      if (!quick) await load(usp.url, r, warm);
      const before = await usp.resetPeak();
      const real = await load(usp.url, r, seconds, amount);
      const mem = await usp.memory();
      real.cpuUs = ((mem.cpuMs - before.cpuMs) / real.total) * 1000;
      memory.push({
        load: `REST ${r.name}, ${CONNECTIONS} connections`,
        peakRss: mem.peakRss,
        atPeak: mem.atPeak,
        lifetimePeak: mem.lifetimePeak,
      });
      if (!quick) await load(floor.url, r, warm);
      const fbefore = await floor.resetPeak();
      const base = await load(floor.url, r, seconds, amount);
      const fmem = await floor.memory();
      base.cpuUs = ((fmem.cpuMs - fbefore.cpuMs) / base.total) * 1000;
      results.push({
        route: r.name,
        bytes: sizes[r.name],
        real,
        floor: base,
        ratio: base.rps / real.rps,
        cpuRatio: real.cpuUs / base.cpuUs,
        floorPeakRss: fmem.peakRss,
      });
    }
  } finally {
    await usp.stop();
    await floor.stop();
  }

  const rows = [];
  for (const r of results) {
    rows.push([
      r.route,
      'usp-server',
      fmt(r.real.rps, 0),
      fmtMs(r.real.p50),
      fmtMs(r.real.p99),
      fmtX(r.ratio),
      `${fmt(r.real.cpuUs, 0)} µs`,
      fmtX(r.cpuRatio),
    ]);
    rows.push([
      '',
      `floor (bare Hono, same ${fmt(r.bytes, 0)}-byte body)`,
      fmt(r.floor.rps, 0),
      fmtMs(r.floor.p50),
      fmtMs(r.floor.p99),
      fmtX(1),
      `${fmt(r.floor.cpuUs, 0)} µs`,
      fmtX(1),
    ]);
  }
  return {
    id: 'rest',
    title: `3. REST overhead (autocannon, ${CONNECTIONS} connections, ${quick ? `${amount} requests` : `${seconds} s`} each)`,
    sections: [
      {
        caption: 'Throughput and latency',
        header: [
          'route',
          'server',
          'requests/s',
          'p50',
          'p99',
          'floor req/s ÷ server req/s',
          'server CPU per request',
          'CPU ÷ floor CPU',
        ],
        rows,
      },
    ],
    notes: [
      'Servers run in child processes (one core for the server, one for autocannon). usp-server: demo business, sandbox, in-memory SQLite, clock pinned to 2026-12-01 12:00 New York; the availability query asks for one day of svc_haircut (3 stylists, default limit 50).',
      'autocannon reports latency at 1 ms resolution. "Server CPU per request" is the server process\'s user + system CPU time over the run divided by the requests served: unlike requests/s it does not depend on what else the machine is running.',
    ],
    targets: results.map((r) => ({
      name: `REST ${r.route} vs floor`,
      target: `within ${TARGET_RATIO}×`,
      value: `${fmtX(r.ratio)} (${fmt(r.real.rps, 0)} vs ${fmt(r.floor.rps, 0)} req/s)`,
      ok: r.ratio <= TARGET_RATIO,
    })),
    memory,
    data: { results },
  };
}
