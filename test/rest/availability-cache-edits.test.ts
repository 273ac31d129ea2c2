/**
 * The availability cache stays exact across edits of the business definition: two servers share one
 * SQLite file, one with the cache and one without, and after every kind of admin edit (made through
 * either server) the cached server answers exactly as the uncached one, though it had the old answer
 * in its cache: a price, a longer duration and buffers, a stylist's new hours, a new stylist named by
 * the service, a service's resources narrowed, a location renamed, a new service, an archived one,
 * the business's time zone, a category, the settings (a shorter query range refused alike).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';

let dir: string;
let cached: TestServer;
let fresh: TestServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'usp-avail-edits-'));
  const db = join(dir, 'shop.db');
  cached = await startTestServer({ db, webhooks: { enabled: false } });
  fresh = await startTestServer({ db, availabilityCacheBytes: 0, webhooks: { enabled: false } });
});
afterAll(async () => {
  await cached?.close();
  await fresh?.close();
  rmSync(dir, { recursive: true, force: true });
});

const hits = () => cached.server.availabilityCache!.stats().hits;

async function query(t: TestServer, body: Record<string, unknown>): Promise<any> {
  const res = await t.call('POST', '/availability/query', body, { profile: null });
  expect(res.status).toBe(200);
  return res.body;
}

/** The cached server's answer equals the uncached one's (slots, pages, opening hours, messages). */
async function same(body: Record<string, unknown>): Promise<any> {
  const a = await query(cached, body);
  const b = await query(fresh, body);
  expect({ slots: a.slots, pagination: a.pagination, opening_hours: a.opening_hours, messages: a.messages }).toEqual({
    slots: b.slots,
    pagination: b.pagination,
    opening_hours: b.opening_hours,
    messages: b.messages,
  });
  return a;
}

const q = (service: string, extra: Record<string, unknown> = {}) => ({
  service_id: service,
  start_date: day(1),
  end_date: day(2),
  limit: 500,
  ...extra,
});
const WEEK = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

async function edit(via: TestServer, method: string, path: string, body?: unknown): Promise<void> {
  const res = await via.call(method, path, body, { apiKey: ADMIN_KEY, profile: null });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
}

/** Warm the cache with `queries` (each answered once more from it), make the edit, and compare every answer after it. */
async function across(queries: Array<Record<string, unknown>>, change: () => Promise<void>): Promise<any[]> {
  const before: any[] = [];
  for (const body of queries) {
    await same(body);
    const h = hits();
    before.push(await same(body));
    expect(hits()).toBe(h + 1);
  }
  await change();
  const after: any[] = [];
  for (const body of queries) after.push(await same(body));
  return [before, after];
}

const ids = (a: any) => a.slots.map((s: any) => `${s.start}|${s.end}`);

