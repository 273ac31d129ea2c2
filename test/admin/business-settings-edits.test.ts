/**
 * The business edits its details, its settings and its services' categories through the admin API:
 * each edit is checked with the business file's own messages (one per field, naming it), takes effect
 * on the next call, is audited and raises the catalog events the spec has for it; a new time zone
 * that would strand live bookings is refused naming them unless forced.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkBusinessDocument } from '../../src/domain/index.js';
import { ADMIN_KEY, BUYER, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});
const admin = (method: string, path: string, body?: unknown) =>
  t.call(method, path, body, { apiKey: ADMIN_KEY, profile: null });
const events = async () =>
  (await t.server.store.read((tx) => tx.outbox.recent(100))).map((e) => `${e.event} ${e.order_key}`);
const audited = async () => JSON.stringify((await admin('GET', '/admin/audit')).body);

/** The messages the business file gets for `doc`'s issues under `prefix`, as `field: message`. */
function fileMessages(doc: unknown, prefix: string): string[] {
  const checked = checkBusinessDocument(doc);
  expect(checked.ok).toBe(false);
  return (checked as any).issues
    .filter((i: any) => i.path.startsWith(prefix))
    .map((i: any) => `${i.path.slice(prefix.length)}: ${i.message}`);
}
const said = (res: { body: any }) => res.body.errors.map((e: any) => `${e.field}: ${e.message}`);

