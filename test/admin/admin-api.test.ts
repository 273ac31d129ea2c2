/**
 * The admin API under /admin: business-only operations on the one pipeline. Wrong or missing
 * credentials, moves the transition map refuses, overlapping time off and dates in the past answer
 * clear errors and change nothing; every change made as the business lands in the audit log; time
 * off merges with the business file's schedule; platform keys are shown once and stop working when
 * revoked.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});
const admin = (method: string, path: string, body?: unknown) =>
  t.call(method, path, body, { apiKey: ADMIN_KEY, profile: null });

async function bookFirst(serviceId: string, date: string) {
  const q = await t.call('POST', '/availability/query', { service_id: serviceId, start_date: date, end_date: date });
  const slot = q.body.slots[0];
  const b = await t.call('POST', '/bookings', { service_id: serviceId, slot_id: slot.id, buyer: BUYER });
  return { slot, booking: b.body.booking };
}

describe('the admin API answers only the business', () => {
  it('no credentials, a wrong key and a platform key are refused with authentication_required', async () => {
    expect((await t.call('GET', '/admin/bookings', undefined, { profile: null })).status).toBe(401);
    // With OAuth on, a Bearer value that is no key of ours may be an access token: it is refused as one (invalid_token).
    expect((await t.call('GET', '/admin/bookings', undefined, { apiKey: 'wrong-key', profile: null })).body.code).toBe(
      'invalid_token',
    );
    const created = await admin('POST', '/admin/api-keys', { label: 'Salon app' });
    const platformKey = created.body.secret;
    expect((await t.call('GET', '/admin/bookings', undefined, { apiKey: platformKey, profile: null })).status).toBe(
      401,
    );
  });

  it('a platform key is shown once, authenticates platform calls, is listed without its secret and stops working when revoked', async () => {
    const created = await admin('POST', '/admin/api-keys', { label: 'Salon app' });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;
    expect(JSON.stringify((await admin('GET', '/admin/api-keys')).body)).not.toContain(secret);
    const ok = await t.call(
      'POST',
      '/availability/query',
      { service_id: 'svc_haircut', start_date: day(1), end_date: day(1) },
      { apiKey: secret },
    );
    expect(ok.status).toBe(200);
    expect((await admin('POST', `/admin/api-keys/${created.body.api_key.id}/revoke`)).status).toBe(200);
    const after = await t.call(
      'POST',
      '/availability/query',
      { service_id: 'svc_haircut', start_date: day(1), end_date: day(1) },
      { apiKey: secret },
    );
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('invalid_token');
  });
});

describe('bookings by day and week, and the business moves', () => {
  it('lists a booking on its day, in its week, by staff member and by buyer, and not on another day', async () => {
    const { booking } = await bookFirst('svc_haircut', day(1));
    const list = async (q: string) =>
      (await admin('GET', `/admin/bookings?${q}`)).body.bookings.map((r: any) => r.booking.id);
    expect(await list(`date=${day(1)}`)).toContain(booking.id);
    expect(await list(`date=${day(1)}&view=week`)).toContain(booking.id);
    expect(await list(`date=${day(2)}`)).not.toContain(booking.id);
    expect(await list(`date=${day(1)}&buyer=lovel`)).toContain(booking.id);
    expect(await list(`date=${day(1)}&buyer=nobody`)).not.toContain(booking.id);
    const staff = booking.resources[0].id;
    expect(await list(`date=${day(1)}&resource_id=${staff}`)).toContain(booking.id);
  });

  it('declining a pending booking cancels it with the reason and no fee; declining a confirmed one is the transition map refusing, nothing changed', async () => {
    const { booking } = await bookFirst('svc_color_consult', day(2));
    expect(booking.status).toBe('pending');
    expect((await admin('POST', `/admin/bookings/${booking.id}/decline`, {})).status).toBe(400);
    const d = await admin('POST', `/admin/bookings/${booking.id}/decline`, { reason: 'Stylist on holiday' });
    expect(d.body.booking.status).toBe('canceled');
    expect(d.body.booking.cancellation).toMatchObject({
      canceled_by: 'business',
      reason: 'Stylist on holiday',
      fee: 0,
    });
    const { booking: firm } = await bookFirst('svc_haircut', day(2));
    const refused = await admin('POST', `/admin/bookings/${firm.id}/decline`, { reason: 'no' });
    expect([refused.status, refused.body.messages?.map((m: any) => m.code), refused.body.booking?.status]).toEqual([
      200,
      ['invalid_transition'],
      'confirmed',
    ]);
    expect((await admin('GET', `/admin/bookings/${firm.id}`)).body.booking.status).toBe('confirmed');
    const history = (await admin('GET', `/admin/bookings/${booking.id}`)).body.events.map((e: any) => e.event);
    expect(history).toEqual(expect.arrayContaining(['booking.canceled']));
    const audit = (await admin('GET', '/admin/audit')).body.entries;
    expect(audit[0]).toMatchObject({
      actor: 'admin_api_key',
      action: 'decline_booking',
      target: booking.id,
      outcome: 'ok',
    });
    expect(audit.some((e: any) => e.target === firm.id)).toBe(false);
  });
});

describe('time off and exceptions at run time', () => {
  it('time off removes the slot from availability, republishes the service with service.updated, and refuses overlap and the past', async () => {
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(3),
      end_date: day(3),
    });
    const slot = q.body.slots[0];
    const staff = slot.resources[0].id;
    const body = { resource_id: staff, start: slot.start, end: slot.end, reason: 'Dentist' };
    const added = await admin('POST', '/admin/time-off', body);
    expect(added.status).toBe(201);
    expect(added.body.services_updated).toContain('svc_haircut');
    const after = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(3),
      end_date: day(3),
      resource_id: staff,
    });
    expect(after.body.slots.map((s: any) => s.id)).not.toContain(slot.id);
    const events = await t.server.store.read((tx) => tx.outbox.recent(20));
    expect(events.some((e) => e.event === 'service.updated' && e.order_key === 'svc_haircut')).toBe(true);

    const overlap = await admin('POST', '/admin/time-off', body);
    expect(overlap.status).toBe(400);
    expect(overlap.body.detail).toContain('overlaps');
    const past = await admin('POST', '/admin/time-off', {
      resource_id: staff,
      start: '2020-01-01T09:00:00Z',
      end: '2020-01-01T10:00:00Z',
    });
    expect(past.status).toBe(400);
    expect((await admin('GET', '/admin/schedule-changes')).body.changes).toHaveLength(1);

    const id = added.body.change.id;
    expect((await admin('DELETE', `/admin/schedule-changes/${id}`)).status).toBe(200);
    const back = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(3),
      end_date: day(3),
      resource_id: staff,
    });
    expect(back.body.slots.map((s: any) => s.id)).toContain(slot.id);
  });

  it('an exception closing a day removes its slots; one for a past date is refused', async () => {
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(4),
      end_date: day(4),
    });
    const staff = q.body.slots[0].resources[0].id;
    expect(
      (await admin('POST', '/admin/schedule-exceptions', { resource_id: staff, date: day(4), hours: [] })).status,
    ).toBe(201);
    const after = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(4),
      end_date: day(4),
      resource_id: staff,
    });
    expect(after.body.slots).toEqual([]);
    expect(
      (await admin('POST', '/admin/schedule-exceptions', { resource_id: staff, date: day(-2), hours: [] })).status,
    ).toBe(400);
  });
});

describe('a schedule change over live bookings names them in a warning and leaves them as booked', () => {
  const warningOf = (body: any) => (body.messages ?? []).filter((m: any) => m.code === 'bookings_overlap');

  it('time off over a confirmed booking warns with its id, its start in the business zone and its service; the booking is untouched', async () => {
    const { booking } = await bookFirst('svc_haircut', day(3));
    expect(booking.status).toBe('confirmed');
    const staff = booking.resources[0].id;
    const start = Date.parse(booking.slot.start);
    const added = await admin('POST', '/admin/time-off', {
      resource_id: staff,
      start: new Date(start - 3_600_000).toISOString(),
      end: new Date(start + 60_000).toISOString(),
    });
    expect(added.status).toBe(201);
    const [warning] = warningOf(added.body);
    expect(warning).toMatchObject({ type: 'warning', code: 'bookings_overlap' });
    expect(warning.content).toContain(booking.id);
    expect(warning.content).toContain(booking.slot.start); // RFC 3339 with the business zone's offset
    expect(warning.content).toContain(booking.service_name);
    const after = (await admin('GET', `/admin/bookings/${booking.id}`)).body.booking;
    expect(after).toMatchObject({ status: 'confirmed', slot: { id: booking.slot.id } });
  });

  it('a pending booking is named too; time off beside a booking (ending at its start) and time off of another staff member give no warning', async () => {
    const { booking } = await bookFirst('svc_color_consult', day(4));
    expect(booking.status).toBe('pending');
    const staff = booking.resources[0].id;
    const start = Date.parse(booking.slot.start);
    const before = await admin('POST', '/admin/time-off', {
      resource_id: staff,
      start: new Date(start - 3_600_000).toISOString(),
      end: booking.slot.start,
    });
    expect(before.status).toBe(201);
    expect(warningOf(before.body)).toEqual([]);
    const other = [...t.server.biz.resources.keys()].find((id) => id !== staff)!;
    const elsewhere = await admin('POST', '/admin/time-off', {
      resource_id: other,
      start: booking.slot.start,
      end: booking.slot.end,
    });
    expect(warningOf(elsewhere.body)).toEqual([]);
    const over = await admin('POST', '/admin/time-off', {
      resource_id: staff,
      start: booking.slot.start,
      end: booking.slot.end,
    });
    expect(warningOf(over.body)[0].content).toContain(booking.id);
    expect((await admin('GET', `/admin/bookings/${booking.id}`)).body.booking.status).toBe('pending');
  });

  it('closing a day with a booking warns and names it; new hours that still hold the booking give no warning', async () => {
    const { booking } = await bookFirst('svc_haircut', day(5));
    const staff = booking.resources[0].id;
    const closed = await admin('POST', '/admin/schedule-exceptions', { resource_id: staff, date: day(5), hours: [] });
    expect(closed.status).toBe(201);
    expect(warningOf(closed.body)[0].content).toContain(booking.id);
    expect((await admin('GET', `/admin/bookings/${booking.id}`)).body.booking.status).toBe('confirmed');

    const { booking: next } = await bookFirst('svc_haircut', day(6));
    const held = await admin('POST', '/admin/schedule-exceptions', {
      resource_id: next.resources[0].id,
      date: day(6),
      hours: [{ opens: '00:00', closes: '24:00' }],
    });
    expect(held.status).toBe(201);
    expect(warningOf(held.body)).toEqual([]);
  });
});

describe('the admin API is documented', () => {
  it('/openapi.json lists the admin paths', async () => {
    const doc = (await t.call('GET', '/openapi.json')).body;
    for (const p of [
      '/admin/bookings',
      '/admin/time-off',
      '/admin/webhooks/deliveries/{delivery_id}/retry',
      '/admin/api-keys',
      '/admin/audit',
    ]) {
      expect(Object.keys(doc.paths)).toContain(p);
    }
  });
});
