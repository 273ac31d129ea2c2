/**
 * Benchmark 8: the availability cache. autocannon on loopback, 64 connections, repeating one
 * identical `POST /availability/query` against three child processes in interleaved rounds:
 *  - usp-server with the availability cache (the default: every call after the first is a hit);
 *  - usp-server with it off (`--no-availability-cache`: every call computes);
 *  - the bare-Hono floor answering the very same bytes as a static body.
 * Reported: requests/s and server CPU per request, cache on ÷ off and on ÷ floor. Both servers'
 * answers are compared first: a cached answer that differs fails the benchmark.
 */
import autocannon from 'autocannon';
import { PLATFORM, benchDate, fmt, fmtMs, fmtX, startChild } from './lib.mjs';

const CONNECTIONS = 64;
const TARGET_RATIO = 2;

function cannon(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, pipelining: 1, ...opts }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

function queries() {
  const headers = { 'content-type': 'application/json', 'usp-agent': `profile="${PLATFORM}"` };
  return [
    {
      name: 'one day of svc_haircut',
      body: { service_id: 'svc_haircut', start_date: benchDate(1), end_date: benchDate(1) },
    },
    {
      name: 'a week of svc_haircut (first 200)',
      body: { service_id: 'svc_haircut', start_date: benchDate(1), end_date: benchDate(7) },
    },
  ].map((q) => ({ ...q, method: 'POST', path: '/availability/query', headers, body: JSON.stringify(q.body) }));
}

