/**
 * Benchmark 8: server memory per idle MCP session (2025-era protocol, Streamable HTTP).
 *
 * The server runs in its own process (bench/server-child.mjs, demo business, --expose-gc, session
 * caps raised so that one address may hold them all). Each session is what an SDK client leaves
 * behind when it connects and then waits: `initialize`, then `notifications/initialized`, then
 * nothing. The heap is measured after full collections at 0, 100 and 1,000 open sessions (the
 * figure per session is the delta divided by the count), RSS beside it; then every session is ended
 * (DELETE /mcp) and the heap measured again, so that a leak shows as memory not given back.
 *
 * The SDK floor (bench/mcp-floor.mjs: the bare low-level Server with one tool) is measured the same
 * way, for what the SDK itself costs per session. USP_BENCH_BASE_DIST=/path/to/an/older/dist adds
 * that build, for a before/after.
 * --quick: 20 and 100 sessions.
 */
import { fmt, startChild } from './lib.mjs';

/** Target (issue 40 item 5): what one idle session may cost the server, in bytes of heap, its GET stream open too. */
const TARGET_BYTES_PER_SESSION = 10 * 1024;
const PROTOCOL = '2025-06-18';
const ACCEPT = 'application/json, text/event-stream';

/** One idle session: initialize, the initialized notification, and with `stream` the GET stream an SDK client opens; returns its id. */
export async function openSession(url, stream) {
  const init = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: PROTOCOL,
        capabilities: {},
        clientInfo: { name: 'usp-bench-memory', version: '1.0.0' },
      },
    }),
  });
  const text = await init.text();
  const id = init.headers.get('mcp-session-id');
  if (!init.ok || !id || !text.includes('"protocolVersion"'))
    throw new Error(`mcpmem: initialize failed (${init.status}): ${text.slice(0, 300)}`);
  const note = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-session-id': id,
      'mcp-protocol-version': PROTOCOL,
    },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await note.arrayBuffer();
  if (note.status !== 202) throw new Error(`mcpmem: notifications/initialized answered ${note.status}`);
  if (stream) {
    // Read (keep-alive comments) and discarded until the session ends (DELETE), as a client would.
    const get = await fetch(`${url}/mcp`, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL },
    });
    if (get.status !== 200) throw new Error(`mcpmem: the GET stream answered ${get.status}`);
    const reader = get.body.getReader();
    streams.set(id, reader);
    void (async () => {
      for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return;
    })();
  }
  return id;
}

/** The open GET streams, by session id. */
const streams = new Map();