describe('cached and uncached servers answer alike after every kind of definition edit', () => {
  it('a price change (made through the other server) shows in the cached answer at once', async () => {
    await across([q('svc_haircut')], () =>
      edit(fresh, 'PATCH', '/admin/services/svc_haircut', { pricing: { amount: 12_345 } }),
    );
    expect((await cached.call('GET', '/services/svc_haircut')).body.service.pricing.amount).toBe(12_345);
  });

  it('a longer duration with a buffer before changes every slot', async () => {
    const [before, after] = await across([q('svc_color_consult')], () =>
      edit(cached, 'PATCH', '/admin/services/svc_color_consult', {
        duration: { fixed: 'PT50M', buffer_before: 'PT10M' },
      }),
    );
    expect(ids(after[0])).not.toEqual(ids(before[0]));
  });

  it("a stylist's new weekly hours move her slots", async () => {
    const schedule = Object.fromEntries(WEEK.map((d) => [d, [{ opens: '13:00', closes: '15:00' }]]));
    const [before, after] = await across(
      [q('svc_haircut', { resource_id: 'res_stylist_carla' }), q('svc_haircut')],
      () => edit(fresh, 'PATCH', '/admin/resources/res_stylist_carla', { schedule }),
    );
    expect(after[0].slots.length).toBeLessThan(before[0].slots.length);
    expect(after[0].slots.every((s: any) => /T1[34]:/.test(s.start))).toBe(true);
  });

  it('a new stylist named by the service adds slots; narrowing the service to her removes the others', async () => {
    const schedule = Object.fromEntries(WEEK.map((d) => [d, [{ opens: '08:00', closes: '20:00' }]]));
    await edit(cached, 'POST', '/admin/resources', {
      id: 'res_stylist_dee',
      type: 'staff',
      name: 'Dee',
      location_id: 'loc_downtown',
      schedule,
    });
    const req = demoBusiness().services.find((s) => s.id === 'svc_bridal_trial')!.requirements;
    const [before, after] = await across([q('svc_bridal_trial')], () =>
      edit(fresh, 'PATCH', '/admin/services/svc_bridal_trial', {
        requirements: req.map((r) => ({ ...r, resource_ids: [...r.resource_ids, 'res_stylist_dee'] })),
      }),
    );
    expect(after[0].slots.length).toBeGreaterThan(before[0].slots.length);
    const [, narrowed] = await across([q('svc_bridal_trial')], () =>
      edit(cached, 'PATCH', '/admin/services/svc_bridal_trial', {
        requirements: req.map((r) => ({ ...r, resource_ids: ['res_stylist_dee'] })),
      }),
    );
    expect(narrowed[0].slots.every((s: any) => JSON.stringify(s).includes('res_stylist_dee'))).toBe(true);
  });

  it("the business's new time zone moves every slot in the cached answer too", async () => {
    const [before, after] = await across([q('svc_haircut'), q('svc_yoga_class')], () =>
      edit(fresh, 'PATCH', '/admin/business', { timezone: 'America/Los_Angeles' }),
    );
    expect(ids(after[0])).not.toEqual(ids(before[0]));
    await across([q('svc_haircut')], () =>
      edit(cached, 'PATCH', '/admin/business', { timezone: demoBusiness().business.timezone }),
    );
  });

  it('a category edit and a settings edit answer alike; a shorter query range refuses the same query on both', async () => {
    await across([q('svc_haircut')], () =>
      edit(cached, 'POST', '/admin/categories', { id: 'cat_quick', name: 'Quick', service_ids: ['svc_haircut'] }),
    );
    await across([q('svc_haircut')], () => edit(fresh, 'PATCH', '/admin/settings', { hold_ttl_seconds: 300 }));
    await same(q('svc_haircut'));
    await edit(fresh, 'PATCH', '/admin/settings', { max_query_days: 1 });
    const wide = { ...q('svc_haircut'), end_date: day(3) };
    const a = await cached.call('POST', '/availability/query', wide, { profile: null });
    const b = await fresh.call('POST', '/availability/query', wide, { profile: null });
    expect([a.status, a.body.code]).toEqual([422, 'range_too_wide']);
    expect([b.status, b.body.code]).toEqual([422, 'range_too_wide']);
    await edit(cached, 'PATCH', '/admin/settings', { max_query_days: null });
    await same(wide);
  });

  it('a renamed location, a new service and an archived service answer alike', async () => {
    await across([q('svc_yoga_class'), q('svc_massage_60')], () =>
      edit(fresh, 'PATCH', '/admin/locations/loc_uptown', { name: 'Uptown Loft' }),
    );
    const svc = {
      ...structuredClone(demoBusiness().services.find((s) => s.id === 'svc_massage_60')!),
      id: 'svc_massage_30',
      name: 'Short massage',
      duration: { fixed: 'PT30M' },
    };
    delete (svc as { handle?: string }).handle;
    await across([q('svc_massage_60')], () => edit(cached, 'POST', '/admin/services', svc));
    await same(q('svc_massage_30'));
    const [, after] = await across([q('svc_massage_30'), q('svc_massage_60')], () =>
      edit(fresh, 'POST', '/admin/services/svc_massage_30/archive'),
    );
    expect(after[1].slots.length).toBeGreaterThan(0);
  });
});
