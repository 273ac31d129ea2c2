/**
 * /readyz and /metrics in host mode (src/server/hosted-probes.ts), over real HTTP at each host name:
 * a business's host answers its own readiness (its store) and its own figures only, labelled with
 * its id, open to loopback or its own admin key (never the other business's, nor the operator's);
 * the operator's host (and a name no business has) answers the deployment's readiness, naming no
 * business, and the deployment's figures with a bounded set of business labels (beyond the bound,
 * the rest added up as `_other`), open to loopback or the operator's key.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hostCall, hostFetch } from '../support/host-fetch.js';
import {
  KEYS,
  NORD,
  OPERATOR_HOST,
  OPERATOR_KEY,
  SALON,
  deployTwo,
  undeploy,
  type Biz,
  type Deployment,
} from '../support/hosting.js';
import { BUYER, PLATFORM, day } from '../support/server.js';
import { PG_URL, noteSkipped } from '../pg/helpers.js';

const AGENT = { 'USP-Agent': `profile="${PLATFORM}"` };
/** As the trusted proxy in front forwards a client on the Internet. */
const OUTSIDE = { 'X-Forwarded-For': '203.0.113.9', 'X-Forwarded-Proto': 'https' };

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function samples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(l);
      if (!m) throw new Error(`not a sample line: ${l}`);
      const labels = Object.fromEntries(
        [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1]!, x[2]!]),
      );
      return { name: m[1]!, labels, value: Number(m[3]) };
    });
}

const callsOf = (all: Sample[], business: string) =>
  all
    .filter(
      (s) => s.name === 'usp_calls_total' && s.labels.business === business && s.labels.operation === 'create_booking',
    )
    .reduce((n, s) => n + s.value, 0);

async function book(d: Deployment, b: Biz, n: number): Promise<void> {
  const q = await hostCall(`${d.url(b)}/availability/query`, {
    method: 'POST',
    headers: AGENT,
    body: { service_id: b.service, start_date: day(n), end_date: day(n), limit: 1 },
  });
  const r = await hostCall(`${d.url(b)}/bookings`, {
    method: 'POST',
    headers: AGENT,
    body: { service_id: b.service, slot_id: q.body.slots[0].id, buyer: BUYER },
  });
  expect(r.status, r.text).toBe(201);
}

const metricsAt = (d: Deployment, host: string, headers: Record<string, string> = {}) =>
  hostFetch(`${d.url(host)}/metrics`, { headers });

