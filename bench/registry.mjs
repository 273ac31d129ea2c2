/**
 * Benchmark 7: the discovery registry's service search (spec 6.3) over 10,000 registered
 * businesses with 10 services each, seeded straight through the store (no HTTP, no fetching),
 * timed through the operation itself (pipeline: validation, planning, the indexed query,
 * presentation), on SQLite and, with USP_BENCH_PG_URL, PostgreSQL. Three searches: by location
 * (a city centre, 5 km), by category and price, and by free text. Target: p50 under 20 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRegistryServer } from '../dist/server/registry.js';
import { REGISTRY_OPERATIONS, seedRegistration, silentLogger } from '../dist/operations/index.js';
import { fmtMs, summarize } from './lib.mjs';

const TARGET_P50_MS = 20;
const CITIES = [
  ['New York', 40.7128, -74.006],
  ['Los Angeles', 34.0522, -118.2437],
  ['Chicago', 41.8781, -87.6298],
  ['Houston', 29.7604, -95.3698],
  ['Phoenix', 33.4484, -112.074],
  ['Philadelphia', 39.9526, -75.1652],
  ['San Antonio', 29.4241, -98.4936],
  ['San Diego', 32.7157, -117.1611],
  ['Dallas', 32.7767, -96.797],
  ['Austin', 30.2672, -97.7431],
  ['Seattle', 47.6062, -122.3321],
  ['Denver', 39.7392, -104.9903],
  ['Boston', 42.3601, -71.0589],
  ['Miami', 25.7617, -80.1918],
  ['Atlanta', 33.749, -84.388],
  ['London', 51.5074, -0.1278],
  ['Paris', 48.8566, 2.3522],
  ['Berlin', 52.52, 13.405],
  ['Toronto', 43.6532, -79.3832],
  ['Sydney', -33.8688, 151.2093],
];
const KINDS = [
  ['cat_haircut', 'Haircut', 'hair', 'appointment'],
  ['cat_color', 'Color', 'hair', 'appointment'],
  ['cat_massage', 'Massage', 'wellness', 'appointment'],
  ['cat_yoga', 'Yoga class', 'fitness', 'group'],
  ['cat_facial', 'Facial', 'beauty', 'appointment'],
  ['cat_nails', 'Manicure', 'beauty', 'appointment'],
  ['cat_pt', 'Personal training', 'fitness', 'appointment'],
  ['cat_coaching', 'Coaching call', 'coaching', 'appointment'],
  ['cat_dental', 'Dental cleaning', 'health', 'appointment'],
  ['cat_repair', 'Bike repair', 'repair', 'field_service'],
];
const ADJ = [
  'Classic',
  'Deluxe',
  'Express',
  'Signature',
  'Deep tissue',
  'Hot stone',
  'Beginner',
  'Advanced',
  'Quick',
  'Premium',
];

/** A deterministic pseudo-random sequence, so every run seeds the same registry. */
function rng(seed) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

async function seed(server, n, now) {
  const r = rng(42);
  for (let b = 0; b < n; b++) {
    const [city, lat, lng] = CITIES[b % CITIES.length];
    const services = [];
    for (let k = 0; k < 10; k++) {
      const [catId, catName, parent, type] = KINDS[(b + k) % KINDS.length];
      const amount = 1500 + Math.floor(r() * 200) * 100;
      services.push({
        id: `svc_${b}_${k}`,
        name: `${ADJ[Math.floor(r() * ADJ.length)]} ${catName}`,
        type,
        categories: [{ taxonomy: 'merchant', id: catId, name: catName, parent_id: `cat_${parent}`, primary: true }],
        duration: { fixed: `PT${30 + 15 * Math.floor(r() * 6)}M` },
        pricing: {
          model: 'fixed',
          amount,
          currency: city === 'London' ? 'GBP' : ['Paris', 'Berlin'].includes(city) ? 'EUR' : 'USD',
        },
        channel: { type: k === 9 ? 'virtual' : 'at_business_location' },
        status: 'active',
      });
    }
    await seedRegistration(
      server.store,
      `reg_bench_${String(b).padStart(6, '0')}`,
      {
        profile_url: `https://biz-${b}.example/.well-known/usp`,
        deployment_mode: 'standalone',
        name: `${city} ${KINDS[b % KINDS.length][1]} Studio ${b}`,
        verticals: [...new Set(services.map((s) => s.type))],
        categories: [KINDS[b % KINDS.length][2]],
        // Spread over about 40 km around the centre.
        location: {
          address: `${b} Main St, ${city}`,
          coordinates: { lat: lat + (r() - 0.5) * 0.35, lng: lng + (r() - 0.5) * 0.45 },
        },
        timezone: 'UTC',
      },
      services,
      now,
      now + 86_400_000,
    );
  }
}

