/**
 * Registry search reads indexes, not whole tables (issue 14's p50 target), and the indexes never
 * change what matches: free text through FTS5 trigram tables on SQLite and pg_trgm GIN indexes on
 * PostgreSQL, category + price through a membership table carrying the bounds on SQLite. Every
 * query word is still a substring of the text (LIKE decides), words of two letters included; the
 * indexes follow re-indexing and deletion, and the migration fills them from rows already stored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistryServer, type RegistryServer } from '../../src/server/registry.js';
import { seedRegistration, silentLogger } from '../../src/operations/index.js';
import { planSearch } from '../../src/operations/registry/search.js';
import { distanceKm } from '../../src/domain/index.js';
import type { Store } from '../../src/store/index.js';
import { serviceSearchSql } from '../../src/store/registry-sql.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { sqliteRegistryDialect, sqliteRegistryRepo } from '../../src/store/sqlite/registry-repo.js';
import { postgresRegistryDialect } from '../../src/store/postgres/registry-repo.js';
import { PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from '../pg/helpers.js';

const NOW = Date.parse('2026-11-01T10:00:00Z');
const svc = (id: string, name: string, category: string, amount: number, description?: string) => ({
  id,
  name,
  ...(description ? { description } : {}),
  type: 'appointment',
  channel: { type: 'at_business_location' },
  status: 'active',
  categories: [{ taxonomy: 'merchant', id: category, name: category.replace(/^cat_/, '') }],
  duration: { fixed: 'PT45M' },
  pricing: { model: 'fixed', amount, currency: 'USD' },
});
const business = (name: string) => ({
  profile_url: `https://${name.toLowerCase().replace(/\W+/g, '-')}.example/.well-known/usp`,
  deployment_mode: 'standalone' as const,
  name,
  verticals: ['appointment'],
  categories: ['wellness'],
  location: { coordinates: { lat: 40.75, lng: -73.99 } },
  timezone: 'America/New_York',
});

async function seed(store: Store, suffix = ''): Promise<void> {
  await seedRegistration(
    store,
    `reg_spa${suffix}`,
    business(`Harbor Spa${suffix}`),
    [
      svc('svc_tissue', 'Deep Tissue Massage', 'cat_massage', 9000, 'Firm pressure, 60 minutes'),
      svc('svc_stone', 'Hot Stone Massage', 'cat_massage', 12000),
      svc('svc_facial', 'Express Facial', 'cat_facial', 4000),
    ],
    NOW,
    Number.MAX_SAFE_INTEGER,
  );
  await seedRegistration(
    store,
    `reg_gym${suffix}`,
    business(`Ox Gym${suffix}`),
    [svc('svc_pt', 'Personal Training', 'cat_pt', 7000), svc('svc_mobility', 'Mobility Massage', 'cat_massage', 5000)],
    NOW,
    Number.MAX_SAFE_INTEGER,
  );
}

/** [rule, request, service ids in the order they must come back] */
const CASES: Array<[string, Record<string, unknown>, string[]]> = [
  ['a word matches inside a longer word (a substring, not a whole word)', { query: 'tissu' }, ['svc_tissue']],
  ['a two-letter word (no trigram) still matches as a substring', { query: 'ox' }, ['svc_mobility', 'svc_pt']],
  ['a two-letter word combines with a longer one (AND)', { query: 'ox massage' }, ['svc_mobility']],
  ['words from the description and the business name count', { query: 'pressure harbor' }, ['svc_tissue']],
  [
    'ranking: equal words in the name, then business and service id',
    { query: 'massage harbor' },
    ['svc_stone', 'svc_tissue'],
  ],
  ['every word must occur: one missing word, no result', { query: 'tissue skydiving' }, []],
  [
    'category + price: the bounds are checked',
    { categories: ['cat_massage'], price_range: { min: 6000, max: 10000, currency: 'USD' } },
    ['svc_tissue'],
  ],
  [
    'category + price: another currency matches nothing',
    { categories: ['cat_massage'], price_range: { min: 0, max: 100000, currency: 'EUR' } },
    [],
  ],
  [
    'category + duration',
    { categories: ['cat_massage'], duration_range: { min_minutes: 45, max_minutes: 45, match: 'equals' } },
    ['svc_mobility', 'svc_stone', 'svc_tissue'],
  ],
];

const engines: Array<[string, () => string]> = [['SQLite', () => ':memory:']];
let pgSchema: string | undefined;
if (PG_URL) engines.push(['PostgreSQL', () => urlWithSchema((pgSchema = schemaName('registry_idx')))]);
else noteSkipped('registry search indexes on PostgreSQL');

