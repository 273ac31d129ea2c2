/**
 * MCP over Streamable HTTP, builds against each other and against the SDK's floor, interleaved:
 * each build's server in a child process (bench/server-child.mjs: demo business, clock pinned), the
 * floor child (bench/mcp-floor.mjs) answering `echo` and the same payload (the first build's answer),
 * one 2025-11-25 session per side driven by the official v2 SDK client, sequential tools/call in
 * alternating chunks of 100, so load from other processes falls on every side alike. Reports per
 * side the client's p50 and the server process's CPU per call (utime + stime from /proc over its own
 * chunks; the floor's one process serves both of its sides, one chunk at a time).
 *
 *   USP_BENCH_SIDES='before=/work/base/dist;after=' node bench/mcp-http-ab.mjs [calls per round] [rounds]
 *   (name=dist, `;`-separated; an empty dist is this checkout's; default: this build alone)
 *   USP_BENCH_TOOL=usp_services_get   the tool (default usp_availability_query, one day of svc_haircut)
 *   USP_BENCH_NO_FLOOR=1              the builds only
 *   USP_BENCH_CPU_PROF=dir            --cpu-prof for every server (profiles in dir/<side>)
 */
import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { perRequestAbortFetch } from '../dist/client/index.js';
import { PLATFORM, benchDate, startChild, summarize } from './lib.mjs';

const CALLS = Number(process.argv[2] ?? 1500);
const ROUNDS = Number(process.argv[3] ?? 3);
const CHUNK = 100;
const TOOL = process.env.USP_BENCH_TOOL ?? 'usp_availability_query';
const TICK_US = 1e6 / 100; // USER_HZ on Linux

const day = benchDate(1);
const meta = { _meta: { usp: { profile: PLATFORM } } };
const args =
  TOOL === 'usp_availability_query'
    ? { service_id: 'svc_haircut', start_date: day, end_date: day, ...meta }
    : { service_id: 'svc_haircut', ...meta };

/** CPU time (utime + stime) of a process, in µs. */
function cpuUs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

const prof = (name) =>
  process.env.USP_BENCH_CPU_PROF
    ? { execArgv: ['--cpu-prof', `--cpu-prof-dir=${process.env.USP_BENCH_CPU_PROF}/${name}`] }
    : {};

async function connect(url) {
  const client = new Client({ name: 'usp-bench-http-ab', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { fetch: perRequestAbortFetch() }));
  return client;
}

const builds = (process.env.USP_BENCH_SIDES ?? 'this build=').split(';').map((s) => s.split('='));
const sides = [];
for (const [name, dist] of builds) {
  const child = await startChild(
    { kind: 'usp', business: 'demo' },
    { ...prof(name), env: dist ? { USP_BENCH_DIST: dist } : {} },
  );
  sides.push({ name, child, client: await connect(child.url), tool: TOOL });
}
const first = await sides[0].client.callTool({ name: TOOL, arguments: args });
if (first.isError) throw new Error(`${TOOL}: ${JSON.stringify(first).slice(0, 300)}`);
let floor;
if (!process.env.USP_BENCH_NO_FLOOR) {
  floor = await startChild({ kind: 'mcp-floor' }, prof('floor'));
  const { content, structuredContent, _meta } = first;
  await floor.rpc('set-payloads', { payloads: { [TOOL]: { content, structuredContent, _meta } } });
  const client = await connect(floor.url);
  sides.push(
    { name: 'floor same', child: floor, client, tool: TOOL },
    { name: 'floor echo', child: floor, client, tool: 'echo' },
  );
}
for (const s of sides) for (let i = 0; i < 300; i++) await s.client.callTool({ name: s.tool, arguments: args });
for (let round = 1; round <= ROUNDS; round++) {
  for (const s of sides) {
    s.lat = [];
    s.cpu = 0;
  }
  for (let done = 0; done < CALLS; done += CHUNK) {
    for (const s of sides) {
      const before = cpuUs(s.child.pid);
      for (let i = 0; i < CHUNK; i++) {
        const t0 = performance.now();
        await s.client.callTool({ name: s.tool, arguments: args });
        s.lat.push(performance.now() - t0);
      }
      s.cpu += cpuUs(s.child.pid) - before;
    }
  }
  for (const s of sides) {
    const p50 = summarize(s.lat).p50;
    console.log(
      `round ${round} ${s.name.padEnd(12)} ${TOOL.padEnd(24)} p50 ${(p50 * 1000).toFixed(0)} µs  server CPU/call ${(s.cpu / s.lat.length).toFixed(0)} µs`,
    );
  }
}
console.log(`load average at the end: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
for (const s of new Set(sides.map((x) => x.client))) await s.close().catch(() => undefined);
for (const s of sides) if (s.child !== floor) await s.child.stop();
await floor?.stop();
