/**
 * The business edits its own definition through the admin API: services, resources with their
 * hours, and locations. Each edit is checked with the business file's own messages (one per field,
 * naming it), takes effect on the next call, is audited and raises its catalog event; a change that
 * would strand live bookings is refused naming them unless forced, and forcing changes no booking.
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
  (await t.server.store.read((tx) => tx.outbox.recent(50))).map((e) => `${e.event} ${e.order_key}`);

const newService = (over: Record<string, unknown> = {}) => ({
  ...structuredClone(demoBusiness().services.find((s) => s.id === 'svc_color_consult')!),
  id: 'svc_beard_trim',
  name: 'Beard trim',
  ...over,
});

async function bookFirst(serviceId: string, date: string, resourceId?: string) {
  const q = await t.call('POST', '/availability/query', {
    service_id: serviceId,
    start_date: date,
    end_date: date,
    ...(resourceId ? { resource_id: resourceId } : {}),
  });
  const slot = q.body.slots[0];
  const b = await t.call('POST', '/bookings', { service_id: serviceId, slot_id: slot.id, buyer: BUYER });
  expect(['confirmed', 'pending'], JSON.stringify(b.body)).toContain(b.body.booking?.status);
  return b.body.booking;
}

describe('admin services: create, change, archive', () => {
  it('a created service is listed, bookable, audited and announced with service.created', async () => {
    const created = await admin('POST', '/admin/services', newService());
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.service.id).toBe('svc_beard_trim');
    expect((await t.call('GET', '/services/svc_beard_trim')).body.service.name).toBe('Beard trim');
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_beard_trim',
      start_date: day(1),
      end_date: day(1),
    });
    expect(q.body.slots.length).toBeGreaterThan(0);
    expect(await events()).toContain('service.created svc_beard_trim');
    const audit = (await admin('GET', '/admin/audit')).body;
    expect(JSON.stringify(audit)).toContain('create_service');
  });

  it('an invalid service is refused with the business file messages, one per field, naming it, and nothing is stored', async () => {
    const bad = newService({ pricing: { model: 'fixed', amount: -5, currency: 'usd' }, duration: {} });
    const res = await admin('POST', '/admin/services', bad);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
    const fields = res.body.errors.map((e: any) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['pricing.amount', 'pricing.currency', 'duration']));
    // The same words the business file gets for the same object.
    const doc = demoBusiness() as any;
    doc.services.push(bad);
    const file = checkBusinessDocument(doc);
    expect(file.ok).toBe(false);
    const at = `services[${doc.services.length - 1}].`;
    const fileMessages = (file as any).issues
      .filter((i: any) => i.path.startsWith(at))
      .map((i: any) => `${i.path.slice(at.length)}: ${i.message}`);
    expect(res.body.errors.map((e: any) => `${e.field}: ${e.message}`).sort()).toEqual(fileMessages.sort());
    expect((await t.call('GET', '/services/svc_beard_trim')).body.code).toBe('service_not_found');
  });

  it('a duplicate service id is refused on id with the file message', async () => {
    const res = await admin('POST', '/admin/services', newService({ id: 'svc_haircut' }));
    expect(res.status).toBe(400);
    expect(res.body.errors.some((e: any) => e.field === 'id' && /duplicate/.test(e.message))).toBe(true);
  });

  it('a price change is a merge patch: visible on the next call, announced with service.updated, other fields kept', async () => {
    const res = await admin('PATCH', '/admin/services/svc_haircut', { pricing: { amount: 9900 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const svc = (await t.call('GET', '/services/svc_haircut')).body.service;
    expect(svc.pricing.amount).toBe(9900);
    expect(svc.pricing.currency).toBe('USD');
    expect(svc.name).toBe(demoBusiness().services[0].name);
    expect(await events()).toContain('service.updated svc_haircut');
  });

  it('an unknown service answers invalid_request naming service_id; a platform cannot edit', async () => {
    const res = await admin('PATCH', '/admin/services/svc_nope', { name: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('service_id');
    expect((await t.call('PATCH', '/admin/services/svc_haircut', { name: 'x' })).status).toBe(401);
  });

  it('archiving stops new bookings, lets existing ones stand, and announces service.deleted', async () => {
    const booking = await bookFirst('svc_color_consult', day(2));
    const slots = (
      await t.call('POST', '/availability/query', {
        service_id: 'svc_color_consult',
        start_date: day(3),
        end_date: day(3),
      })
    ).body.slots;
    const res = await admin('POST', '/admin/services/svc_color_consult/archive');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.service.status).toBe('archived');
    expect(await events()).toContain('service.deleted svc_color_consult');
    const after = await t.call('POST', '/bookings', {
      service_id: 'svc_color_consult',
      slot_id: slots[0].id,
      buyer: BUYER,
    });
    // A slot of a service no longer offered is unavailable, and the message says why.
    expect([after.body.messages?.[0]?.code, after.body.messages?.[0]?.content]).toEqual([
      'slot_unavailable',
      expect.stringContaining('archived'),
    ]);
    expect((await admin('GET', `/bookings/${booking.id}`)).body.booking.status).toBe(booking.status);
  });
});

describe('a change that would strand live bookings is refused naming them, unless forced', () => {
  it('hours shrunk under a booking: refused naming it; forced: stored with a warning naming it, the booking unchanged', async () => {
    const booking = await bookFirst('svc_haircut', day(1), 'res_stylist_ava');
    const staff = booking.resources[0].id;
    const empty = Object.fromEntries(
      ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, []]),
    );
    const refused = await admin('PATCH', `/admin/resources/${staff}`, { schedule: empty });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('bookings_stranded');
    expect(JSON.stringify(refused.body)).toContain(booking.id);
    const stillOpen = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(1),
      end_date: day(1),
      resource_id: staff,
    });
    expect(stillOpen.body.slots.length).toBeGreaterThan(0);
    const forced = await admin('PATCH', `/admin/resources/${staff}`, { schedule: empty, force: true });
    expect(forced.status, JSON.stringify(forced.body)).toBe(200);
    expect(forced.body.messages[0].content).toContain(booking.id);
    const kept = (await admin('GET', `/bookings/${booking.id}`)).body.booking;
    expect(kept.status).toBe('confirmed');
    expect(kept.slot).toEqual(booking.slot);
    const closed = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(1),
      end_date: day(1),
      resource_id: staff,
    });
    expect(closed.body.slots).toEqual([]);
  });

  it('a resource removed from the service that a booking holds is refused naming the booking', async () => {
    const booking = await bookFirst('svc_haircut', day(1), 'res_stylist_ava');
    const requirements = demoBusiness().services[0].requirements.map((r) => ({
      ...r,
      resource_ids: r.resource_ids.filter((id) => id !== 'res_stylist_ava'),
    }));
    const res = await admin('PATCH', '/admin/services/svc_haircut', { requirements });
    expect(res.status).toBe(400);
    expect(res.body.message ?? res.body.detail).toContain(booking.id);
  });

  it('a duration lengthened into the next booking on the same resource is refused naming it; one that fits is stored', async () => {
    const first = await bookFirst('svc_haircut', day(1), 'res_stylist_ava');
    const second = await bookFirst('svc_haircut', day(1), 'res_stylist_ava');
    expect(Date.parse(second.slot.start)).toBe(Date.parse(first.slot.end) + 15 * 60_000);
    const res = await admin('PATCH', '/admin/services/svc_haircut', { duration: { fixed: 'PT90M' } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(first.id);
    const fits = await admin('PATCH', '/admin/services/svc_haircut', {
      duration: { fixed: 'PT45M', buffer_after: null },
    });
    expect(fits.status, JSON.stringify(fits.body)).toBe(200);
  });
});

describe('admin resources and locations', () => {
  it('a new stylist with hours becomes bookable once a service names it', async () => {
    const schedule = {
      monday: [{ opens: '09:00', closes: '17:00' }],
      tuesday: [{ opens: '09:00', closes: '17:00' }],
      wednesday: [{ opens: '09:00', closes: '17:00' }],
      thursday: [{ opens: '09:00', closes: '17:00' }],
      friday: [{ opens: '09:00', closes: '17:00' }],
      saturday: [{ opens: '09:00', closes: '17:00' }],
      sunday: [{ opens: '09:00', closes: '17:00' }],
    };
    const r = await admin('POST', '/admin/resources', {
      id: 'res_stylist_dee',
      type: 'staff',
      name: 'Dee',
      location_id: 'loc_downtown',
      schedule,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const requirements = demoBusiness().services[0].requirements.map((q) => ({
      ...q,
      resource_ids: [...q.resource_ids, 'res_stylist_dee'],
    }));
    expect((await admin('PATCH', '/admin/services/svc_haircut', { requirements })).status).toBe(200);
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(1),
      end_date: day(1),
      resource_id: 'res_stylist_dee',
    });
    expect(q.body.slots.length).toBeGreaterThan(0);
  });

  it('a resource naming an unknown location is refused on location_id; a location is created and renamed', async () => {
    const bad = await admin('POST', '/admin/resources', {
      id: 'res_x',
      type: 'room',
      name: 'X',
      location_id: 'loc_nowhere',
      schedule: {},
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.field)).toContain('location_id');
    expect((await admin('POST', '/admin/locations', { id: 'loc_harbor', name: 'Harbor' })).status).toBe(201);
    const renamed = await admin('PATCH', '/admin/locations/loc_downtown', { name: 'Downtown Main St' });
    expect(renamed.status).toBe(200);
    const svc = (await t.call('GET', '/services/svc_haircut')).body.service;
    expect(JSON.stringify(svc.locations)).toContain('Downtown Main St');
    expect(await events()).toContain('service.updated svc_haircut');
    expect(
      (
        await admin('POST', '/admin/resources', {
          id: 'res_x',
          type: 'room',
          name: 'X',
          location_id: 'loc_harbor',
          schedule: {},
        })
      ).status,
    ).toBe(201);
  });
});