describe("PATCH /admin/business: the business's own details", () => {
  it('a new name and locale are a merge patch: in the profile on the next call, audited, the rest kept', async () => {
    const res = await admin('PATCH', '/admin/business', { name: 'Maple & Pine', locale: 'fr-CA' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.business).toMatchObject({
      id: demoBusiness().business.id,
      name: 'Maple & Pine',
      locale: 'fr-CA',
      timezone: demoBusiness().business.timezone,
    });
    expect(res.body.business.locations).toBeUndefined();
    const profile = (await t.call('GET', '/.well-known/usp')).body;
    expect(profile.usp.business.name).toBe('Maple & Pine');
    expect(t.server.biz.def.business.locale).toBe('fr-CA');
    expect(await audited()).toContain('update_business');
  });

  it('a time zone that is not one is refused with the file message on timezone, and nothing changes', async () => {
    const res = await admin('PATCH', '/admin/business', { timezone: 'Mars/Olympus', locale: 'not a tag!' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
    const doc = demoBusiness() as any;
    doc.business.timezone = 'Mars/Olympus';
    doc.business.locale = 'not a tag!';
    expect(said(res).sort()).toEqual(fileMessages(doc, 'business.').sort());
    expect(res.body.errors.map((e: any) => e.field).sort()).toEqual(['locale', 'timezone']);
    expect(t.server.biz.def.business.timezone).toBe(demoBusiness().business.timezone);
  });

  it('a new currency re-denominates every service priced in the old one (amounts kept), each announced with service.updated', async () => {
    const res = await admin('PATCH', '/admin/business', { currency: 'EUR' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const svc = (await t.call('GET', '/services/svc_haircut')).body.service;
    expect(svc.pricing.currency).toBe('EUR');
    expect(svc.pricing.amount).toBe(demoBusiness().services.find((s) => s.id === 'svc_haircut')!.pricing.amount);
    expect(await events()).toContain('service.updated svc_haircut');
    const bad = await admin('PATCH', '/admin/business', { currency: 'euro' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('currency');
  });

  it("the business's id cannot change, a required member cannot be removed, and locations have their own operations", async () => {
    const id = await admin('PATCH', '/admin/business', { id: 'other_biz' });
    expect(id.status).toBe(400);
    expect(id.body.errors).toEqual([{ field: 'id', message: 'cannot change' }]);
    const name = await admin('PATCH', '/admin/business', { name: null });
    expect(name.status).toBe(400);
    expect(name.body.errors[0].field).toBe('name');
    const locations = await admin('PATCH', '/admin/business', { locations: [] });
    expect(locations.status).toBe(400);
    expect(locations.body.errors[0].field).toBe('locations');
    expect(t.server.biz.def.business.locations.length).toBe(demoBusiness().business.locations.length);
  });

  it('a platform cannot change the business', async () => {
    const res = await t.call('PATCH', '/admin/business', { name: 'Hijacked' });
    expect(res.status).toBe(401);
    expect(t.server.biz.def.business.name).toBe(demoBusiness().business.name);
  });

  it('a time zone that moves the hours from under a live booking is refused naming it; forced, it is stored with a warning and the booking stands', async () => {
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(2),
      end_date: day(2),
    });
    const b = (
      await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: q.body.slots[0].id, buyer: BUYER })
    ).body.booking;
    // Thirteen hours east: the morning's first slot falls in the night.
    const refused = await admin('PATCH', '/admin/business', { timezone: 'Asia/Tokyo' });
    expect(refused.status).toBe(400);
    expect(refused.body.detail_code ?? refused.body.error?.detail_code ?? JSON.stringify(refused.body)).toContain(
      'bookings_stranded',
    );
    expect(refused.body.errors.map((e: any) => e.field)).toContain(`bookings.${b.id}`);
    const forced = await admin('PATCH', '/admin/business', { timezone: 'Asia/Tokyo', force: true });
    expect(forced.status, JSON.stringify(forced.body)).toBe(200);
    expect(forced.body.messages[0].code).toBe('bookings_overlap');
    expect((await admin('GET', `/bookings/${b.id}`)).body.booking.status).toBe(b.status);
  });
});

describe('PATCH /admin/settings: every member of the settings', () => {
  it('a shorter longest query range applies on the next query; null gives the default back', async () => {
    const res = await admin('PATCH', '/admin/settings', { max_query_days: 3 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.settings.max_query_days).toBe(3);
    expect(res.body.settings.hold_ttl_seconds).toBe(demoBusiness().settings.hold_ttl_seconds);
    const wide = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(1),
      end_date: day(6),
    });
    expect(wide.status).toBe(422);
    expect(wide.body.code).toBe('range_too_wide');
    const back = await admin('PATCH', '/admin/settings', { max_query_days: null });
    expect(back.body.settings.max_query_days).toBe(31);
    expect(
      (await t.call('POST', '/availability/query', { service_id: 'svc_haircut', start_date: day(1), end_date: day(6) }))
        .status,
    ).toBe(200);
    expect(await audited()).toContain('update_settings');
  });

  it('a new hold time-to-live is what the next hold gets', async () => {
    await admin('PATCH', '/admin/settings', { hold_ttl_seconds: 120 });
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(3),
      end_date: day(3),
    });
    const hold = await t.call('POST', '/availability/holds', {
      service_id: 'svc_haircut',
      slot_id: q.body.slots[0].id,
      buyer: BUYER,
    });
    expect(hold.status, JSON.stringify(hold.body)).toBeLessThan(300);
    expect(Date.parse(hold.body.hold.expires_at) - t.clock.now()).toBe(120_000);
  });

  it('invalid values are refused with the file messages, each naming its setting; an unknown setting is named too', async () => {
    const res = await admin('PATCH', '/admin/settings', {
      hold_ttl_seconds: 0,
      mail_reminders: 'yes',
      public_url: 'ftp://x',
      no_such_knob: 1,
    });
    expect(res.status).toBe(400);
    const doc = demoBusiness() as any;
    Object.assign(doc.settings, { hold_ttl_seconds: 0, mail_reminders: 'yes', public_url: 'ftp://x', no_such_knob: 1 });
    expect(said(res).sort()).toEqual(
      fileMessages(doc, 'settings')
        .map((m) => m.replace(/^[.]/, '').replace(/^: /, '(object): '))
        .sort(),
    );
    expect(res.body.errors.map((e: any) => e.field)).toEqual(
      expect.arrayContaining(['hold_ttl_seconds', 'mail_reminders', 'public_url']),
    );
    expect(t.server.biz.def.settings.hold_ttl_seconds).toBe(demoBusiness().settings.hold_ttl_seconds);
  });
});

