/**
 * Registry search follows spec 6.3.1 exactly: every hard filter, the required-filter rule, the
 * resolved currency, virtual-only businesses and empty results; run on SQLite and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistryServer, type RegistryServer } from '../../src/server/registry.js';
import { seedRegistration } from '../../src/operations/index.js';
import { PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from '../pg/helpers.js';
import { silentLogger } from '../../src/operations/index.js';

type Svc = Record<string, unknown>;
const svc = (id: string, extra: Svc): Svc => ({
  id,
  name: id.replace(/_/g, ' '),
  type: 'appointment',
  channel: { type: 'at_business_location' },
  status: 'active',
  ...extra,
});

const NYC = { lat: 40.7484, lng: -73.9967 };
const NEWARK = { lat: 40.7357, lng: -74.1724 }; // about 15 km west of NYC
const BOSTON = { lat: 42.3601, lng: -71.0589 };

async function seed(server: RegistryServer): Promise<void> {
  const now = Date.parse('2026-11-01T10:00:00Z');
  const base = { deployment_mode: 'standalone' as const, timezone: 'America/New_York' };
  await seedRegistration(
    server.store,
    'reg_nyc',
    {
      ...base,
      profile_url: 'https://nyc.example/.well-known/usp',
      name: 'Midtown Wellness',
      verticals: ['appointment', 'group'],
      categories: ['wellness', 'beauty'],
      location: { address: 'NYC', coordinates: NYC },
    },
    [
      svc('svc_massage_range', {
        name: 'Deep Tissue Massage',
        categories: [{ taxonomy: 'merchant', id: 'cat_massage', name: 'Massage' }],
        duration: { range: { min: 'PT30M', max: 'PT90M' } },
        pricing: { model: 'variable', currency: 'USD', price_range: { min: 5000, max: 15000 } },
      }),
      svc('svc_free_consult', {
        name: 'Free Consultation',
        categories: [{ taxonomy: 'merchant', id: 'cat_consult', name: 'Consultation' }],
        duration: { fixed: 'PT15M' },
        pricing: { model: 'free', currency: 'USD' },
      }),
      svc('svc_yoga_class', {
        name: 'Yoga Class',
        type: 'group',
        categories: [{ taxonomy: 'merchant', id: 'cat_yoga', name: 'Yoga' }],
        duration: { fixed: 'PT60M' },
        pricing: { model: 'fixed', amount: 2500, currency: 'USD' },
      }),
      svc('svc_open_ended', {
        name: 'Open Studio Time',
        categories: [{ taxonomy: 'merchant', id: 'cat_yoga', name: 'Yoga' }],
        duration: { undetermined: true },
        pricing: { model: 'fixed', amount: 1000, currency: 'USD' },
      }),
    ],
    now,
    Number.MAX_SAFE_INTEGER,
  );
  await seedRegistration(
    server.store,
    'reg_newark',
    {
      ...base,
      profile_url: 'https://newark.example/.well-known/usp',
      deployment_mode: 'ucp_native',
      name: 'Newark Spa',
      verticals: ['appointment'],
      categories: ['wellness'],
      location: { coordinates: NEWARK },
    },
    [
      svc('svc_euro_massage', {
        name: 'Massage (EUR)',
        categories: [{ taxonomy: 'merchant', id: 'cat_massage', name: 'Massage' }],
        duration: { fixed: 'PT60M' },
        pricing: { model: 'fixed', amount: 9000, currency: 'EUR' },
      }),
    ],
    now,
    Number.MAX_SAFE_INTEGER,
  );
  await seedRegistration(
    server.store,
    'reg_boston',
    {
      ...base,
      profile_url: 'https://boston.example/.well-known/usp',
      name: 'Boston Barbers',
      verticals: ['appointment'],
      categories: ['hair'],
      location: { coordinates: BOSTON },
    },
    [
      svc('svc_cut', {
        name: 'Haircut',
        categories: [{ taxonomy: 'merchant', id: 'cat_hair', name: 'Hair' }],
        duration: { fixed: 'PT30M' },
        pricing: { model: 'fixed', amount: 4000, currency: 'USD' },
      }),
    ],
    now,
    Number.MAX_SAFE_INTEGER,
  );
  await seedRegistration(
    server.store,
    'reg_online',
    {
      ...base,
      profile_url: 'https://online.example/.well-known/usp',
      name: 'Online Coaching',
      verticals: ['appointment'],
      categories: ['wellness'],
    },
    [
      svc('svc_video', {
        name: 'Video Coaching',
        channel: { type: 'virtual' },
        categories: [{ taxonomy: 'merchant', id: 'cat_coaching', name: 'Coaching' }],
        duration: { fixed: 'PT45M' },
        pricing: { model: 'fixed', amount: 6000, currency: 'USD' },
      }),
    ],
    now,
    Number.MAX_SAFE_INTEGER,
  );
}

const near = (km: number) => ({ location: { coordinates: NYC, radius_km: km } });

/** [rule, request, the service ids that must come back (any order)] */
const SERVICE_CASES: Array<[string, Record<string, unknown>, string[]]> = [
  [
    'a radius includes what lies inside it and excludes what lies beyond',
    near(5),
    ['svc_massage_range', 'svc_free_consult', 'svc_yoga_class', 'svc_open_ended'],
  ],
  [
    'a wider radius reaches the next city',
    near(20),
    ['svc_massage_range', 'svc_free_consult', 'svc_yoga_class', 'svc_open_ended', 'svc_euro_massage'],
  ],
  [
    'services with no coordinates (virtual) never match a location filter',
    near(20_000),
    ['svc_massage_range', 'svc_free_consult', 'svc_yoga_class', 'svc_open_ended', 'svc_euro_massage', 'svc_cut'],
  ],
  ['without a location filter, virtual services may appear', { query: 'coaching' }, ['svc_video']],
  ['verticals are OR within the field', { verticals: ['group', 'nothing'] }, ['svc_yoga_class']],
  [
    'categories are OR within the field and match category ids',
    { categories: ['cat_hair', 'cat_yoga'] },
    ['svc_yoga_class', 'svc_open_ended', 'svc_cut'],
  ],
  ['categories match category names too', { categories: ['Massage'] }, ['svc_massage_range', 'svc_euro_massage']],
  ['distinct filters combine with AND', { ...near(5), categories: ['cat_massage'] }, ['svc_massage_range']],
  [
    'price overlap (default): $50-$150 meets $80-$100',
    { price_range: { min: 8000, max: 10000, currency: 'USD' } },
    ['svc_massage_range'],
  ],
  [
    'price contained: $50-$150 is not inside $80-$100',
    { price_range: { min: 8000, max: 10000, currency: 'USD', match: 'contained' } },
    [],
  ],
  [
    'price contains: $50-$150 covers $80-$100',
    { price_range: { min: 8000, max: 10000, currency: 'USD', match: 'contains' } },
    ['svc_massage_range'],
  ],
  [
    'price equals: only the identical interval',
    { price_range: { min: 5000, max: 15000, currency: 'USD', match: 'equals' } },
    ['svc_massage_range'],
  ],
  [
    'price equals with a different interval matches nothing',
    { price_range: { min: 8000, max: 10000, currency: 'USD', match: 'equals' } },
    [],
  ],
  [
    'an omitted bound is unbounded',
    { price_range: { max: 2500, currency: 'USD' } },
    ['svc_free_consult', 'svc_yoga_class', 'svc_open_ended'],
  ],
  [
    'free is [0, 0]: excluded when min > 0',
    { price_range: { min: 1, currency: 'USD' }, categories: ['cat_consult'] },
    [],
  ],
  [
    'free is [0, 0]: matched when the filter includes 0',
    { price_range: { min: 0, max: 0, currency: 'USD' } },
    ['svc_free_consult'],
  ],
  [
    'matching is within one currency: no conversion',
    { price_range: { min: 8000, max: 10000, currency: 'EUR' } },
    ['svc_euro_massage'],
  ],
  [
    'context.currency is the match currency when price_range has none',
    { price_range: { min: 8000, max: 10000 }, context: { currency: 'EUR' } },
    ['svc_euro_massage'],
  ],
  [
    'price_range.currency wins over context.currency',
    { price_range: { min: 8000, max: 10000, currency: 'USD' }, context: { currency: 'EUR' } },
    ['svc_massage_range'],
  ],
  [
    'duration overlap: 30-90 min meets 60',
    { duration_range: { min_minutes: 60, max_minutes: 60 } },
    ['svc_massage_range', 'svc_yoga_class', 'svc_euro_massage'],
  ],
  [
    'duration contained: 30-90 is not inside 60',
    { duration_range: { min_minutes: 60, max_minutes: 60, match: 'contained' } },
    ['svc_yoga_class', 'svc_euro_massage'],
  ],
  [
    'duration contains: 30-90 covers 60',
    { duration_range: { min_minutes: 60, max_minutes: 60, match: 'contains' }, categories: ['cat_massage'] },
    ['svc_massage_range', 'svc_euro_massage'],
  ],
  [
    'duration equals: 30-90 is not 60',
    { duration_range: { min_minutes: 60, max_minutes: 60, match: 'equals' }, categories: ['cat_massage'] },
    ['svc_euro_massage'],
  ],
  [
    'an undetermined duration is excluded by any duration filter',
    { duration_range: { min_minutes: 0 }, categories: ['cat_yoga'] },
    ['svc_yoga_class'],
  ],
  [
    'with no duration filter an undetermined duration may appear',
    { categories: ['cat_yoga'] },
    ['svc_yoga_class', 'svc_open_ended'],
  ],
  ['every word of the query must occur', { query: 'deep massage' }, ['svc_massage_range']],
  ['no hits is an empty list', { query: 'skydiving' }, []],
];