export async function endSession(url, id) {
  const res = await fetch(`${url}/mcp`, {
    method: 'DELETE',
    headers: { 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL },
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`mcpmem: DELETE answered ${res.status}`);
  const reader = streams.get(id);
  streams.delete(id);
  await reader?.cancel().catch(() => undefined);
}

/** Open sessions until `ids` holds `n`, a few at a time. */
async function openUpTo(url, ids, n, stream) {
  while (ids.length < n) {
    const batch = Math.min(16, n - ids.length);
    ids.push(...(await Promise.all(Array.from({ length: batch }, () => openSession(url, stream)))));
  }
}

/** The memory curve of one build: settled heap and RSS at each count of open sessions. */
async function measure(counts, { dist, floor, stream = false }) {
  const most = counts[counts.length - 1];
  const config = floor
    ? { kind: 'mcp-floor' }
    : {
        kind: 'usp',
        business: 'demo',
        mcpSessions: { maxSessions: most + 100, maxSessionsPerAddress: most + 100 },
        connections: { maxConnections: most + 100, maxConnectionsPerAddress: most + 100 },
      };
  const server = await startChild(config, { execArgv: ['--expose-gc'], env: dist ? { USP_BENCH_DIST: dist } : {} });
  try {
    const settled = () => server.rpc('settled-memory');
    // Warm up: the first sessions load code and build what is built once per process.
    const warm = [];
    await openUpTo(server.url, warm, 50, stream);
    for (const id of warm) await endSession(server.url, id);
    const zero = await settled();
    if (!zero.gc) throw new Error('mcpmem: the server child has no gc() (--expose-gc)');
    const ids = [];
    const points = [];
    let prev = { n: 0, m: zero };
    for (const n of counts) {
      await openUpTo(server.url, ids, n, stream);
      const m = await settled();
      // Average from no sessions, and marginal from the previous count (code compiled while the
      // first sessions were served, and other one-off growth, falls out of the marginal figure).
      const step = n - prev.n;
      points.push({
        n,
        heap: (m.heapUsed - zero.heapUsed) / n,
        rss: (m.rss - zero.rss) / n,
        marginalHeap: (m.heapUsed - prev.m.heapUsed) / step,
        marginalRss: (m.rss - prev.m.rss) / step,
        from: prev.n,
      });
      prev = { n, m };
    }
    // Every session ended: what is left is mostly code compiled meanwhile (no session's id is
    // still reachable in a heap snapshot); a figure that grows with the count would be a leak.
    for (const id of ids.splice(0)) await endSession(server.url, id);
    const after = await settled();
    return { points, leftAfterClose: after.heapUsed - zero.heapUsed, zero };
  } finally {
    await server.stop();
  }
}

const kb = (bytes) => `${fmt(bytes / 1024, 1)} KB`;

export async function run({ quick }) {
  const counts = quick ? [20, 100] : [100, 1000];
  const most = counts[counts.length - 1];
  const builds = [{ name: 'this build' }];
  if (process.env.USP_BENCH_BASE_DIST) builds.push({ name: 'previous build', dist: process.env.USP_BENCH_BASE_DIST });
  builds.push({ name: 'SDK floor', floor: true, rounds: 1 });
  // What an SDK client leaves open: the GET stream too (its socket, the SSE stream and keep-alive timer).
  builds.push({ name: 'this build, GET stream open', stream: true, rounds: 1 });
  // The SDK's own cost of the same open stream: what this build's streamed figure is measured against.
  builds.push({ name: 'SDK floor, GET stream open', floor: true, stream: true, rounds: 1 });
  // Rounds interleaved across the builds; each build's figures are from its median round (by the
  // marginal heap at the largest count), as a heap figure moves by about 1 KB a session between runs.
  // Three rounds when there is a before/after to tell apart, one otherwise (npm run bench).
  const rounds = quick || !process.env.USP_BENCH_BASE_DIST ? 1 : 3;
  const runs = builds.map(() => []);
  for (let round = 0; round < rounds; round++)
    for (let i = 0; i < builds.length; i++)
      if (round < (builds[i].rounds ?? rounds)) runs[i].push(await measure(counts, builds[i]));
  const marginal = (m) => m.points[m.points.length - 1].marginalHeap;
  const results = builds.map((b, i) => ({
    ...b,
    ...[...runs[i]].sort((x, y) => marginal(x) - marginal(y))[Math.floor(runs[i].length / 2)],
  }));

  const rows = results.flatMap((r) =>
    r.points.map((p) => [
      r.name,
      String(p.n),
      kb(p.heap),
      kb(p.rss),
      `${kb(p.marginalHeap)} (${p.from}→${p.n})`,
      kb(p.marginalRss),
    ]),
  );
  const closedRows = results.map((r) => [r.name, kb(r.leftAfterClose), kb(r.leftAfterClose / most)]);
  const mine = results[0].points[results[0].points.length - 1];
  const sections = [
    {
      caption: 'Server memory per idle session (delta from no sessions, after full GC, divided by the count)',
      header: [
        'build',
        'sessions',
        'heap / session',
        'RSS / session',
        'marginal heap / session',
        'marginal RSS / session',
      ],
      rows,
    },
    {
      caption: `Heap left after ending every session (DELETE /mcp), against no sessions`,
      header: ['build', 'heap left', 'per session ended'],
      rows: closedRows,
    },
  ];
  const notes = [
    'SDK floor: the bare low-level SDK Server with one echo tool, one transport per session, in a plain Hono app (bench/mcp-floor.mjs): what the SDK itself costs per session.',
    `Each session: initialize (protocol ${PROTOCOL}) and notifications/initialized over Streamable HTTP, then idle (no GET stream, no calls). The server runs with --expose-gc; every figure is taken after three full collections, from a baseline after 50 warm-up sessions were opened and ended; with a previous build to compare, it and this build are measured in three interleaved rounds and the median round is shown. RSS per session is noisier than heap (the allocator keeps pages).`,
  ];
  const last = (name) => {
    const r = results.find((x) => x.name === name);
    return r?.points[r.points.length - 1];
  };
  const floor = last('SDK floor');
  const streamed = last('this build, GET stream open');
  notes.push(
    `With the GET stream open (as the SDK clients leave a session), an idle session holds ${kb(streamed.marginalHeap)} of heap and ${kb(streamed.marginalRss)} of RSS, the socket and the SSE stream included.`,
  );
  notes.push(
    `This build adds ${kb(mine.marginalHeap - floor.marginalHeap)} of heap per idle session over the SDK floor (${kb(mine.marginalHeap)} against ${kb(floor.marginalHeap)}).`,
  );
  const base = last('previous build');
  if (base) {
    notes.push(
      `Between ${mine.from} and ${mine.n} sessions this build adds ${fmt(mine.marginalHeap / base.marginalHeap, 2)}× the heap per session of the previous build (${kb(mine.marginalHeap)} against ${kb(base.marginalHeap)}); from no sessions, ${fmt(mine.heap / base.heap, 2)}× (${kb(mine.heap)} against ${kb(base.heap)}).`,
    );
  }
  return {
    id: 'mcpmem',
    title: '8. Memory per idle MCP session',
    sections,
    notes,
    targets: [
      {
        name: `Heap per idle MCP session at ${mine.n} sessions`,
        target: '< 10 KB',
        value: kb(mine.heap),
        ok: mine.heap < TARGET_BYTES_PER_SESSION,
      },
      {
        name: `Heap per idle MCP session with its GET stream open, at ${mine.n} sessions`,
        target: '< 10 KB',
        value: kb(streamed.heap),
        ok: streamed.heap < TARGET_BYTES_PER_SESSION,
      },
    ],
  };
}
