/**
 * Benchmark 2: MCP overhead. Sequential tools/call requests through the official v2 SDK client
 * (`@modelcontextprotocol/client`), over stdio and Streamable HTTP, against usp-server and against
 * two floors on the same transport, measured in the same run (bench/mcp-floor.mjs):
 *
 * - echo: the bare SDK server's `echo` tool, given the very same arguments: the protocol's cost.
 * - same payload: a bare SDK tool answering the very result usp-server gave for that call
 *   (captured once at the start): the protocol's cost plus what the payload's size costs.
 *
 * So usp-server's p50 splits into protocol (echo), payload (same payload − echo) and ours
 * (usp-server − same payload). Targets: ≤ 1.2× the floor over Streamable HTTP, ≤ 1.5× over stdio; the
 * floor is the echo for usp_services_get (its payload is small), the same payload for usp_availability_query.
 *
 * - stdio: `node bin/usp-server.js mcp --demo --db :memory:` (real clock) vs `node bench/mcp-floor.mjs stdio`.
 * - HTTP: bench/server-child.mjs (demo business, clock pinned) vs the floors on Hono.
 *
 * Calls are interleaved in chunks (real, echo, same payload, real, ...), so load from other
 * processes falls on all alike. Peak RSS of each server feeds benchmark 6.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { perRequestAbortFetch } from '../dist/client/index.js';
import {
  PLATFORM,
  ROOT,
  benchDate,
  fmt,
  fmtMs,
  fmtX,
  liveDate,
  procPeakRss,
  procResetPeak,
  startChild,
  summarize,
} from './lib.mjs';

/**
 * Targets (issue 40 item 5): within 1.2× of the floor over Streamable HTTP and 1.5× over stdio
 * (p50s). The floor of a tool: the echo for usp_services_get (its payload is small), the
 * same-payload tool for usp_availability_query (its payload is most of the cost).
 */
const TARGET_FLOOR = { usp_services_get: 'echo', usp_availability_query: 'same' };
const TARGET_RATIO = { stdio: 1.5, 'Streamable HTTP': 1.2 };

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
  if (tool === 'usp_availability_query' && !(r.structuredContent?.slots?.length > 0))
    throw new Error('mcp: the availability query returned no slots');
  return r;
}