describe.each(engines)('registry search through its indexes on %s keeps the 6.3.1 rules', (engine, db) => {
  let server: RegistryServer;
  beforeAll(async () => {
    server = await createRegistryServer({
      db: db(),
      sandbox: true,
      log: silentLogger,
      reindexPollMs: 0,
      sweepIntervalMs: 0,
      security: { rateLimits: false },
    });
    await seed(server.store);
  });
  afterAll(async () => {
    await server?.close();
    if (pgSchema && engine === 'PostgreSQL') await dropSchema(pgSchema);
  });
  const search = async (body: unknown): Promise<string[]> => {
    const res = await server.app.request('/registry/search_services', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { services: Array<{ service_id: string }>; messages?: unknown };
    expect(json.messages).toBeUndefined();
    return json.services.map((s) => s.service_id);
  };

  it.each(CASES)('%s', async (_rule, request, expected) => {
    const got = await search(request);
    if (_rule.startsWith('ranking')) expect(got).toEqual(expected);
    else expect([...got].sort()).toEqual([...expected].sort());
  });

  it('business search by free text reads the business text index and finds by a part of a word', async () => {
    const res = await server.app.request('/registry/search_business', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'arbo' }),
    });
    expect(((await res.json()) as { businesses: Array<{ id: string }> }).businesses.map((b) => b.id)).toEqual([
      'reg_spa',
    ]);
  });

  it('the indexes follow a re-index: new text and price are found, the old ones no longer', async () => {
    await seedRegistration(
      server.store,
      'reg_gym',
      business('Ox Gym'),
      [
        svc('svc_pt', 'Kettlebell Training', 'cat_pt', 7000),
        svc('svc_mobility', 'Mobility Massage', 'cat_massage', 9500),
      ],
      NOW + 1000,
      Number.MAX_SAFE_INTEGER,
    );
    expect(await search({ query: 'kettlebell' })).toEqual(['svc_pt']);
    expect(await search({ query: 'personal training' })).toEqual([]);
    expect(await search({ categories: ['cat_massage'], price_range: { max: 6000, currency: 'USD' } })).toEqual([]);
    expect(
      (await search({ categories: ['cat_massage'], price_range: { min: 9000, max: 10000, currency: 'USD' } })).sort(),
    ).toEqual(['svc_mobility', 'svc_tissue']);
  });

  it('the indexes follow a deletion: nothing of the business is found any more', async () => {
    await server.store.transaction((tx) => tx.registry.remove('reg_gym'));
    expect(await search({ query: 'kettlebell' })).toEqual([]);
    expect(
      await search({ categories: ['cat_massage'], price_range: { min: 9000, max: 10000, currency: 'USD' } }),
    ).toEqual(['svc_tissue']);
  });
});

describe('SQLite: the query planner uses the registry indexes', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'usp-registry-idx-'));
    file = join(dir, 'registry.db');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const plan = (db: Database.Database, request: Record<string, unknown>): string => {
    const planned = planSearch(request, 'service');
    if (!planned.ok) throw new Error('refused');
    const { text, values } = serviceSearchSql(sqliteRegistryDialect, planned.filter, 0, 21);
    const named = Object.fromEntries(values.map((v, i) => [`p${i + 1}`, v]));
    return (db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(named) as Array<{ detail: string }>)
      .map((r) => r.detail)
      .join('\n');
  };

  it('rows stored before the migration are copied into the new indexes, and a search then uses them', async () => {
    // A database at the migration before the registry search indexes, with registrations in it.
    const before = new Database(file);
    before.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL)');
    const last = SQLITE_MIGRATIONS.findIndex((m) => m.includes('registry_service_fts'));
    expect(last).toBeGreaterThan(0); // later migrations (appended after it) are applied with it when the store opens
    for (let i = 0; i < last; i++) {
      before.exec(SQLITE_MIGRATIONS[i]!);
      before.prepare('INSERT INTO schema_migrations VALUES (?, ?)').run(i + 1, NOW);
    }
    const repo = sqliteRegistryRepo(before);
    await seed({ transaction: (fn: (tx: unknown) => unknown) => fn({ registry: repo }) } as unknown as Store);
    before.close();

    // Opening the store applies the new migration; its search finds the old rows through the indexes.
    const server = await createRegistryServer({
      db: file,
      sandbox: true,
      log: silentLogger,
      reindexPollMs: 0,
      sweepIntervalMs: 0,
      security: { rateLimits: false },
    });
    try {
      const post = async (body: unknown) =>
        (
          (await (
            await server.app.request('/registry/search_services', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(body),
            })
          ).json()) as { services: Array<{ service_id: string }> }
        ).services.map((s) => s.service_id);
      expect(await post({ query: 'tissu' })).toEqual(['svc_tissue']);
      expect(
        (await post({ categories: ['cat_massage'], price_range: { min: 4000, max: 10000, currency: 'USD' } })).sort(),
      ).toEqual(['svc_mobility', 'svc_tissue']);
    } finally {
      await server.close();
    }
    const db = new Database(file, { readonly: true });
    try {
      const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      expect(count('registry_service_terms')).toBeGreaterThanOrEqual(5);
      expect(count('registry_service_categories')).toBe(count('registry_service_terms'));
    } finally {
      db.close();
    }
  });

  it('free text reads the FTS5 trigram index; category + price the covering membership index', () => {
    const db = new Database(file, { readonly: true });
    db.function('registry_km', { deterministic: true }, (a: unknown, b: unknown, c: unknown, d: unknown) =>
      distanceKm({ lat: Number(a), lng: Number(b) }, { lat: Number(c), lng: Number(d) }),
    );
    try {
      const text = plan(db, { query: 'classic haircut' });
      expect(text).toMatch(/SCAN registry_service_fts VIRTUAL TABLE INDEX \d+:M/);
      expect(text).not.toMatch(/SCAN s\b/);
      const cat = plan(db, { categories: ['cat_haircut'], price_range: { min: 2000, max: 6000, currency: 'USD' } });
      expect(cat).toMatch(/SEARCH m USING COVERING INDEX registry_service_categories_price \(term=\? AND currency=\?/);
      expect(cat).toMatch(/SEARCH s USING INTEGER PRIMARY KEY/);
      // Two-letter words have no trigram: no index window, LIKE alone (the same rule).
      expect(plan(db, { query: 'ox' })).not.toMatch(/registry_service_fts/);
    } finally {
      db.close();
    }
  });
});

