/**
 * A server in its own process for the HTTP benchmarks, so the load generator and the server never
 * share an event loop (or a core, on the 2-core bench machine). Started by lib.mjs `startChild`
 * with one JSON argument:
 *
 *   { kind: 'usp', business: 'demo' | { staff, interval, duration, maxAdvanceDays }, db?: string, availabilityCacheBytes?: number, mcpSessions?: { maxSessions, ... }, connections?: { maxConnections, ... } }
 *   { kind: 'rest-floor' }   a bare Hono app answering static JSON bodies (set over IPC)
 *   { kind: 'mcp-floor' }    the bare SDK floors over Streamable HTTP (bench/mcp-floor.mjs): echo, and
 *                            the same-payload tools (results set over IPC with `set-payloads`)
 *
 * A usp server starts as bin/usp-server.js starts the product: the heap growing factor of
 * src/server/heap.ts set first (docs/DECISIONS.md, "V8 heap growing factor").
 * It reports over IPC: `ready` with its URL, and answers `memory` (peak RSS since the last
 * `reset-peak`: the kernel's VmHWM on Linux, the kernel's lifetime peak, CPU time used so far, the
 * heap growing percent in effect), `audit`
 * (double bookings, usp only), `seed` (existing bookings written straight to the store, usp only), `stop`. The usp server runs with the clock pinned to BENCH_NOW, sandbox, no sweeper.
 * USP_BENCH_DIST=path/to/another/dist (relative to bench/) loads another build, for A/B runs.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { readFileSync, statSync, writeFileSync } from 'node:fs';

const config = JSON.parse(process.argv[2] ?? '{}');
/** The compiled server to load: dist/ unless USP_BENCH_DIST names another build (A/B experiments). */
const DIST = new URL(`${process.env.USP_BENCH_DIST ?? '../dist'}/`, import.meta.url).href;

/**
 * Peak RSS. On Linux the kernel keeps it exactly (VmHWM) and lets us restart it by writing 5 to
 * /proc/self/clear_refs, at no cost to the server being measured. Elsewhere a 50 ms sampler stands in.
 */
const procPeak = (() => {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return /VmHWM/.test(readFileSync('/proc/self/status', 'utf8'));
  } catch {
    return false;
  }
})();
let sampledPeak = process.memoryUsage.rss();
if (!procPeak) {
  const sampler = setInterval(() => {
    const r = process.memoryUsage.rss();
    if (r > sampledPeak) sampledPeak = r;
  }, 50);
  sampler.unref();
}

/** Lifetime peak RSS from /proc (VmHWM), in bytes; falls back to resourceUsage().maxRSS. */
function lifetimePeak() {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    /* not Linux */
  }
  return process.resourceUsage().maxRSS * 1024;
}

/**
 * What the RSS was made of at its highest sample since the last reset (every 20 ms): the V8 heap
 * reserved (heapTotal), memory outside it that V8 knows of (external: buffers), and the rest (code,
 * native libraries' own memory such as SQLite's page caches, sockets). A sample, not the kernel's
 * exact peak: it tells what the peak is made of.
 */
let atPeak = null;
const composition = setInterval(() => {
  const m = process.memoryUsage();
  if (!atPeak || m.rss > atPeak.rss)
    atPeak = { rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external };
}, 20);
composition.unref();

function resetPeak() {
  if (procPeak) writeFileSync('/proc/self/clear_refs', '5');
  sampledPeak = process.memoryUsage.rss();
  atPeak = null;
}

function peak() {
  const rss = process.memoryUsage.rss();
  if (procPeak) return Math.max(rss, lifetimePeak());
  if (rss > sampledPeak) sampledPeak = rss;
  return sampledPeak;
}

/** CPU time (user + system) this process has used, in ms: per-request cost independent of machine load. */
function cpuMs() {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}

