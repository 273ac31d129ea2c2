/**
 * Benchmark 2: MCP overhead. Sequential tools/call requests through the official v2 SDK client
 * (`@modelcontextprotocol/client`), over stdio and Streamable HTTP, against usp-server and against
 * the floor: the bare SDK echo server (bench/mcp-floor.mjs) on the same transport, measured in
 * the same run. The floor's `echo` receives the very same arguments as the real tool.
 *
 * - stdio: `node bin/usp-server.js mcp --demo --db :memory:` (real clock) vs `node bench/mcp-floor.mjs stdio`.
 * - HTTP: bench/server-child.mjs (demo business, clock pinned) vs the echo server on Hono.
 *
 * Calls are interleaved in chunks (real, floor, real, floor, ...), so load from other processes
 * falls on both alike. Peak RSS of each server feeds benchmark 6.
 */
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { PLATFORM, ROOT, benchDate, fmt, fmtMs, fmtX, procPeakRss, procResetPeak, startChild, summarize } from './lib.mjs';

const TARGET_RATIO = 1.5;

/** New York calendar date `days` after `ms`. */
function nyDate(ms, days) {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms + days * 86_400_000));
}

async function connect(transport) {
  const client = new Client({ name: 'usp-bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

function tools(day) {
  const meta = { _meta: { usp: { profile: PLATFORM } } };
  return [
    { tool: 'usp_availability_query', args: { service_id: 'svc_haircut', start_date: day, end_date: day, ...meta } },
    { tool: 'usp_services_get', args: { service_id: 'svc_haircut', ...meta } },
  ];
}

async function check(client, tool, args) {
  const r = await client.callTool({ name: tool, arguments: args });
  if (r.isError) throw new Error(`mcp: ${tool} returned an error: ${JSON.stringify(r).slice(0, 500)}`);
  if (tool === 'usp_availability_query' && !(r.structuredContent?.slots?.length > 0)) throw new Error('mcp: the availability query returned no slots');
  return r;
}

/**
 * `calls` sequential calls of each side, interleaved in chunks; stops early (quick mode) once
 * `maxMs` has passed. Returns per-side latency summaries (ms) and calls/s.
 */
async function race(sides, { calls, warmup, maxMs, chunk }) {
  for (const s of sides) for (let i = 0; i < warmup; i++) await s.call();
  const lat = sides.map(() => []);
  const busy = sides.map(() => 0);
  const deadline = Date.now() + maxMs;
  while (lat[0].length < calls && (Date.now() < deadline || lat[0].length < 20)) {
    const n = Math.min(chunk, calls - lat[0].length);
    for (let k = 0; k < sides.length; k++) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) {
        const a = process.hrtime.bigint();
        await sides[k].call();
        lat[k].push(Number(process.hrtime.bigint() - a) / 1e6);
      }
      busy[k] += Number(process.hrtime.bigint() - t0) / 1e6;
    }
  }
  return sides.map((s, k) => ({ name: s.name, ...summarize(lat[k]), cps: (lat[k].length / busy[k]) * 1000 }));
}

export async function run({ quick }) {
  const opts = quick ? { calls: 2000, warmup: 5, maxMs: 100, chunk: 10 } : { calls: 3000, warmup: 300, maxMs: 120_000, chunk: 100 };
  const results = [];
  const memory = [];

  // ---- stdio ---------------------------------------------------------------------------------
  {
    const realT = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'bin/usp-server.js'), 'mcp', '--demo', '--db', ':memory:'], cwd: ROOT, stderr: 'pipe' });
    realT.stderr?.on('data', () => undefined);
    const floorT = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'bench/mcp-floor.mjs'), 'stdio'], cwd: ROOT, stderr: 'inherit' });
    const real = await connect(realT);
    const floor = await connect(floorT);
    try {
      for (const { tool, args } of tools(nyDate(Date.now(), 1))) {
        await check(real, tool, args);
        procResetPeak(realT.pid);
        const [r, f] = await race(
          [
            { name: tool, call: () => real.callTool({ name: tool, arguments: args }) },
            { name: 'echo', call: () => floor.callTool({ name: 'echo', arguments: args }) },
          ],
          opts,
        );
        results.push({ transport: 'stdio', tool, real: r, floor: f });
        memory.push({ load: `MCP stdio ${tool}, sequential`, peakRss: procPeakRss(realT.pid) });
      }
    } finally {
      await real.close();
      await floor.close();
    }
  }

  // ---- Streamable HTTP -----------------------------------------------------------------------
  {
    const usp = await startChild({ kind: 'usp', business: 'demo' });
    const echo = await startChild({ kind: 'mcp-floor' });
    const real = await connect(new StreamableHTTPClientTransport(new URL('/mcp', usp.url)));
    const floor = await connect(new StreamableHTTPClientTransport(new URL('/mcp', echo.url)));
    try {
      for (const { tool, args } of tools(benchDate(1))) {
        await check(real, tool, args);
        await usp.resetPeak();
        const [r, f] = await race(
          [
            { name: tool, call: () => real.callTool({ name: tool, arguments: args }) },
            { name: 'echo', call: () => floor.callTool({ name: 'echo', arguments: args }) },
          ],
          opts,
        );
        results.push({ transport: 'Streamable HTTP', tool, real: r, floor: f });
        memory.push({ load: `MCP Streamable HTTP ${tool}, sequential`, peakRss: (await usp.memory()).peakRss });
      }
    } finally {
      await real.close().catch(() => undefined);
      await floor.close().catch(() => undefined);
      await usp.stop();
      await echo.stop();
    }
  }

  for (const r of results) r.ratio = r.real.p50 / r.floor.p50;
  const rows = [];
  for (const r of results) {
    rows.push([r.transport, r.tool, fmt(r.real.n, 0), fmt(r.real.cps, 0), fmtMs(r.real.p50), fmtMs(r.real.p99), fmtX(r.ratio), fmtX(r.floor.cps / r.real.cps)]);
    rows.push(['', 'floor: bare SDK echo, same arguments', fmt(r.floor.n, 0), fmt(r.floor.cps, 0), fmtMs(r.floor.p50), fmtMs(r.floor.p99), fmtX(1), fmtX(1)]);
  }
  return {
    id: 'mcp',
    title: '2. MCP overhead (official v2 SDK client, sequential calls)',
    sections: [{ caption: 'Calls', header: ['transport', 'tool', 'calls', 'calls/s', 'p50', 'p99', 'p50 ÷ floor p50', 'floor calls/s ÷ calls/s'], rows }],
    notes: [
      'stdio: `usp-server mcp --demo --db :memory:` (real clock; the query asks for tomorrow). HTTP: usp-server in a child process (demo business, clock pinned), one 2025-11-25 session per client. The availability query asks for one day of svc_haircut (3 stylists, default limit 50 slots).',
      'Client, real server and floor server run at the same time in separate processes; real and floor calls alternate in chunks of 100. Latencies are measured in the client, so they include the SDK client\'s own cost (the same on both sides).',
    ],
    targets: results.map((r) => ({
      name: `MCP ${r.transport} ${r.tool} vs floor (p50)`,
      target: `≤ ${TARGET_RATIO}×`,
      value: `${fmtX(r.ratio)} (${fmtMs(r.real.p50)} vs ${fmtMs(r.floor.p50)})`,
      ok: r.ratio <= TARGET_RATIO,
    })),
    memory,
    data: { results },
  };
}