describe.skipIf(!PG_URL)('PostgreSQL: free text can use the trigram GIN index', () => {
  const schema = schemaName('registry_trgm');
  let server: RegistryServer | undefined;
  afterAll(async () => {
    await server?.close();
    await dropSchema(schema);
  });

  it('EXPLAIN of a free-text search over 20,000 services of 4,000 businesses shows a scan of the trigram index registry_services_text', async () => {
    server = await createRegistryServer({
      db: urlWithSchema(schema),
      sandbox: true,
      log: silentLogger,
      reindexPollMs: 0,
      sweepIntervalMs: 0,
      security: { rateLimits: false },
    });
    await seed(server.store);
    const planned = planSearch({ query: 'classic haircut' }, 'service');
    if (!planned.ok) throw new Error('refused');
    const { text, values } = serviceSearchSql(postgresRegistryDialect, planned.filter, 0, 21);
    const c = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${schema}` });
    await c.connect();
    try {
      // With five rows any plan is cheap: add 4,000 businesses with 5 services each, of other text.
      await c.query(
        `INSERT INTO registry_businesses (id, profile_url, deployment_mode, status, owner, entry, lat, lng, verticals, categories, search_text, name_text, created_ms, last_indexed_ms, next_index_ms, failures)
         SELECT 'reg_filler_' || g, 'https://filler-' || g || '.example/.well-known/usp', deployment_mode, status, owner, entry, lat, lng, verticals, categories, 'filler business ' || g, 'filler', created_ms, last_indexed_ms, next_index_ms, failures
         FROM registry_businesses, generate_series(1, 4000) g WHERE id = 'reg_gym'`,
      );
      await c.query(
        `INSERT INTO registry_services (bid, business_id, service_id, vertical, terms, search_text, name_text, currency, price_min, price_max, dur_min, dur_max, lat, lng, result, indexed_ms)
         SELECT b.bid, b.id, 'svc_filler_' || k, s.vertical, s.terms, 'filler service ' || b.bid || ' ' || k, 'filler', s.currency, s.price_min, s.price_max, s.dur_min, s.dur_max, s.lat, s.lng, s.result, s.indexed_ms
         FROM registry_businesses b, registry_services s, generate_series(1, 5) k WHERE b.id LIKE 'reg_filler_%' AND s.service_id = 'svc_pt'`,
      );
      await c.query('ANALYZE registry_businesses');
      await c.query('ANALYZE registry_services');
      const lines = (await c.query(`EXPLAIN ${text}`, values)).rows
        .map((r: Record<string, string>) => r['QUERY PLAN'])
        .join('\n');
      expect(lines, lines).toMatch(
        /Bitmap Index Scan on registry_services_text[^\n]*\n\s+Index Cond: \(\(search_text ~~ '%classic%'::text\) AND \(search_text ~~ '%haircut%'::text\)\)/,
      );
    } finally {
      await c.end();
    }
  });
});