const SEARCHES = {
  location: (i) => {
    const [, lat, lng] = CITIES[i % CITIES.length];
    return { location: { coordinates: { lat, lng }, radius_km: 5 }, pagination: { limit: 20 } };
  },
  'category + price': (i) => ({
    categories: [KINDS[i % KINDS.length][0]],
    price_range: { min: 2000, max: 6000, currency: 'USD' },
    pagination: { limit: 20 },
  }),
  'free text': (i) => ({
    query: `${ADJ[i % ADJ.length].split(' ')[0]} ${KINDS[(i * 3) % KINDS.length][1].split(' ')[0]}`,
    pagination: { limit: 20 },
  }),
};

async function measure(db, businesses, iterations) {
  const server = await createRegistryServer({
    db,
    sandbox: true,
    log: silentLogger,
    reindexPollMs: 0,
    sweepIntervalMs: 0,
    webhooks: { enabled: false },
    security: { rateLimits: false },
  });
  try {
    const t0 = Date.now();
    await seed(server, businesses, Date.now());
    const seedSeconds = (Date.now() - t0) / 1000;
    const op = REGISTRY_OPERATIONS.find((o) => o.name === 'search_services');
    const rows = [];
    const targets = [];
    for (const [name, make] of Object.entries(SEARCHES)) {
      for (let i = 0; i < 10; i++) await server.pipeline.execute(op, { input: make(i) }, server.scope);
      const samples = [];
      let found = 0;
      for (let i = 0; i < iterations; i++) {
        const t = process.hrtime.bigint();
        const res = await server.pipeline.execute(op, { input: make(i) }, server.scope);
        samples.push(Number(process.hrtime.bigint() - t) / 1e6);
        if (!res.ok || res.messages.length > 0)
          throw new Error(`${name} search failed: ${JSON.stringify(res.messages ?? res)}`);
        found += res.data.services.length;
      }
      const s = summarize(samples);
      rows.push([name, String(iterations), (found / iterations).toFixed(1), fmtMs(s.p50), fmtMs(s.p99)]);
      targets.push({
        name: `Registry ${name} search p50 (${db.startsWith('postgres') ? 'PostgreSQL' : 'SQLite'})`,
        target: `< ${TARGET_P50_MS} ms`,
        value: fmtMs(s.p50),
        ok: s.p50 < TARGET_P50_MS,
      });
    }
    return { rows, targets, seedSeconds };
  } finally {
    await server.close();
  }
}

export async function run({ quick }) {
  const businesses = quick ? 200 : 10_000;
  const iterations = quick ? 20 : 300;
  const dir = mkdtempSync(join(tmpdir(), 'usp-bench-registry-'));
  const sections = [];
  const targets = [];
  const notes = [];
  try {
    const stores = [['SQLite (file, WAL)', join(dir, 'registry.db')]];
    if (process.env.USP_BENCH_PG_URL) stores.push(['PostgreSQL', process.env.USP_BENCH_PG_URL]);
    for (const [label, db] of stores) {
      const r = await measure(db, businesses, iterations);
      sections.push({
        caption: `${label}: ${businesses.toLocaleString('en-US')} businesses, ${(businesses * 10).toLocaleString('en-US')} services (seeded in ${r.seedSeconds.toFixed(1)} s)`,
        header: ['search', 'calls', 'results per call', 'p50', 'p99'],
        rows: r.rows,
      });
      targets.push(...r.targets);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  notes.push(
    "Each call goes through the registry's pipeline (input validation, the 6.3.1 plan, the indexed query, presentation), not HTTP. Location: a city centre with a 5 km radius (20 cities, businesses spread over ~40 km around each). Category + price: one category id and 20.00-60.00 USD. Free text: two words, every word must occur. 20 results per page.",
    'PostgreSQL runs when USP_BENCH_PG_URL names a database (the registry tables are created in it); it is skipped otherwise.',
  );
  return { id: 'registry', title: '7. Discovery registry: service search', sections, notes, targets };
}
