/**
 * Prometheus metrics as a scraper sees them: fetched over HTTP from /metrics and parsed by a
 * text-format parser (never read from prom-client's registry in-process).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { book, startWebhookServer, waitFor, type WebhookTestServer } from '../webhooks/helpers.js';
import { StoreUnavailable } from '../../src/store/index.js';
import { createUspServer, type ServerOptions, type UspServer } from '../../src/server/compose.js';
import { silentLogger } from '../../src/operations/index.js';
import { demoBusiness } from '../support/server.js';

/** A server with options the shared test server does not take (a proxy, rate limits). */
async function startWith(extra: Partial<ServerOptions>): Promise<{ url: string; server: UspServer }> {
  const server = await createUspServer({
    business: demoBusiness(),
    db: ':memory:',
    sandbox: true,
    log: silentLogger,
    adminKeys: [ADMIN_KEY],
    sweepIntervalMs: 0,
    ...extra,
  });
  return { url: await server.listen(0, '127.0.0.1'), server };
}

interface Family {
  name: string;
  type: string;
  metrics: Array<{
    labels?: Record<string, string>;
    value?: string;
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }>;
}

/** The last scrape's text (the parser drops the labels of histogram samples, so those are read from it). */
let lastText = '';

async function scrape(url: string, headers: Record<string, string> = {}): Promise<Map<string, Family>> {
  const res = await fetch(`${url}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  lastText = await res.text();
  const families = parsePrometheusTextFormat(lastText) as Family[];
  return new Map(families.map((f) => [f.name, f]));
}

/** One histogram series' sample (`_count`, `_sum`, or `_bucket` with its `le`), from the scraped text. */
function histogramSample(name: string, labels: string): number | undefined {
  const line = lastText.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

function sample(f: Map<string, Family>, name: string, labels: Record<string, string> = {}) {
  const family = f.get(name);
  if (!family) throw new Error(`no metric ${name}`);
  return family.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

const value = (f: Map<string, Family>, name: string, labels: Record<string, string> = {}) => {
  const s = sample(f, name, labels);
  return s?.value === undefined ? undefined : Number(s.value);
};

describe('GET /metrics serves calls, bookings, holds, the outbox, deliveries, sessions and the process in the Prometheus text format', () => {
  let t: TestServer;
  afterEach(async () => t?.close());

  it('a booking through REST and an unavailable slot show up as calls by door, operation and outcome, with a latency histogram and the booking counted by status', async () => {
    t = await startTestServer();
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(2),
      end_date: day(2),
    });
    const slot = q.body.slots[0];
    expect(
      (await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER })).status,
    ).toBe(201);
    const again = await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER });
    expect(again.body.messages[0].code).toBe('slot_unavailable');
    const held = await t.call('POST', '/availability/holds', {
      service_id: 'svc_haircut',
      slot_id: q.body.slots[q.body.slots.length - 1].id,
    });
    expect(held.status, JSON.stringify(held.body)).toBe(201);
    expect((await t.call('POST', '/bookings', { service_id: 'svc_haircut' })).status).toBe(400);

    const f = await scrape(t.url);
    expect(f.get('usp_calls_total')?.type).toBe('COUNTER');
    expect(value(f, 'usp_calls_total', { door: 'rest', operation: 'create_booking', outcome: 'ok' })).toBe(1);
    expect(
      value(f, 'usp_calls_total', { door: 'rest', operation: 'create_booking', outcome: 'slot_unavailable' }),
    ).toBe(1);
    expect(value(f, 'usp_calls_total', { door: 'rest', operation: 'create_booking', outcome: 'invalid_request' })).toBe(
      1,
    );
    expect(value(f, 'usp_calls_total', { door: 'rest', operation: 'query_availability', outcome: 'ok' })).toBe(1);
    expect(f.get('usp_call_duration_seconds')?.type).toBe('HISTOGRAM');
    const series = 'door="rest",operation="create_booking",outcome="ok"';
    expect(histogramSample('usp_call_duration_seconds_count', series)).toBe(1);
    expect(histogramSample('usp_call_duration_seconds_bucket', `le="+Inf",${series}`)).toBe(1);
    expect(histogramSample('usp_call_duration_seconds_sum', series)).toBeGreaterThan(0);

    expect(value(f, 'usp_bookings', { status: 'confirmed' })).toBe(1);
    expect(value(f, 'usp_holds_active')).toBe(1);
    expect(value(f, 'usp_outbox_due')).toBeGreaterThanOrEqual(0);
    expect(value(f, 'usp_webhook_deliveries_pending')).toBe(0);
    expect(value(f, 'usp_mcp_sessions')).toBe(0);
    expect(value(f, 'usp_store_gauges_stale')).toBe(0);
    expect(value(f, 'usp_process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(f.has('usp_nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('rate-limit refusals are counted by door and operation', async () => {
    const s = await startWith({ security: { rateLimits: { public: 2, reads: 2 } } });
    t = { close: () => s.server.close() } as TestServer;
    let refused = 0;
    for (let i = 0; i < 6; i++) {
      const r = await fetch(`${s.url}/services/list`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      if (r.status === 429) refused++;
    }
    expect(refused).toBeGreaterThan(0);
    const f = await scrape(s.url);
    expect(value(f, 'usp_rate_limit_refusals_total', { door: 'rest', operation: 'list_services' })).toBe(refused);
    expect(value(f, 'usp_calls_total', { door: 'rest', operation: 'list_services', outcome: 'rate_limited' })).toBe(
      refused,
    );
  });

  it('while the database does not answer, /metrics still answers 200: the database gauges keep their last values and are marked stale', async () => {
    t = await startTestServer();
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(2),
      end_date: day(2),
    });
    await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: q.body.slots[0].id, buyer: BUYER });
    expect(value(await scrape(t.url), 'usp_bookings', { status: 'confirmed' })).toBe(1);
    const store = t.server.store;
    const read = store.read.bind(store);
    store.read = () => Promise.reject(new StoreUnavailable('connection refused'));
    try {
      const f = await scrape(t.url);
      expect(value(f, 'usp_store_gauges_stale')).toBe(1);
      expect(value(f, 'usp_bookings', { status: 'confirmed' })).toBe(1);
      expect(value(f, 'usp_calls_total', { door: 'rest', operation: 'create_booking', outcome: 'ok' })).toBe(1);
    } finally {
      store.read = read;
    }
    expect(value(await scrape(t.url), 'usp_store_gauges_stale')).toBe(0);
  });
});

describe('/metrics is open to loopback peers and needs an admin API key from anywhere else', () => {
  let t: TestServer;
  afterEach(async () => t?.close());

  it('behind --trust-proxy a request forwarded for a public address gets 401 without the admin key and 200 with it', async () => {
    const { url, server } = await startWith({ trustProxy: true });
    t = { close: () => server.close() } as TestServer;
    const outside = { 'X-Forwarded-For': '203.0.113.9', 'X-Forwarded-Proto': 'https' };
    const refused = await fetch(`${url}/metrics`, { headers: outside });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect(
      (await fetch(`${url}/metrics`, { headers: { ...outside, Authorization: 'Bearer not-the-key' } })).status,
    ).toBe(401);
    const f = await scrape(url, { ...outside, Authorization: `Bearer ${ADMIN_KEY}` });
    expect(f.has('usp_calls_total')).toBe(true);
    // Forwarded for a loopback client (a sidecar through the proxy): open.
    expect((await fetch(`${url}/metrics`, { headers: { 'X-Forwarded-For': '127.0.0.1' } })).status).toBe(200);
  });
});

describe('/readyz names the database, the migrations and the dispatcher', () => {
  let t: TestServer;
  afterEach(async () => t?.close());

  it('a started server is ready with its migrations applied and its dispatcher running; a stopped dispatcher makes it unready', async () => {
    t = await startTestServer();
    const ok = await fetch(`${t.url}/readyz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({
      status: 'ready',
      database: 'sqlite',
      migrations: 'applied',
      dispatcher: 'running',
    });
    await t.server.dispatcher.stop(0);
    const down = await fetch(`${t.url}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'unavailable', dispatcher: 'stopped' });
  });

  it('a schema behind this build (a migration missing) makes /readyz answer 503 naming it', async () => {
    t = await startTestServer();
    // Forget the newest migration's record, as if this build ran against an older schema.
    const db = (t.server.store as unknown as { db: import('better-sqlite3').Database }).db;
    db.prepare('DELETE FROM schema_migrations WHERE version = (SELECT MAX(version) FROM schema_migrations)').run();
    const r = await fetch(`${t.url}/readyz`);
    expect(r.status).toBe(503);
    expect(((await r.json()) as { reason: string }).reason).toMatch(
      /^migrations not applied \(schema at \d+ of \d+\)$/,
    );
  });
});

describe('a dispatcher that stops releases the leases of deliveries it could not finish', () => {
  let w: WebhookTestServer;
  let hang: Server;
  afterEach(async () => {
    await w?.close();
    hang?.closeAllConnections();
    await new Promise((r) => hang?.close(r));
  });

  it('a delivery stuck on a receiver that never answers is pending and unleased after stop()', async () => {
    hang = createServer(() => undefined);
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${(hang.address() as AddressInfo).port}/hook`;
    w = await startWebhookServer({ timeoutMs: 30_000 });
    const profile = w.platform('stuck', hook);
    await book(w, profile, 'svc_haircut', day(2));
    const gauges = () => w.server.store.read((tx) => tx.bookings.gauges(w.clock.now()));
    await waitFor(async () => (await gauges()).deliveries_leased === 1, 5000);
    const f = await scrape(w.url);
    expect(value(f, 'usp_webhook_deliveries_leased')).toBe(1);
    await w.server.dispatcher.stop(50);
    expect(await gauges()).toMatchObject({ deliveries_pending: 1, deliveries_leased: 0 });
  });
});