const REFUSED: Array<[string, Record<string, unknown>, string]> = [
  ['no filter at all', {}, '$'],
  ['only pagination and context', { pagination: { limit: 5 }, context: { currency: 'USD', locale: 'en-US' } }, '$'],
  ['a price range without any currency', { price_range: { min: 100 } }, '$.price_range.currency'],
  ['an absurd radius', { location: { coordinates: NYC, radius_km: 50_000 } }, '$.location.radius_km'],
  ['a negative radius', { location: { coordinates: NYC, radius_km: -1 } }, '$.location.radius_km'],
  [
    'a latitude off the globe',
    { location: { coordinates: { lat: 123, lng: 0 }, radius_km: 5 } },
    '$.location.coordinates',
  ],
  ['a location without a radius', { location: { coordinates: NYC } }, '$.location.radius_km'],
  ['a price range with min above max', { price_range: { min: 500, max: 100, currency: 'USD' } }, '$.price_range'],
  [
    'a cursor from another search',
    { query: 'massage', pagination: { cursor: Buffer.from('{"f":"x","o":1}').toString('base64url') } },
    '$.pagination.cursor',
  ],
];

const engines: Array<[string, () => string]> = [['SQLite', () => ':memory:']];
let pgSchema: string | undefined;
if (PG_URL) engines.push(['PostgreSQL', () => urlWithSchema((pgSchema = schemaName('registry_search')))]);
else noteSkipped('registry search on PostgreSQL');