describe('categories: the services[].categories entries, edited across services', () => {
  it('a category added to two services is on both, listed, and each gets service.updated', async () => {
    const res = await admin('POST', '/admin/categories', {
      id: 'cat_weddings',
      name: 'Bridal',
      parent_id: 'cat_hair',
      service_ids: ['svc_haircut', 'svc_bridal_trial'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.category).toEqual({
      taxonomy: 'merchant',
      id: 'cat_weddings',
      name: 'Bridal',
      parent_id: 'cat_hair',
    });
    const svc = (await t.call('GET', '/services/svc_bridal_trial')).body.service;
    expect(svc.categories).toContainEqual({
      taxonomy: 'merchant',
      id: 'cat_weddings',
      name: 'Bridal',
      parent_id: 'cat_hair',
    });
    expect(await events()).toEqual(
      expect.arrayContaining(['service.updated svc_haircut', 'service.updated svc_bridal_trial']),
    );
    const listed = (await admin('GET', '/admin/categories')).body.categories.find((c: any) => c.id === 'cat_weddings');
    expect(listed.service_ids).toEqual(['svc_haircut', 'svc_bridal_trial']);
    expect((await t.call('POST', '/services/search', { category_id: 'cat_weddings' })).status).toBeLessThan(500);
    expect(await audited()).toContain('create_category');
  });

  it('a category renamed is renamed on every service; service_ids moves it; deleting takes it off all of them', async () => {
    await admin('POST', '/admin/categories', {
      id: 'cat_weddings',
      name: 'Bridal',
      service_ids: ['svc_haircut', 'svc_bridal_trial'],
    });
    const renamed = await admin('PATCH', '/admin/categories/cat_weddings', { name: 'Weddings' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    for (const id of ['svc_haircut', 'svc_bridal_trial']) {
      expect(t.server.biz.services.get(id)!.categories).toContainEqual({
        taxonomy: 'merchant',
        id: 'cat_weddings',
        name: 'Weddings',
      });
    }
    const moved = await admin('PATCH', '/admin/categories/cat_weddings', {
      service_ids: ['svc_bridal_trial', 'svc_color_consult'],
    });
    expect(moved.body.service_ids.sort()).toEqual(['svc_bridal_trial', 'svc_color_consult']);
    expect((t.server.biz.services.get('svc_haircut')!.categories ?? []).some((c: any) => c.id === 'cat_weddings')).toBe(
      false,
    );
    expect(t.server.biz.services.get('svc_color_consult')!.categories).toContainEqual({
      taxonomy: 'merchant',
      id: 'cat_weddings',
      name: 'Weddings',
    });
    const gone = await admin('DELETE', '/admin/categories/cat_weddings');
    expect(gone.status, JSON.stringify(gone.body)).toBe(200);
    expect(gone.body.service_ids.sort()).toEqual(['svc_bridal_trial', 'svc_color_consult']);
    expect((await admin('GET', '/admin/categories')).body.categories.some((c: any) => c.id === 'cat_weddings')).toBe(
      false,
    );
    expect(await audited()).toContain('delete_category');
  });

  it('the file rules apply to the entry: a second primary and an external taxonomy without value are named on the field', async () => {
    const primary = await admin('POST', '/admin/categories', {
      id: 'cat_x',
      name: 'X',
      primary: true,
      service_ids: ['svc_haircut'],
    });
    const had = (demoBusiness().services.find((s) => s.id === 'svc_haircut')!.categories ?? []).some(
      (c) => c.primary === true,
    );
    if (had) {
      expect(primary.status).toBe(400);
      expect(primary.body.errors[0].field).toBe('primary');
      expect(primary.body.errors[0].message).toMatch(/only one category may be primary/);
    }
    const external = await admin('POST', '/admin/categories', {
      id: 'g1',
      taxonomy: 'google_business_profile',
      name: 'Salon',
      service_ids: ['svc_haircut'],
    });
    expect(external.status).toBe(400);
    expect(external.body.errors).toEqual([
      { field: 'value', message: 'is required for the non-merchant taxonomy "google_business_profile"' },
    ]);
  });

  it('a duplicate, an unknown service and an unknown category are refused naming the field', async () => {
    await admin('POST', '/admin/categories', { id: 'cat_weddings', name: 'Bridal', service_ids: ['svc_haircut'] });
    const dup = await admin('POST', '/admin/categories', {
      id: 'cat_weddings',
      name: 'Again',
      service_ids: ['svc_bridal_trial'],
    });
    expect(dup.status).toBe(400);
    expect(dup.body.errors[0].field).toBe('id');
    const unknownService = await admin('POST', '/admin/categories', {
      id: 'cat_y',
      name: 'Y',
      service_ids: ['svc_haircut', 'svc_nope'],
    });
    expect(unknownService.body.errors).toEqual([{ field: 'service_ids[1]', message: 'unknown service' }]);
    const unknown = await admin('PATCH', '/admin/categories/cat_nope', { name: 'Z' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ field: 'category_id', message: 'unknown category' }]);
    expect((await admin('DELETE', '/admin/categories/cat_nope')).status).toBe(400);
  });
});
