/**
 * Catalog over REST (spec §3, §9.1): list with filters, search and pagination; get; lookup; feed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { day, startTestServer, type TestServer } from '../support/server.js';

const ERRORS = 'https://usp-protocol.dev/errors/';
const ALL_IDS = [
  'svc_haircut',
  'svc_yoga_class',
  'svc_color_consult',
  'svc_massage_60',
  'svc_bridal_trial',
  'svc_home_blowout',
];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const ids = (services: Array<{ id: string }>) => services.map((s) => s.id);
const list = (body: unknown) => t.call('POST', '/services/list', body, { profile: null });

function expectProblem(res: { status: number; body: any; headers: Headers }, status: number, typeSuffix: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body.type).toBe(ERRORS + typeSuffix);
  expect(res.body.status).toBe(status);
}

describe('list: filters are AND-ed hard constraints (§3.12.1)', () => {
  it('without filters returns every active service with business_id', async () => {
    const res = await list({});
    expect(res.status).toBe(200);
    expect(ids(res.body.services).sort()).toEqual([...ALL_IDS].sort());
    for (const s of res.body.services) expect(s.business_id).toBe('biz_maple_pine');
    expect(res.body.pagination).toEqual({ cursor: null, has_more: false });
  });

  it('type keeps only services of that type', async () => {
    expect(ids((await list({ filters: { type: 'group' } })).body.services)).toEqual(['svc_yoga_class']);
    expect(ids((await list({ filters: { type: 'field_service' } })).body.services)).toEqual(['svc_home_blowout']);
    expect((await list({ filters: { type: 'rental' } })).body.services).toEqual([]);
  });

  it('category_id matches the primary category id', async () => {
    expect(ids((await list({ filters: { category_id: 'cat_color' } })).body.services)).toEqual(['svc_color_consult']);
    expect(ids((await list({ filters: { category_id: 'cat_haircut' } })).body.services)).toEqual(['svc_haircut']);
  });

  it('categories[] is an OR and overrides category_id', async () => {
    const or = await list({ filters: { categories: ['cat_yoga', 'cat_massage'] } });
    expect(ids(or.body.services).sort()).toEqual(['svc_massage_60', 'svc_yoga_class']);
    const override = await list({ filters: { categories: ['cat_yoga'], category_id: 'cat_color' } });
    expect(ids(override.body.services)).toEqual(['svc_yoga_class']);
  });

  it('location_id keeps services offered at that location', async () => {
    expect(ids((await list({ filters: { location_id: 'loc_uptown' } })).body.services)).toEqual(['svc_yoga_class']);
    const downtown = await list({ filters: { location_id: 'loc_downtown' } });
    expect(ids(downtown.body.services).sort()).toEqual(ALL_IDS.filter((i) => i !== 'svc_yoga_class').sort());
    for (const s of downtown.body.services)
      expect(s.locations.map((l: { id: string }) => l.id)).toContain('loc_downtown');
  });

  it('price {min,max} keeps services whose price (or price range) overlaps it; free counts as 0', async () => {
    const mid = await list({ filters: { price: { min: 9000, max: 12000 } } });
    expect(ids(mid.body.services).sort()).toEqual(['svc_home_blowout', 'svc_massage_60', 'svc_yoga_class']);
    const free = await list({ filters: { price: { max: 0 } } });
    expect(ids(free.body.services)).toEqual(['svc_color_consult']);
  });

  it('several filters combine with AND', async () => {
    const res = await list({ filters: { location_id: 'loc_downtown', price: { min: 9000 }, type: 'appointment' } });
    expect(ids(res.body.services).sort()).toEqual(['svc_bridal_trial', 'svc_massage_60']);
  });

  it('unknown filter, context and top-level fields are ignored, never an error', async () => {
    const res = await list({
      filters: { type: 'group', colour: 'blue', nested: { a: 1 } },
      context: {
        language: 'en',
        currency: 'USD',
        intent: 'relax',
        something_new: true,
        coordinates: { latitude: 40.7, longitude: -74 },
      },
      future_member: 42,
    });
    expect(res.status).toBe(200);
    expect(ids(res.body.services)).toEqual(['svc_yoga_class']);
  });
});

describe('list: free-text query ranks by relevance (§3.12.1)', () => {
  it('the service matching more terms comes first; non-matching services are left out', async () => {
    const res = await list({ query: 'hair color' });
    expect(res.status).toBe(200);
    const got = ids(res.body.services);
    expect(got[0]).toBe('svc_color_consult');
    expect(got).toContain('svc_haircut');
    expect(got).not.toContain('svc_yoga_class');
    expect(got).not.toContain('svc_massage_60');
  });

  it('a specific query finds the one service', async () => {
    expect(ids((await list({ query: 'deep tissue massage' })).body.services)[0]).toBe('svc_massage_60');
    expect(ids((await list({ query: 'yoga' })).body.services)).toEqual(['svc_yoga_class']);
  });

  it('a query matching nothing is an empty page, not an error', async () => {
    const res = await list({ query: 'submarine welding' });
    expect(res.status).toBe(200);
    expect(res.body.services).toEqual([]);
    expect(res.body.pagination.has_more).toBe(false);
  });

  it('query and filters combine', async () => {
    const res = await list({ query: 'hair', filters: { category_id: 'cat_bridal' } });
    expect(ids(res.body.services)).toEqual(['svc_bridal_trial']);
  });
});

describe('list: opaque cursor pagination (§9.1.2)', () => {
  it('limit 2 walks every service exactly once across three pages', async () => {
    const seen: string[] = [];
    const hasMore: boolean[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const res: { status: number; body: any } = await list({
        pagination: { limit: 2, ...(cursor ? { cursor } : {}) },
      });
      expect(res.status).toBe(200);
      expect(res.body.services.length).toBeLessThanOrEqual(2);
      seen.push(...ids(res.body.services));
      hasMore.push(res.body.pagination.has_more);
      cursor = res.body.pagination.cursor;
      if (!res.body.pagination.has_more) break;
      expect(typeof cursor).toBe('string');
    }
    expect(hasMore).toEqual([true, true, false]);
    expect(cursor).toBeNull();
    expect(seen).toHaveLength(ALL_IDS.length);
    expect(new Set(seen)).toEqual(new Set(ALL_IDS));
  });

  it('the pages follow the same order as one unpaginated list', async () => {
    const whole = ids((await list({})).body.services);
    const first = await list({ pagination: { limit: 4 } });
    const second = await list({ pagination: { limit: 4, cursor: first.body.pagination.cursor } });
    expect([...ids(first.body.services), ...ids(second.body.services)]).toEqual(whole);
  });

  it('a cursor the business never issued is invalid_request 400', async () => {
    const res = await list({ pagination: { limit: 2, cursor: 'garbage' } });
    expectProblem(res, 400, 'invalid-request');
    expect(res.body.code).toBe('invalid_request');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('pagination.cursor');
  });
});

describe('get: one service, with a computed availability hint (§3.6, §3.12)', () => {
  it('answers 200 with the service, business_id and availability_hint.next_available_date', async () => {
    const res = await t.call('GET', '/services/svc_haircut', undefined, { profile: null });
    expect(res.status).toBe(200);
    expect(res.body.usp.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const s = res.body.service;
    expect(s.id).toBe('svc_haircut');
    expect(s.business_id).toBe('biz_maple_pine');
    expect(s.availability_hint.generated_at).toBe(new Date(t.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    // TEST_NOW is 12:00 in New York and the salon is open all afternoon: the next opening is today.
    expect(s.availability_hint.next_available_date).toBe(day(0));
    expect(typeof s.availability_hint.summary).toBe('string');
    expect(s.requirements).toBeUndefined();
  });

  it('an unknown id is a protocol error (spec-next 3.12.3, 9.4.3): 404 service-not-found naming the id, and no service', async () => {
    const res = await t.call('GET', '/services/svc_nope', undefined, { profile: null });
    expect([res.status, res.body.type, res.body.code]).toEqual([
      404,
      'https://usp-protocol.dev/errors/service-not-found',
      'service_not_found',
    ]);
    expect(res.body.service).toBeUndefined();
    expect(res.body.detail).toContain('svc_nope');
  });
});

describe('lookup: many ids at once, deduplicated, with per-id warnings (§3.12.3)', () => {
  it('accepts 60 ids with duplicates, returns each service once and warns about unknown ids with $.ids[i]', async () => {
    const req: string[] = [];
    for (let i = 0; i < 5; i++) req.push(...ALL_IDS); // 30 ids, each real one five times
    for (let i = 0; i < 29; i++) req.push(`svc_missing_${i}`);
    req.push('svc_missing_0'); // a duplicated unknown id is reported once
    expect(req).toHaveLength(60);
    const res = await t.call('POST', '/services/lookup', { ids: req }, { profile: null });
    expect(res.status).toBe(200);
    expect(ids(res.body.services).sort()).toEqual([...ALL_IDS].sort());
    const warnings = res.body.messages;
    expect(warnings).toHaveLength(29);
    for (const m of warnings) {
      expect(m.type).toBe('warning');
      // The newer text's name for the per-id warning (spec-next 9.4.2).
      expect(m.code).toBe('service_unresolved');
      const i = Number(/^\$\.ids\[(\d+)\]$/.exec(m.path)![1]);
      expect(req[i]).toMatch(/^svc_missing_/);
    }
    expect(warnings[0].path).toBe('$.ids[30]');
    expect(new Set(warnings.map((m: { path: string }) => m.path)).size).toBe(29);
  });

  it('all ids known: no messages', async () => {
    const res = await t.call('POST', '/services/lookup', { ids: ['svc_haircut', 'svc_yoga_class'] }, { profile: null });
    expect(res.status).toBe(200);
    expect(ids(res.body.services).sort()).toEqual(['svc_haircut', 'svc_yoga_class']);
    expect(res.body.messages ?? []).toEqual([]);
  });

  it('101 ids answer a 422 problem stating the maximum', async () => {
    const req = Array.from({ length: 101 }, (_, i) => `svc_${i}`);
    const res = await t.call('POST', '/services/lookup', { ids: req }, { profile: null });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.type.startsWith(ERRORS)).toBe(true);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('ids');
    expect(res.body.detail).toContain('100');
  });
});

describe('feed: incremental, ascending modified_at, both cursor names (§3.12.2, D4)', () => {
  it('returns every service as an updated item in ascending modified_at with feed_meta', async () => {
    const res = await t.call('GET', '/services/feed', undefined, { profile: null });
    expect(res.status).toBe(200);
    const items = res.body.items;
    expect(items.map((i: { data: { id: string } }) => i.data.id).sort()).toEqual([...ALL_IDS].sort());
    for (const it of items) {
      expect(it.state).toBe('updated');
      expect(it.data.business_id).toBe('biz_maple_pine');
    }
    const times = items.map((i: { modified_at: string }) => Date.parse(i.modified_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(res.body.feed_meta).toEqual({
      feed_generated_at: new Date(t.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      total_services: ALL_IDS.length,
      feed_status: 'healthy',
    });
    const p = res.body.pagination;
    expect(p.has_more).toBe(false);
    expect(typeof p.next_cursor).toBe('string');
    expect(p.cursor).toBe(p.next_cursor);
  });

  it('paging with limit 2 visits every service once; the last cursor then yields nothing new', async () => {
    const seen: string[] = [];
    const more: boolean[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const q = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res: { status: number; body: any } = await t.call('GET', `/services/feed${q}`, undefined, {
        profile: null,
      });
      expect(res.status).toBe(200);
      expect(res.body.pagination.cursor).toBe(res.body.pagination.next_cursor);
      seen.push(...res.body.items.map((i: { data: { id: string } }) => i.data.id));
      more.push(res.body.pagination.has_more);
      cursor = res.body.pagination.next_cursor;
      if (!res.body.pagination.has_more) break;
    }
    expect(more).toEqual([true, true, false]);
    expect(seen).toHaveLength(ALL_IDS.length);
    expect(new Set(seen)).toEqual(new Set(ALL_IDS));
    const tail = await t.call('GET', `/services/feed?limit=2&cursor=${encodeURIComponent(cursor!)}`, undefined, {
      profile: null,
    });
    expect(tail.body.items).toEqual([]);
    expect(tail.body.pagination.has_more).toBe(false);
    expect(tail.body.pagination.next_cursor).toBe(cursor);
  });

  it('a feed cursor the business never issued is invalid_request 400', async () => {
    const res = await t.call('GET', '/services/feed?cursor=garbage', undefined, { profile: null });
    expectProblem(res, 400, 'invalid-request');
  });
});