let usp = null;
let http = null;
/** The V8 heap growing percent the usp server runs with (null: V8's own choice). */
let heapGrowingPercent = null;
let floorBodies = {};
const handlers = {
  'reset-peak': () => {
    resetPeak();
    return { rss: process.memoryUsage.rss(), cpuMs: cpuMs() };
  },
  memory: () => {
    const m = process.memoryUsage();
    return {
      peakRss: peak(),
      rss: m.rss,
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      lifetimePeak: lifetimePeak(),
      atPeak,
      cpuMs: cpuMs(),
      heapGrowingPercent,
    };
  },
  'set-bodies': (msg) => {
    floorBodies = msg.bodies;
    return { ok: true };
  },
  'set-payloads': async (msg) => {
    const { setFloorPayloads } = await import('./mcp-floor.mjs');
    setFloorPayloads(msg.payloads);
    return { ok: true };
  },
  gc: () => {
    globalThis.gc?.();
    return { rss: process.memoryUsage.rss() };
  },
  /** Heap and RSS after full collections (the child runs with --expose-gc). */
  'settled-memory': async () => {
    for (let i = 0; i < 3; i++) {
      globalThis.gc?.();
      await new Promise((r) => setImmediate(r));
    }
    const m = process.memoryUsage();
    return {
      gc: typeof globalThis.gc === 'function',
      heapUsed: m.heapUsed,
      rss: m.rss,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
    };
  },
  /** A heap snapshot written to `file` (for analysis: what a session or a business holds). */
  'heap-snapshot': async (msg) => {
    globalThis.gc?.();
    const { writeHeapSnapshot } = await import('node:v8');
    return { file: writeHeapSnapshot(msg.file) };
  },
  /** Event-loop stalls and GC pauses from now until `stalls-stop` (bench/write-path-tail.mjs). */
  'stalls-start': (msg) => startStalls(msg),
  'stalls-stop': () => stopStalls(),
  audit: async () => auditBookings(),
  seed: async (msg) => seedBookings(msg),
  stop: async () => {
    if (usp) await usp.close();
    if (http) await new Promise((r) => http.close(() => r()));
    process.exit(0);
  },
};

/**
 * What holds the event loop: `monitorEventLoopDelay`'s histogram, every gap over `gapMs` between two
 * ticks of a 5 ms timer (its start and length, relative to the start), and every GC pause by kind.
 */
