import autocannon from 'autocannon';
import { startChild } from './lib.mjs';
import { routes } from './rest.mjs';
const which = Number(process.argv[2] ?? 0);
const s = await startChild({ kind: 'usp', business: 'demo' }, { execArgv: ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] });
const r = routes()[which];
const res = await autocannon({ url: s.url + r.path, method: r.method, headers: r.headers, body: r.body, connections: 64, duration: 6 });
console.log(r.name, res.requests.average, res.latency.p50, res.latency.p99, res.non2xx);
await s.stop();