/** What the same-payload floor answers for `tool`: usp-server's result for the benchmark's call, as received. */
function payloadOf(result) {
  const out = { content: result.content, structuredContent: result.structuredContent };
  if (result._meta) out._meta = result._meta;
  if (result.isError) out.isError = true;
  return out;
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

/** The three sides of one race: usp-server, the echo floor, the same-payload floor (same arguments on each). */
function sidesFor(real, floor, tool, args) {
  return [
    { name: tool, call: () => real.callTool({ name: tool, arguments: args }) },
    { name: 'echo', call: () => floor.callTool({ name: 'echo', arguments: args }) },
    { name: 'same payload', call: () => floor.callTool({ name: tool, arguments: args }) },
  ];
}

export async function run({ quick, cpuProf }) {
  const opts = quick
    ? { calls: 2000, warmup: 5, maxMs: 100, chunk: 10 }
    : { calls: 3000, warmup: 300, maxMs: 120_000, chunk: 100 };
  const results = [];
  const memory = [];

  // ---- stdio ---------------------------------------------------------------------------------
  {
    const prof = cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [];
    const realT = new StdioClientTransport({
      command: process.execPath,
      args: [...prof, join(ROOT, 'bin/usp-server.js'), 'mcp', '--demo', '--db', ':memory:'],
      cwd: ROOT,
      // The whole environment: the SDK passes only a few variables by default, and faketime's
      // must reach the child for it to share this process's (shifted) clock.
      env: process.env,
      stderr: 'pipe',
    });
    realT.stderr?.on('data', () => undefined);
    const real = await connect(realT);
    const list = tools(liveDate(1));
    // The results the same-payload floor will answer, captured from the real server first.
    const payloads = {};
    for (const { tool, args } of list) payloads[tool] = payloadOf(await check(real, tool, args));
    const file = join(tmpdir(), `usp-bench-mcp-payloads-${process.pid}.json`);
    writeFileSync(file, JSON.stringify(payloads));
    const floorT = new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, 'bench/mcp-floor.mjs'), 'stdio', file],
      cwd: ROOT,
      env: process.env,
      stderr: 'inherit',
    });
    const floor = await connect(floorT);
    try {
      for (const { tool, args } of list) {
        procResetPeak(realT.pid);
        const [r, f, p] = await race(sidesFor(real, floor, tool, args), opts);
        results.push({ transport: 'stdio', tool, real: r, floor: f, same: p });
        memory.push({ load: `MCP stdio ${tool}, sequential`, peakRss: procPeakRss(realT.pid) });
      }
    } finally {
      await real.close();
      await floor.close();
    }
  }

  // ---- Streamable HTTP -----------------------------------------------------------------------
  {
    const usp = await startChild(
      { kind: 'usp', business: 'demo' },
      { execArgv: cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [] },
    );
    const echo = await startChild({ kind: 'mcp-floor' });
    const real = await connect(
      new StreamableHTTPClientTransport(new URL('/mcp', usp.url), { fetch: perRequestAbortFetch() }),
    );
    const list = tools(benchDate(1));
    const payloads = {};
    for (const { tool, args } of list) payloads[tool] = payloadOf(await check(real, tool, args));
    await echo.rpc('set-payloads', { payloads });
    const floor = await connect(
      new StreamableHTTPClientTransport(new URL('/mcp', echo.url), { fetch: perRequestAbortFetch() }),
    );
    try {
      for (const { tool, args } of list) {
        await usp.resetPeak();
        const [r, f, p] = await race(sidesFor(real, floor, tool, args), opts);
        results.push({ transport: 'Streamable HTTP', tool, real: r, floor: f, same: p });
        const { peakRss, atPeak } = await usp.memory();
        memory.push({ load: `MCP Streamable HTTP ${tool}, sequential`, peakRss, atPeak });
      }
    } finally {
      await real.close().catch(() => undefined);
      await floor.close().catch(() => undefined);
      await usp.stop();
      await echo.stop();
    }
  }

  for (const r of results) {
    r.ratio = r.real.p50 / r.floor.p50;
    r.sameRatio = r.real.p50 / r.same.p50;
    const t = { floor: TARGET_FLOOR[r.tool], ratio: TARGET_RATIO[r.transport] };
    r.target = {
      ...t,
      value: t.floor === 'echo' ? r.ratio : r.sameRatio,
      floorP50: t.floor === 'echo' ? r.floor.p50 : r.same.p50,
    };
  }
  const rows = [];
  for (const r of results) {
    rows.push([
      r.transport,
      r.tool,
      fmt(r.real.n, 0),
      fmt(r.real.cps, 0),
      fmtMs(r.real.p50),
      fmtMs(r.real.p99),
      fmtX(r.ratio),
      fmtX(r.sameRatio),
    ]);
    rows.push([
      '',
      'floor: bare SDK echo, same arguments',
      fmt(r.floor.n, 0),
      fmt(r.floor.cps, 0),
      fmtMs(r.floor.p50),
      fmtMs(r.floor.p99),
      fmtX(1),
      fmtX(r.floor.p50 / r.same.p50),
    ]);
    rows.push([
      '',
      'floor: bare SDK, same payload',
      fmt(r.same.n, 0),
      fmt(r.same.cps, 0),
      fmtMs(r.same.p50),
      fmtMs(r.same.p99),
      fmtX(r.same.p50 / r.floor.p50),
      fmtX(1),
    ]);
  }
  const us = (ms) => `${fmt(ms * 1000, 0)} µs`;
  const split = results.map((r) => {
    const payload = r.same.p50 - r.floor.p50;
    const ours = r.real.p50 - r.same.p50;
    return [r.transport, r.tool, us(r.floor.p50), us(payload), us(ours), `${fmt((100 * ours) / r.real.p50, 0)}%`];
  });
  return {
    id: 'mcp',
    title: '2. MCP overhead (official v2 SDK client, sequential calls)',
    sections: [
      {
        caption: 'Calls',
        header: ['transport', 'tool', 'calls', 'calls/s', 'p50', 'p99', 'p50 ÷ echo p50', 'p50 ÷ same-payload p50'],
        rows,
      },
      {
        caption: "Where a call's p50 goes",
        header: [
          'transport',
          'tool',
          'protocol (echo)',
          'payload (same payload − echo)',
          'ours (usp-server − same payload)',
          'ours ÷ usp-server',
        ],
        rows: split,
      },
    ],
    notes: [
      'stdio: `usp-server mcp --demo --db :memory:` (real clock; the query asks for tomorrow). HTTP: usp-server in a child process (demo business, clock pinned), one 2025-11-25 session per client. The availability query asks for one day of svc_haircut (3 stylists, default limit 50 slots).',
      'Floors: a bare SDK `Server` (bench/mcp-floor.mjs) on the same transport, given the same arguments: `echo` answers them back; the same-payload tool answers the very result usp-server gave for that call (content text, structuredContent, _meta), captured once at the start. Payload cost = same payload − echo; ours = usp-server − same payload (differences of p50s, so only indicative when small).',
      "Client, real server and floor server run at the same time in separate processes; usp-server, echo and same-payload calls alternate in chunks of 100. Latencies are measured in the client, so they include the SDK client's own cost (the same on every side).",
    ],
    targets: results.map((r) => ({
      name: `MCP ${r.transport} ${r.tool} vs ${r.target.floor === 'echo' ? 'echo floor' : 'same-payload floor'} (p50)`,
      target: `≤ ${r.target.ratio}×`,
      value: `${fmtX(r.target.value)} (${fmtMs(r.real.p50)} vs ${fmtMs(r.target.floorP50)})`,
      ok: r.target.value <= r.target.ratio,
    })),
    memory,
    data: { results },
  };
}