let stalls = null;
async function startStalls({ gapMs = 40 } = {}) {
  const { monitorEventLoopDelay, PerformanceObserver, performance } = await import('node:perf_hooks');
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const t0 = performance.now();
  const gaps = [];
  const gcs = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    if (now - last - 5 > gapMs) gaps.push({ at: Math.round(last - t0), ms: Math.round(now - last - 5) });
    last = now;
  }, 5);
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      gcs.push({ at: Math.round(e.startTime - t0), ms: e.duration, kind: e.detail?.kind });
  });
  obs.observe({ entryTypes: ['gc'] });
  // Each request's time inside the server: from its headers parsed to its response finished.
  const dc = await import('node:diagnostics_channel');
  const began = new WeakMap();
  const served = [];
  const lags = [];
  const onStart = ({ request, response }) => {
    const now = performance.now();
    began.set(response, now);
    const sent = Number(request.headers['x-bench-sent']);
    if (sent) lags.push(performance.timeOrigin + now - sent);
  };
  const onFinish = ({ response }) => {
    const b = began.get(response);
    if (b !== undefined) served.push(performance.now() - b);
  };
  dc.subscribe('http.server.request.start', onStart);
  dc.subscribe('http.server.response.finish', onFinish);
  const unsubscribe = () => {
    dc.unsubscribe('http.server.request.start', onStart);
    dc.unsubscribe('http.server.response.finish', onFinish);
  };
  // Each write transaction: its wait in the store's queue, its body, and its wait for the COMMIT.
  const txs = { queued: [], body: [], commit: [] };
  const store = usp?.store;
  const original = store?.transaction;
  if (store)
    store.transaction = function (fn) {
      const called = performance.now();
      let start = 0;
      let end = 0;
      return original
        .call(this, async (tx) => {
          start = performance.now();
          try {
            return await fn(tx);
          } finally {
            end = performance.now();
          }
        })
        .finally(() => {
          if (!start) return;
          txs.queued.push(start - called);
          txs.body.push(end - start);
          txs.commit.push(performance.now() - end);
        });
    };
  // Each COMMIT on the SQLite writer (the group commit's, with any checkpoint SQLite runs inside it).
  const commitStmt = store?.commit;
  const commitRun = commitStmt?.run;
  const commits = [];
  if (commitRun)
    commitStmt.run = function (...args) {
      const t = performance.now();
      try {
        return commitRun.apply(this, args);
      } finally {
        commits.push(performance.now() - t);
      }
    };
  const unwrap = () => {
    if (store) store.transaction = original;
    if (commitRun) commitStmt.run = commitRun;
  };
  stalls = { h, timer, obs, gaps, gcs, served, lags, txs, commits, unwrap, unsubscribe, cpu0: cpuMs(), t0 };
  return { ok: true };
}
async function stopStalls() {
  const { performance } = await import('node:perf_hooks');
  const { h, timer, obs, gaps, gcs, served, lags, txs, commits, unwrap, unsubscribe, cpu0, t0 } = stalls;
  clearInterval(timer);
  unsubscribe();
  unwrap();
  obs.disconnect();
  h.disable();
  stalls = null;
  const q = (p) => h.percentile(p) / 1e6;
  return {
    seconds: (performance.now() - t0) / 1000,
    cpuMs: cpuMs() - cpu0,
    delay: { p50: q(50), p99: q(99), max: h.max / 1e6, mean: h.mean / 1e6 },
    gaps,
    gcs,
    served,
    lags,
    commits,
    walBytes: (() => {
      try {
        return statSync(`${config.db}-wal`).size;
      } catch {
        return null;
      }
    })(),
    txs,
  };
}

process.on('message', async (msg) => {
  const h = handlers[msg.type];
  if (!h) return process.send({ seq: msg.seq, error: `unknown request ${msg.type}` });
  try {
    process.send({ seq: msg.seq, result: await h(msg) });
  } catch (err) {
    process.send({ seq: msg.seq, error: String(err?.stack ?? err) });
  }
});
process.on('disconnect', () => process.exit(0));

/**
 * Bookings that hold their slot (pending, requires_action, confirmed, in_progress), counted per
 * slot and per resource interval: more than one on a slot, or two overlapping on one resource,
 * is a double booking.
 */
async function auditBookings() {
  const { holdsSlot } = await import(`${DIST}domain/booking-status.js`);
  const records = await usp.store.read((tx) => tx.bookings.recent(10_000_000));
  const live = records.filter((r) => holdsSlot(r.booking.status));
  const perSlot = new Map();
  for (const r of live) perSlot.set(r.priv.slot_key, (perSlot.get(r.priv.slot_key) ?? 0) + 1);
  let slotDoubles = 0;
  for (const n of perSlot.values()) if (n > 1) slotDoubles += n - 1;
  const perResource = new Map();
  for (const r of live) {
    for (const id of r.priv.resource_ids) {
      let list = perResource.get(id);
      if (!list) perResource.set(id, (list = []));
      list.push([r.priv.start_ms, r.priv.end_ms]);
    }
  }
  let overlaps = 0;
  for (const list of perResource.values()) {
    list.sort((a, b) => a[0] - b[0]);
    let maxEnd = -Infinity;
    for (const [s, e] of list) {
      if (s < maxEnd) overlaps++;
      if (e > maxEnd) maxEnd = e;
    }
  }
  const byStatus = {};
  for (const r of records) byStatus[r.booking.status] = (byStatus[r.booking.status] ?? 0) + 1;
  return { total: records.length, live: live.length, slots: perSlot.size, slotDoubles, overlaps, byStatus };
}

/**
 * Write `count` existing bookings, as the server itself would have left them, straight into the
 * store: one real hold + booking through the app (the template), then copies of its rows (booking,
 * converted hold, claim, outbox events, idempotency records, credentials) on other slots, in
 * transactions of 500. Slots: `slots(i)` gives the i-th as { startMs, staff } (bench/lib.mjs seedSlot).
 */
