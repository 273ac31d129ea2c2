/**
 * V8 heap settings against peak RSS and CPU per request (issue 40 item 4/5): a server child of
 * bench/server-child.mjs (demo business, in-memory SQLite, as bench/rest.mjs starts it) per setting,
 * the settings interleaved round by round so the machine's load falls on all alike. Each start:
 * 1 s after ready, 2 s of warm-up, the peak (VmHWM) reset, then `SECONDS` of each route at 64
 * connections (autocannon); peak RSS, RSS after, and server CPU per request.
 *
 *   node bench/heap-flags.mjs [rounds] [seconds] 'label=--flag --flag' ...
 *
 * A setting with no flags starts as the product does (src/server/heap.ts: 1.5×, set by the child);
 * `--heap-growing-percent=0` leaves V8 its own factor. With no settings given: those two. The
 * figures of DECISIONS "V8 heap growing factor" and docs/BENCHMARKS.md "V8 heap growing" came
 * from runs such as `node bench/heap-flags.mjs 4 5 'v8default=--heap-growing-percent=0' 'product='
 * 'hgp70=--heap-growing-percent=70'`.
 */
import autocannon from 'autocannon';
import { routes } from './rest.mjs';
import { sleep, startChild } from './lib.mjs';

const [roundsArg, secondsArg, ...specs] = process.argv.slice(2);
const ROUNDS = Number(roundsArg ?? 3);
const SECONDS = Number(secondsArg ?? 8);
const settings = (specs.length ? specs : ['v8default=--heap-growing-percent=0', 'product=']).map((s) => {
  const i = s.indexOf('=');
  return {
    label: s.slice(0, i),
    execArgv: s
      .slice(i + 1)
      .split(/\s+/)
      .filter(Boolean),
  };
});

function cannon(url, route, seconds) {
  return new Promise((resolve, reject) => {
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
    );
  });
}

const MB = 1024 * 1024;
const results = [];
for (let round = 1; round <= ROUNDS; round++) {
  for (const s of settings) {
    const child = await startChild({ kind: 'usp', business: 'demo' }, { execArgv: s.execArgv });
    try {
      await sleep(1000);
      const rest = await child.memory();
      for (const r of routes()) {
        await cannon(child.url, r, 2);
        const before = await child.resetPeak();
        const res = await cannon(child.url, r, SECONDS);
        if (res.non2xx + res.errors + res.timeouts > 0) throw new Error(`${s.label}: ${r.name} failed`);
        const m = await child.memory();
        const row = {
          round,
          setting: s.label,
          route: r.name,
          restRss: rest.rss / MB,
          peakRss: m.peakRss / MB,
          rssAfter: m.rss / MB,
          heapTotal: m.heapTotal / MB,
          rps: res.requests.average,
          cpuUs: ((m.cpuMs - before.cpuMs) / res.requests.total) * 1000,
        };
        results.push(row);
        console.log(
          [
            `round ${round}`,
            s.label.padEnd(12),
            r.name.padEnd(26),
            `rest ${row.restRss.toFixed(1)} MB`,
            `peak ${row.peakRss.toFixed(1)} MB`,
            `after ${row.rssAfter.toFixed(1)} MB`,
            `${row.rps.toFixed(0)} req/s`,
            `${row.cpuUs.toFixed(0)} µs CPU/req`,
          ].join('  '),
        );
      }
    } finally {
      await child.stop();
    }
  }
}
console.log('\nsetting       route                       peak RSS (min–max)     CPU/req (min–max)');
for (const s of settings) {
  for (const r of routes()) {
    const rows = results.filter((x) => x.setting === s.label && x.route === r.name);
    const range = (k, d) =>
      `${Math.min(...rows.map((x) => x[k])).toFixed(d)}–${Math.max(...rows.map((x) => x[k])).toFixed(d)}`;
    console.log(
      `${s.label.padEnd(13)} ${r.name.padEnd(27)} ${range('peakRss', 0)} MB`.padEnd(70),
      `${range('cpuUs', 0)} µs`,
    );
  }
}
const base = settings[0].label;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
console.log(`\nCPU per request ÷ ${base}'s in the same round (median, min–max over rounds)`);
for (const s of settings.slice(1)) {
  for (const r of routes()) {
    const ratios = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const a = results.find((x) => x.round === round && x.setting === base && x.route === r.name);
      const b = results.find((x) => x.round === round && x.setting === s.label && x.route === r.name);
      ratios.push(b.cpuUs / a.cpuUs);
    }
    console.log(
      `${s.label.padEnd(13)} ${r.name.padEnd(27)} ${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
    );
  }
}
