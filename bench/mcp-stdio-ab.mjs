/**
 * MCP over stdio, this build against another one, interleaved: `usp-server mcp --demo --db :memory:`
 * started from this checkout and from USP_BENCH_BASE_ROOT (a directory holding an older build's
 * `bin/` and `dist/`, with `node_modules` beside them), both at once, driven by the official v2 SDK
 * client with sequential tools/call requests in alternating chunks, so load from other processes
 * falls on both alike. Reports per build and tool the client's p50 and the server process's CPU per
 * call (utime + stime from /proc, summed over that build's chunks), of the whole process and of its
 * main thread (the rest is V8's helper threads and libuv's pool). The ratios against the SDK's own
 * floor are bench/mcp.mjs's.
 *
 *   USP_BENCH_BASE_ROOT=/tmp/before node bench/mcp-stdio-ab.mjs [calls per tool] [rounds]
 *   USP_BENCH_SIDES='before=/tmp/before;quiet=/tmp/before=--log-level warn;after=.'  other sides than those two
 *   USP_BENCH_TOOL=name     only that tool
 *   USP_BENCH_CPU_PROF=dir  adds --cpu-prof to every server (profiles land in dir)
 *   USP_BENCH_FLOOR=1       adds the SDK's floors (bench/mcp-floor.mjs, one process): `echo` and the
 *                           same payload (the first build's answer), so CPU per call compares like with like
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { PLATFORM, ROOT, liveDate, summarize } from './lib.mjs';

const CALLS = Number(process.argv[2] ?? 3000);
const ROUNDS = Number(process.argv[3] ?? 3);
const CHUNK = 100;
const TICK_US = 1e6 / 100; // USER_HZ on Linux

/** CPU time (utime + stime) of a process, or of one of its threads (`task`), in µs. */
function cpuUs(pid, task) {
  const path = task === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${task}/stat`;
  const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

async function start(root, extra = [], script = ['bin/usp-server.js', 'mcp', '--demo', '--db', ':memory:']) {
  const prof = process.env.USP_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.USP_BENCH_CPU_PROF}`] : [];
  const [file, ...args] = script;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...prof, join(root, file), ...args, ...extra],
    cwd: root,
    env: process.env,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'usp-bench-ab', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

const day = liveDate(1);
const meta = { _meta: { usp: { profile: PLATFORM } } };
const TOOLS = [
  { tool: 'usp_services_get', args: { service_id: 'svc_haircut', ...meta } },
  { tool: 'usp_availability_query', args: { service_id: 'svc_haircut', start_date: day, end_date: day, ...meta } },
].filter(({ tool }) => !process.env.USP_BENCH_TOOL || tool === process.env.USP_BENCH_TOOL);

/** `name=root` or `name=root=extra args`, `;`-separated (USP_BENCH_SIDES), else the base build and this one. */
const builds = process.env.USP_BENCH_SIDES
  ? process.env.USP_BENCH_SIDES.split(';').map((side) => {
      const [name, root, extra] = side.split('=');
      return { name, root, extra: extra ? extra.split(' ') : [] };
    })
  : [
      ...(process.env.USP_BENCH_BASE_ROOT ? [{ name: 'base build', root: process.env.USP_BENCH_BASE_ROOT }] : []),
      { name: 'this build', root: ROOT },
    ];

const rows = [];
for (let round = 1; round <= ROUNDS; round++) {
  const servers = [];
  for (const b of builds) servers.push({ ...b, ...(await start(b.root, b.extra)) });
  if (process.env.USP_BENCH_FLOOR) {
    // The floors answer what the first build answered (its content, structuredContent and _meta).
    const payloads = {};
    for (const { tool, args } of TOOLS) {
      const { content, structuredContent, _meta } = await servers[0].client.callTool({ name: tool, arguments: args });
      payloads[tool] = { content, structuredContent, _meta };
    }
    const file = join(tmpdir(), `usp-bench-ab-payloads-${process.pid}.json`);
    writeFileSync(file, JSON.stringify(payloads));
    const floor = await start(ROOT, [], ['bench/mcp-floor.mjs', 'stdio', file]);
    servers.push({ name: 'floor echo', ...floor, as: 'echo' }, { name: 'floor same', ...floor });
  }
  for (const { tool, args } of TOOLS) {
    for (const s of servers) {
      for (let i = 0; i < 300; i++) {
        const r = await s.client.callTool({ name: s.as ?? tool, arguments: args });
        if (r.isError) throw new Error(`${s.name}: ${tool}: ${JSON.stringify(r).slice(0, 300)}`);
      }
      s.lat = [];
      s.cpu = 0;
      s.mainCpu = 0;
    }
    for (let done = 0; done < CALLS; done += CHUNK) {
      for (const s of servers) {
        const before = cpuUs(s.pid);
        const mainBefore = cpuUs(s.pid, s.pid);
        for (let i = 0; i < CHUNK; i++) {
          const t0 = performance.now();
          await s.client.callTool({ name: s.as ?? tool, arguments: args });
          s.lat.push(performance.now() - t0);
        }
        s.cpu += cpuUs(s.pid) - before;
        s.mainCpu += cpuUs(s.pid, s.pid) - mainBefore;
      }
    }
    for (const s of servers) {
      const p50 = summarize(s.lat).p50;
      const cpu = s.cpu / s.lat.length;
      const mainCpu = s.mainCpu / s.lat.length;
      rows.push({ round, build: s.name, tool, p50, cpu, mainCpu });
      console.log(
        `round ${round} ${s.name.padEnd(12)} ${tool.padEnd(24)} p50 ${(p50 * 1000).toFixed(0)} µs  CPU/call ${cpu.toFixed(0)} µs (main thread ${mainCpu.toFixed(0)} µs)`,
      );
    }
  }
  for (const s of new Set(servers.map((x) => x.client))) await s.close();
}
console.log(`load average at the end: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