async function seedBookings({ count, firstDay, days }) {
  if (count <= 0) return { seeded: 0 };
  const { randomUUID, createHash } = await import('node:crypto');
  const { slotIdEncoder } = await import(`${DIST}domain/slot-id.js`);
  const { formatInstant } = await import(`${DIST}domain/time.js`);
  const lib = await import('./lib.mjs');
  const slot = (i) => lib.seedSlot(i, firstDay, days);
  const encoders = new Map();
  const slotId = (staff, startMs) => {
    const rid = lib.staffId(staff);
    let e = encoders.get(rid);
    if (!e) encoders.set(rid, (e = slotIdEncoder('svc_bench', [rid])));
    return e(startMs);
  };
  const profile = 'https://platform-seed.example/profile.json';
  const post = async (path, body) => {
    const res = await usp.app.fetch(
      new Request(`http://127.0.0.1${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'usp-agent': `profile="${profile}"`,
          'idempotency-key': randomUUID(),
        },
        body: JSON.stringify(body),
      }),
    );
    return res.json();
  };
  const first = slot(0);
  const firstId = slotId(first.staff, first.startMs);
  const h = await post('/availability/holds', { service_id: 'svc_bench', slot_id: firstId });
  const b = await post('/bookings', {
    service_id: 'svc_bench',
    slot_id: firstId,
    hold_id: h.hold.id,
    buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
  });
  const booking = b.booking;
  const now = usp.clock.now();
  const tpl = await usp.store.read(async (tx) => {
    const rec = await tx.bookings.get(booking.id);
    return {
      booking: rec,
      hold: await tx.holds.get(rec.priv.hold_id),
      claims: await tx.claims.active(rec.priv.resource_ids, rec.priv.start_ms, rec.priv.end_ms, now),
      events: (await tx.outbox.recent(20)).filter((e) => e.order_key === booking.id),
    };
  });
  const zone = lib.ZONE;
  const t = { start: tpl.booking.priv.start_ms, end: tpl.booking.priv.end_ms, staff: lib.staffId(first.staff) };
  const swaps = (i, s) => {
    const start = s.startMs;
    const end = start + (t.end - t.start);
    const rid = lib.staffId(s.staff);
    return [
      [booking.id, `bkg_seed${String(i).padStart(21, '0')}`],
      [tpl.booking.priv.hold_id, `hld_seed${String(i).padStart(21, '0')}`],
      [firstId, slotId(s.staff, start)],
      [formatInstant(t.start, zone), formatInstant(start, zone)],
      [formatInstant(t.end, zone), formatInstant(end, zone)],
      [String(t.start), String(start)],
      [String(t.end), String(end)],
      [t.staff, rid],
      [`"Staff ${first.staff}"`, `"Staff ${s.staff}"`],
    ];
  };
  // All pairs at once, in one pass: replaced in turn, a new start equal to the template's end
  // would then be replaced again as an end.
  const escapeRe = (x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(
    swaps(0, first)
      .map(([a]) => escapeRe(a))
      .join('|'),
    'g',
  );
  const apply = (text, pairs) => {
    const to = new Map(pairs);
    return text.replace(pattern, (m) => to.get(m));
  };
  const texts = {
    booking: JSON.stringify(tpl.booking),
    hold: JSON.stringify(tpl.hold),
    claims: JSON.stringify(tpl.claims),
    events: JSON.stringify(tpl.events),
  };
  const hash = (v) => createHash('sha256').update(v).digest('base64url');
  const BATCH = 500;
  for (let from = 1; from < count; from += BATCH) {
    await usp.store.transaction(async (tx) => {
      for (let i = from; i < Math.min(count, from + BATCH); i++) {
        const pairs = swaps(i, slot(i));
        const rec = JSON.parse(apply(texts.booking, pairs));
        await tx.bookings.insert(rec);
        await tx.holds.insert(JSON.parse(apply(texts.hold, pairs)));
        await tx.claims.add(JSON.parse(apply(texts.claims, pairs)));
        for (const e of JSON.parse(apply(texts.events, pairs)))
          await tx.outbox.add({ ...e, event_id: `evt_${randomUUID().replace(/-/g, '')}` });
        for (const [op, body] of [
          ['create_hold', { hold: rec.priv.hold_id }],
          ['create_booking', { booking: rec.booking }],
        ]) {
          await tx.idempotency.put({
            scope: `${profile}|${op}|${randomUUID()}`,
            request_hash: hash(op + i),
            status: 201,
            body: { status: 201, data: body, messages: [] },
            created_ms: now,
            expires_ms: now + 86_400_000,
          });
        }
        for (const [kind, id] of [
          ['hold', rec.priv.hold_id],
          ['booking', rec.booking.id],
        ]) {
          await tx.security.putCredential({
            value_hash: hash(randomUUID()),
            resource_kind: kind,
            resource_id: id,
            jkt: null,
            principal: profile,
            expires_ms: now + 365 * 86_400_000,
            revoked: false,
          });
        }
      }
      // Events that were due went out long ago: marked dispatched in the same transaction, so the
      // running dispatcher never sees them pending (it used to turn a share of them into a backlog
      // of deliveries to the seed's platform, which the measured rounds then paid for).
      const due = await tx.outbox.due(now, BATCH * 4);
      await tx.outbox.markDispatched(due.map((e) => e.seq));
    });
  }
  return { seeded: count };
}

function listen(fetch) {
  return new Promise((resolve, reject) => {
    http = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(`http://127.0.0.1:${info.port}`));
    http.once('error', reject);
  });
}

async function main() {
  let url;
  if (config.kind === 'usp') {
    // As bin/usp-server.js starts the product: the heap growing factor before the server loads. A
    // build from before src/server/heap.ts (USP_BENCH_DIST) has none and runs on V8's default.
    const heap = await import(`${DIST}server/heap.js`).catch(() => null);
    heapGrowingPercent = heap?.tuneHeap() ?? null;
    const { createUspServer } = await import(`${DIST}server/compose.js`);
    const { ManualClock, silentLogger } = await import(`${DIST}operations/index.js`);
    const lib = await import('./lib.mjs');
    const business = config.business === 'demo' ? lib.demoBusinessDef() : lib.generatedBusiness(config.business);
    usp = await createUspServer({
      business,
      db: config.db ?? ':memory:',
      sandbox: true,
      clock: new ManualClock(lib.BENCH_NOW),
      log: silentLogger,
      sweepIntervalMs: 0,
      // The benchmark measures throughput from 64 clients on one address: rate limits off (--no-rate-limit).
      security: { rateLimits: false },
      // Bytes for the availability cache (0 = off, as --no-availability-cache); the default when absent.
      availabilityCacheBytes: config.availabilityCacheBytes,
      // The session-memory benchmark opens 1,000 sessions from one address: caps raised by the caller.
      ...(config.mcpSessions ? { mcpSessions: config.mcpSessions } : {}),
      ...(config.connections ? { connections: config.connections } : {}),
    });
    url = await usp.listen(0, '127.0.0.1');
  } else if (config.kind === 'rest-floor') {
    const app = new Hono();
    // The same bytes the real route answers (captured by the bench), or a small static object.
    app.all('*', (c) => c.json(floorBodies[`${c.req.method} ${c.req.path}`] ?? { ok: true }));
    url = await listen(app.fetch);
  } else if (config.kind === 'mcp-floor') {
    const { createFloorMcpApp } = await import('./mcp-floor.mjs');
    url = await listen(createFloorMcpApp().fetch);
  } else {
    throw new Error(`unknown kind ${config.kind}`);
  }
  resetPeak();
  process.send({ type: 'ready', url });
}

main().catch((err) => {
  process.send?.({ type: 'error', message: String(err?.stack ?? err) });
  process.exit(1);
});