describe.each(engines)('registry search on %s (spec 6.3.1)', (_engine, db) => {
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
    await seed(server);
  });
  afterAll(async () => {
    await server?.close();
    if (pgSchema && _engine === 'PostgreSQL') await dropSchema(pgSchema);
  });
  const post = async (path: string, body: unknown) => {
    const res = await server.app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it.each(SERVICE_CASES)('%s', async (_rule, request, expected) => {
    const { status, body } = await post('/registry/search_services', request);
    expect(status).toBe(200);
    expect(body.messages).toBeUndefined();
    expect(body.services.map((s: any) => s.service_id).sort()).toEqual([...expected].sort());
  });

  it.each(REFUSED)('%s is refused with validation_error and an empty list', async (_rule, request, path) => {
    const { status, body } = await post('/registry/search_services', request);
    expect(status).toBe(200);
    expect(body.services).toEqual([]);
    expect(body.messages).toEqual([expect.objectContaining({ type: 'error', code: 'validation_error', path })]);
  });

  it('business search: virtual-only businesses are left out of location searches and appear without one', async () => {
    const located = await post('/registry/search_business', { ...near(20_000), categories: ['wellness'] });
    expect(located.body.businesses.map((b: any) => b.id).sort()).toEqual(['reg_newark', 'reg_nyc']);
    const anywhere = await post('/registry/search_business', { categories: ['wellness'] });
    expect(anywhere.body.businesses.map((b: any) => b.id).sort()).toEqual(['reg_newark', 'reg_nyc', 'reg_online']);
  });

  it('business search filters by deployment_mode, and by it alone', async () => {
    const { body } = await post('/registry/search_business', { deployment_mode: 'ucp_native' });
    expect(body.businesses.map((b: any) => b.id)).toEqual(['reg_newark']);
  });

  it('business search with no filter is refused with validation_error', async () => {
    const { status, body } = await post('/registry/search_business', { context: { locale: 'en-US' } });
    expect(status).toBe(200);
    expect(body.businesses).toEqual([]);
    expect(body.messages[0].code).toBe('validation_error');
  });

  it('results page with cursors and end with a null cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 10; i++) {
      const { body } = await post('/registry/search_services', { ...near(20_000), pagination: { limit: 2, cursor } });
      seen.push(...body.services.map((s: any) => s.service_id));
      cursor = body.pagination.cursor;
      expect(body.pagination.has_more).toBe(cursor !== null);
      if (!cursor) break;
    }
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
  });

  it('a location search ranks nearer results first', async () => {
    const { body } = await post('/registry/search_services', { ...near(20_000), categories: ['cat_massage'] });
    expect(body.services.map((s: any) => s.service_id)).toEqual(['svc_massage_range', 'svc_euro_massage']);
  });

  it('each result carries its business, last_indexed_at and category projection', async () => {
    const { body } = await post('/registry/search_services', { query: 'yoga class' });
    expect(body.services[0]).toMatchObject({
      service_id: 'svc_yoga_class',
      category: 'Yoga',
      duration_minutes: 60,
      business: {
        id: 'reg_nyc',
        profile_url: 'https://nyc.example/.well-known/usp',
        deployment_mode: 'standalone',
        name: 'Midtown Wellness',
      },
      last_indexed_at: '2026-11-01T10:00:00Z',
    });
  });
});