async function load(server, q, seconds, amount) {
  const before = await server.resetPeak();
  const res = await cannon({
    url: server.url + q.path,
    method: q.method,
    headers: q.headers,
    body: q.body,
    ...(amount ? { amount } : { duration: seconds }),
  });
  const after = await server.memory();
  const bad = res.non2xx + res.errors + res.timeouts;
  if (bad > 0)
    throw new Error(
      `avail: ${q.name} on ${server.url}: ${res.non2xx} non-2xx, ${res.errors} errors, ${res.timeouts} timeouts`,
    );
  const total = res.requests.total;
  return {
    rps: amount ? total / res.duration : res.requests.average,
    p50: res.latency.p50,
    p99: res.latency.p99,
    total,
    cpuUs: ((after.cpuMs - before.cpuMs) / total) * 1000,
    peakRss: after.peakRss,
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run({ quick, cpuProf }) {
  const seconds = quick ? 0 : 4;
  const rounds = quick ? 1 : 3;
  const amount = quick ? 256 : undefined;
  const execArgv = cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [];
  const on = await startChild({ kind: 'usp', business: 'demo' }, { execArgv });
  const off = await startChild({ kind: 'usp', business: 'demo', availabilityCacheBytes: 0 });
  const floor = await startChild({ kind: 'rest-floor' });
  const servers = { on, off, floor };
  const results = [];
  const memory = [];
  try {
    for (const q of queries()) {
      const fetchBody = async (s) => {
        const res = await fetch(s.url + q.path, { method: q.method, headers: q.headers, body: q.body });
        if (res.status !== 200) throw new Error(`avail: ${q.name} answered ${res.status}: ${await res.text()}`);
        return res.json();
      };
      const cachedBody = await fetchBody(on);
      const again = await fetchBody(on);
      const freshBody = await fetchBody(off);
      if (
        JSON.stringify(again) !== JSON.stringify(freshBody) ||
        JSON.stringify(cachedBody) !== JSON.stringify(freshBody)
      ) {
        throw new Error(`avail: ${q.name}: the cached answer differs from a fresh computation`);
      }
      if (!(freshBody.slots?.length > 0)) throw new Error(`avail: ${q.name} returned no slots`);
      await floor.rpc('set-bodies', { bodies: { [`${q.method} ${q.path}`]: freshBody } });
      const runs = { on: [], off: [], floor: [] };
      if (!quick) for (const s of Object.values(servers)) await load(s, q, 1);
      // Interleaved: each round measures all three, so load from other processes hits them alike.
      for (let r = 0; r < rounds; r++)
        for (const [k, s] of Object.entries(servers)) runs[k].push(await load(s, q, seconds, amount));
      const agg = (list) => ({
        rps: median(list.map((x) => x.rps)),
        p50: median(list.map((x) => x.p50)),
        p99: median(list.map((x) => x.p99)),
        cpuUs: list.reduce((a, x) => a + x.cpuUs * x.total, 0) / list.reduce((a, x) => a + x.total, 0),
        peakRss: Math.max(...list.map((x) => x.peakRss)),
      });
      const a = { on: agg(runs.on), off: agg(runs.off), floor: agg(runs.floor) };
      // Ratios per round (interleaved), then their median: robust to the machine's load changing between rounds.
      const perRound = (f) => median(runs.on.map((_, i) => f(i)));
      results.push({
        query: q.name,
        bytes: JSON.stringify(freshBody).length,
        ...a,
        cpuOnOff: a.on.cpuUs / a.off.cpuUs,
        rpsOnOff: perRound((i) => runs.on[i].rps / runs.off[i].rps),
        floorOverOn: perRound((i) => runs.floor[i].rps / runs.on[i].rps),
        floorOverOff: perRound((i) => runs.floor[i].rps / runs.off[i].rps),
        cpuOnFloor: a.on.cpuUs / a.floor.cpuUs,
      });
      memory.push({
        load: `REST availability, cache on (${q.name}), ${CONNECTIONS} connections`,
        peakRss: a.on.peakRss,
      });
    }
  } finally {
    await on.stop();
    await off.stop();
    await floor.stop();
  }

  const rows = [];
  for (const r of results) {
    rows.push([
      r.query,
      'cache on',
      fmt(r.on.rps, 0),
      fmtMs(r.on.p50),
      fmtMs(r.on.p99),
      `${fmt(r.on.cpuUs, 0)} µs`,
      fmtX(r.floorOverOn),
    ]);
    rows.push([
      '',
      'cache off',
      fmt(r.off.rps, 0),
      fmtMs(r.off.p50),
      fmtMs(r.off.p99),
      `${fmt(r.off.cpuUs, 0)} µs`,
      fmtX(r.floorOverOff),
    ]);
    rows.push([
      '',
      `floor (bare Hono, same ${fmt(r.bytes, 0)}-byte body)`,
      fmt(r.floor.rps, 0),
      fmtMs(r.floor.p50),
      fmtMs(r.floor.p99),
      `${fmt(r.floor.cpuUs, 0)} µs`,
      fmtX(1),
    ]);
  }
  const ratioRows = results.map((r) => [r.query, fmtX(r.cpuOnOff), fmtX(r.rpsOnOff), fmtX(r.cpuOnFloor)]);
  return {
    id: 'avail',
    title: `8. Availability cache (REST, autocannon, ${CONNECTIONS} connections, ${quick ? `${amount} requests` : `${rounds} interleaved rounds of ${seconds} s`})`,
    sections: [
      {
        caption: 'Repeated identical queries',
        header: ['query', 'server', 'requests/s', 'p50', 'p99', 'server CPU per request', 'floor req/s ÷ server req/s'],
        rows,
      },
      {
        caption: 'Cache on against off and against the floor',
        header: ['query', 'CPU per request, on ÷ off', 'req/s, on ÷ off', 'CPU per request, on ÷ floor'],
        rows: ratioRows,
      },
    ],
    notes: [
      "Three child processes: usp-server with the availability cache (default 32 MiB), the same with it off, and the bare-Hono floor answering the same bytes. Demo business, sandbox, in-memory SQLite, clock pinned. Every query after the first is a hit on the cached server: it still reads the store version of the service's resources (one indexed read), narrows the cached list to the booking window at its clock, and reuses presented slots; the JSON body is serialized on every call, as on the floor.",
      'Ratios are taken per round (each round measures the three servers one after the other), then the median of the rounds. "Server CPU per request" is user + system CPU over the run divided by the requests served.',
    ],
    targets: results.map((r, i) => ({
      name: `REST POST /availability/query (${r.query}, cache on) vs floor`,
      target: `within ${TARGET_RATIO}×`,
      value: `${fmtX(r.floorOverOn)} (${fmt(r.on.rps, 0)} vs ${fmt(r.floor.rps, 0)} req/s; CPU on ÷ off ${fmtX(r.cpuOnOff)})`,
      ok: i === 0 ? r.floorOverOn <= TARGET_RATIO : null,
    })),
    memory,
    data: { results },
  };
}