describe('readiness and metrics per business in host mode', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deployTwo({
      operator: true,
      trustProxy: true,
      metricsLabelled: 1,
    });
    await book(d, SALON, 2);
    await book(d, NORD, 3);
    await book(d, NORD, 4);
  }, 60_000);
  afterAll(() => undeploy(d));

  test("each business's host reads only its own figures, labelled with its id, and none of the process's", async () => {
    for (const [b, other] of [
      [SALON, NORD],
      [NORD, SALON],
    ] as const) {
      const res = await metricsAt(d, b.host);
      expect(res.status).toBe(200);
      const body = await res.text();
      expect(body).not.toContain(other.id);
      const all = samples(body);
      expect(all.length).toBeGreaterThan(10);
      expect(all.every((s) => s.labels.business === b.id)).toBe(true);
      expect(all.some((s) => /^usp_(process|nodejs)_/.test(s.name))).toBe(false);
      expect(callsOf(all, b.id)).toBe(b === SALON ? 1 : 2);
    }
  });

  test("from outside, a business's metrics need its own admin key: the other business's and the operator's are refused", async () => {
    expect((await metricsAt(d, SALON.host, OUTSIDE)).status).toBe(401);
    expect((await metricsAt(d, SALON.host, { ...OUTSIDE, Authorization: `Bearer ${KEYS[NORD.id]}` })).status).toBe(401);
    expect((await metricsAt(d, SALON.host, { ...OUTSIDE, Authorization: `Bearer ${OPERATOR_KEY}` })).status).toBe(401);
    const own = await metricsAt(d, SALON.host, { ...OUTSIDE, Authorization: `Bearer ${KEYS[SALON.id]}` });
    expect(own.status).toBe(200);
    expect(await own.text()).not.toContain(NORD.id);
  });

  test("the deployment's metrics: the operator's key from outside (no business's), a label per business up to the bound, the rest added up", async () => {
    expect((await metricsAt(d, OPERATOR_HOST, OUTSIDE)).status).toBe(401);
    expect((await metricsAt(d, OPERATOR_HOST, { ...OUTSIDE, Authorization: `Bearer ${KEYS[SALON.id]}` })).status).toBe(
      401,
    );
    expect((await metricsAt(d, '127.0.0.1', OUTSIDE)).status).toBe(401);
    // Nord used last: with a bound of one label, it has its own; the salon is counted under _other.
    await hostCall(`${d.url(NORD)}/.well-known/usp`);
    const res = await metricsAt(d, OPERATOR_HOST, { ...OUTSIDE, Authorization: `Bearer ${OPERATOR_KEY}` });
    expect(res.status).toBe(200);
    const all = samples(await res.text());
    const labelled = new Set(all.map((s) => s.labels.business).filter(Boolean));
    expect([...labelled].sort()).toEqual(['_other', NORD.id]);
    expect(callsOf(all, NORD.id)).toBe(2);
    expect(callsOf(all, '_other')).toBe(1);
    expect(all.find((s) => s.name === 'usp_hosting_businesses' && s.labels.status === 'active')?.value).toBe(2);
    expect(all.find((s) => s.name === 'usp_hosting_businesses_loaded')?.value).toBe(2);
    expect(
      all.some((s) => s.name === 'usp_process_resident_memory_bytes' || s.name === 'usp_nodejs_heap_size_used_bytes'),
    ).toBe(true);
  });

  test("/readyz: each business's host answers its own store's readiness; other names the deployment's, naming no business", async () => {
    for (const b of [SALON, NORD]) {
      const r = await hostCall(`${d.url(b)}/readyz`);
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ status: 'ready', database: 'sqlite' });
    }
    for (const name of [OPERATOR_HOST, '127.0.0.1', 'unknown.localhost']) {
      const r = await hostCall(`${d.url(name)}/readyz`);
      expect(r.status, r.text).toBe(200);
      expect(r.body).toEqual({ status: 'ready', directory: 'ready' });
    }
    // Nord's store fails: Nord is not ready, the salon and the deployment still are.
    await d.hosting.pool.peek(NORD.id, (s) => s.store.close());
    const nord = await hostCall(`${d.url(NORD)}/readyz`);
    expect(nord.status).toBe(503);
    expect(nord.text).not.toContain(SALON.id);
    expect((await hostCall(`${d.url(SALON)}/readyz`)).status).toBe(200);
    expect((await hostCall(`${d.url(OPERATOR_HOST)}/readyz`)).status).toBe(200);
    await d.hosting.pool.close(NORD.id);
  });

  test('one metrics registry for the process: a business closed takes its series with it, and 300 opens and closes do not grow it', async () => {
    await hostCall(`${d.url(SALON)}/.well-known/usp`);
    /** The process registry's samples per business label, as the salon's server sees the registry. */
    const perBusiness = async () => {
      const all = await d.hosting.pool.peek(SALON.id, (s) => s.metrics.registry.getMetricsAsJSON());
      const n = new Map<string, number>();
      for (const m of all ?? [])
        for (const v of m.values) n.set(String(v.labels.business), (n.get(String(v.labels.business)) ?? 0) + 1);
      return n;
    };
    const cycle = async () => {
      expect((await hostCall(`${d.url(NORD)}/.well-known/usp`)).status).toBe(200);
      expect((await metricsAt(d, NORD.host)).status).toBe(200);
      const open = await perBusiness();
      await d.hosting.pool.close(NORD.id);
      return open;
    };
    // What a hosted business's metrics render is its own series, though the registry holds both.
    expect((await hostCall(`${d.url(NORD)}/.well-known/usp`)).status).toBe(200);
    expect((await metricsAt(d, NORD.host)).status).toBe(200);
    const salonText = await d.hosting.pool.peek(SALON.id, (s) => s.metrics.scrape());
    expect(salonText).toContain(`business="${SALON.id}"`);
    expect(salonText).not.toContain(NORD.id);
    await d.hosting.pool.close(NORD.id);
    const first = await cycle();
    // Nord's series are in the registry the salon's server reports to while Nord is loaded...
    expect(first.get(NORD.id)).toBeGreaterThan(5);
    const salon = (await perBusiness()).get(SALON.id);
    for (let i = 1; i < 300; i++) await cycle();
    const after = await perBusiness();
    // ...and gone once it is closed, every time: the registry holds the loaded businesses' series only.
    expect(after.get(NORD.id)).toBeUndefined();
    expect(after.get(SALON.id)).toBe(salon);
    expect([...after.keys()]).toEqual([SALON.id]);
    const last = await cycle();
    expect(last.get(NORD.id)).toBe(first.get(NORD.id));
  }, 120_000);
});

describe('/readyz of a business not loaded answers without composing it', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deployTwo();
  }, 60_000);
  afterAll(() => undeploy(d));

  test("a monitor polling every business's /readyz loads none of them; a store that cannot be opened is not ready", async () => {
    expect(d.hosting.pool.ids).toEqual([]);
    const answers = [await hostCall(`${d.url(SALON)}/readyz`), await hostCall(`${d.url(NORD)}/readyz`)];
    expect(d.hosting.pool.ids).toEqual([]);
    for (const r of answers) {
      expect(r.status, r.text).toBe(200);
      expect(r.body).toEqual({ status: 'ready', database: 'sqlite', loaded: false });
    }
    // The salon used, then closed: its file exists now, and is read without composing it.
    await book(d, SALON, 2);
    await d.hosting.pool.close(SALON.id);
    expect((await hostCall(`${d.url(SALON)}/readyz`)).status).toBe(200);
    expect(d.hosting.pool.ids).toEqual([]);
    writeFileSync(join(d.dir, 'businesses', `${SALON.id}.db`), 'not a database file, whatever it was before');
    const broken = await hostCall(`${d.url(SALON)}/readyz`);
    expect(broken.status).toBe(503);
    expect(broken.body).toMatchObject({ status: 'unavailable', loaded: false });
    expect(broken.text).not.toContain(NORD.id);
    expect(d.hosting.pool.ids).toEqual([]);
  });
});

describe.skipIf(!PG_URL)(
  PG_URL
    ? '/readyz of a business not loaded, on PostgreSQL'
    : noteSkipped('/readyz of a business not loaded, on PostgreSQL'),
  () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await deployTwo({ db: PG_URL });
    }, 60_000);
    afterAll(() => undeploy(d));

    test('answers from the database the directory reads, loading no business', async () => {
      const r = await hostCall(`${d.url(NORD)}/readyz`);
      expect(d.hosting.pool.ids).toEqual([]);
      expect(r.status, r.text).toBe(200);
      expect(r.body).toEqual({ status: 'ready', database: 'postgres', loaded: false });
    });
  },
);
