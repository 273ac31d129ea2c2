/**
 * The front desk's dashboard forms over plain HTTP: a walk-in booked from a free time and over the
 * rules, a client's page with their bookings and the private note, their data downloaded and
 * erased; the booking page shows the notes, recipient and delivery address. Every form refuses a
 * POST without the session's CSRF token and changes nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addBusinessUser } from '../../src/operations/index.js';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { signInDashboard } from '../support/dashboard-session.js';

const EMAIL = 'desk@salon.example';
const PASSWORD = 'correct horse battery staple';
let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
  await addBusinessUser(t.server.store, EMAIL, PASSWORD, t.clock.now());
});
afterEach(async () => {
  await t.close();
});
const admin = (method: string, path: string, body?: unknown) =>
  t.call(method, path, body, { apiKey: ADMIN_KEY, profile: null });
const slotsOf = async (date: string) =>
  (await t.call('POST', '/availability/query', { service_id: 'svc_haircut', start_date: date, end_date: date })).body
    .slots as any[];

describe('the front desk forms', () => {
  it('without the session CSRF token (or with a wrong one) the walk-in, note and erase forms answer 403 and change nothing', async () => {
    const s = await signInDashboard(t.url, EMAIL, PASSWORD);
    const [slot] = await slotsOf(day(1));
    await t.call('POST', '/bookings', {
      service_id: 'svc_haircut',
      slot_id: (await slotsOf(day(2)))[0].id,
      buyer: BUYER,
    });
    const forms: Array<[string, Record<string, string>]> = [
      [
        '/admin/ui/walk-in',
        { service_id: 'svc_haircut', slot_id: slot.id, first_name: 'Zelda', email: 'z@example.org' },
      ],
      ['/admin/ui/clients/note', { email: BUYER.email, note: 'x' }],
      ['/admin/ui/clients/erase', { email: BUYER.email, confirm: 'yes' }],
      ['/admin/ui/clients/export', { email: BUYER.email }],
    ];
    for (const [path, form] of forms) {
      expect((await s.post(path, form)).status, path).toBe(403);
      expect((await s.post(path, { ...form, _csrf: `${s.csrf}x` })).status, path).toBe(403);
    }
    expect((await slotsOf(day(1))).some((x) => x.id === slot.id)).toBe(true);
    const c = (await admin('GET', `/admin/clients?email=${BUYER.email}`)).body;
    expect(c.note).toBeNull();
    expect(c.bookings[0].booking.buyer).toEqual(BUYER);
  });

  it('a walk-in from a free time lands on its booking page, which shows the notes and links to the client', async () => {
    const s = await signInDashboard(t.url, EMAIL, PASSWORD);
    const page = await (await s.get(`/admin/ui/walk-in?service_id=svc_haircut&date=${day(1)}`)).text();
    const slotId = /name="slot_id" value="([^"]+)"/.exec(page)![1];
    const res = await s.post('/admin/ui/walk-in', {
      _csrf: s.csrf,
      service_id: 'svc_haircut',
      slot_id: slotId,
      first_name: 'Zelda',
      last_name: 'Quinton',
      phone_number: '+1 555 010 7788',
      notes: 'Prefers Ben',
    });
    expect(res.status).toBe(303);
    const to = res.headers.get('location')!;
    expect(to).toMatch(/^\/admin\/ui\/bookings\/bkg_.*ok=walk_in_booked/);
    const detail = await (await s.get(to)).text();
    expect(detail).toContain('Prefers Ben');
    expect(detail).toContain('+1 555 010 7788');
    expect(detail).toContain('/admin/ui/clients?email=');
  });

  it('over the rules from the form books outside opening hours; a refused one comes back with the reason', async () => {
    const s = await signInDashboard(t.url, EMAIL, PASSWORD);
    const made = await s.post('/admin/ui/walk-in', {
      _csrf: s.csrf,
      service_id: 'svc_haircut',
      override_rules: 'on',
      start: `${day(1)}T20:00`,
      resource_id: 'res_stylist_ava',
      first_name: 'Late',
      email: 'late@example.org',
    });
    expect(made.headers.get('location')).toMatch(/ok=walk_in_booked/);
    const again = await s.post('/admin/ui/walk-in', {
      _csrf: s.csrf,
      service_id: 'svc_haircut',
      override_rules: 'on',
      start: `${day(1)}T20:15`,
      resource_id: 'res_stylist_ava',
      first_name: 'Later',
      email: 'later@example.org',
    });
    expect(again.headers.get('location')).toMatch(/^\/admin\/ui\/walk-in\?.*error=slot_unavailable/);
  });

  it("a client's page lists their bookings, saves the note, downloads their data and erases it", async () => {
    const s = await signInDashboard(t.url, EMAIL, PASSWORD);
    const b = (
      await t.call('POST', '/bookings', {
        service_id: 'svc_haircut',
        slot_id: (await slotsOf(day(1)))[0].id,
        buyer: BUYER,
      })
    ).body.booking;
    const page = await (await s.get(`/admin/ui/clients?email=${BUYER.email}`)).text();
    expect(page).toContain(`/admin/ui/bookings/${b.id}`);
    expect(
      (
        await s.post(`/admin/ui/clients/note?email=${BUYER.email}`, {
          _csrf: s.csrf,
          email: BUYER.email,
          note: 'Sensitive scalp',
        })
      ).headers.get('location'),
    ).toMatch(/ok=note_saved/);
    expect(await (await s.get(`/admin/ui/clients?email=${BUYER.email}`)).text()).toContain('Sensitive scalp');
    const dl = await s.post('/admin/ui/clients/export', { _csrf: s.csrf, email: BUYER.email });
    expect(dl.headers.get('content-disposition')).toContain('attachment');
    const data = (await dl.json()) as any;
    expect(data.bookings[0].booking.id).toBe(b.id);
    expect(data.client_notes[0].note).toBe('Sensitive scalp');
    // Without the confirmation box nothing is erased.
    expect(
      (await s.post('/admin/ui/clients/erase', { _csrf: s.csrf, email: BUYER.email })).headers.get('location'),
    ).toMatch(/error=confirm_erase/);
    expect((await admin('GET', `/admin/bookings/${b.id}`)).body.booking.buyer).toEqual(BUYER);
    expect(
      (await s.post('/admin/ui/clients/erase', { _csrf: s.csrf, email: BUYER.email, confirm: 'yes' })).headers.get(
        'location',
      ),
    ).toMatch(/ok=buyer_erased/);
    expect((await admin('GET', `/admin/bookings/${b.id}`)).body.booking.buyer.first_name).toBe('Erased');
  });

  it('a client is found by part of the first or last name, whatever the case or accents, and the result opens their page', async () => {
    const s = await signInDashboard(t.url, EMAIL, PASSWORD);
    const jose = {
      first_name: 'José',
      last_name: 'Álvarez-Núñez',
      email: 'jose.alvarez@example.org',
      phone_number: '+1 212 555 0199',
    };
    const slots = await slotsOf(day(1));
    const b = (await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: slots[0].id, buyer: jose })).body
      .booking;
    await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: slots[slots.length - 1].id, buyer: BUYER });
    for (const typed of ['jose', 'JOSÉ', 'alvarez', 'Núñez', 'jose alv']) {
      const page = await (await s.get(`/admin/ui/clients?name=${encodeURIComponent(typed)}`)).text();
      expect(page, typed).toContain('José Álvarez-Núñez');
      expect(page, typed).toContain(`/admin/ui/clients?email=${encodeURIComponent(jose.email)}`);
      expect(page, typed).not.toContain('Lovelace');
    }
    const none = await (await s.get('/admin/ui/clients?name=zzz')).text();
    expect(none).toContain('No client has that in their name');
    const client = await (await s.get(`/admin/ui/clients?email=${encodeURIComponent(jose.email)}`)).text();
    expect(client).toContain(`/admin/ui/bookings/${b.id}`);
    // The same search over REST, for platforms' own desks.
    const r = await admin('GET', `/admin/clients/by-name?name=${encodeURIComponent('lovel')}`);
    expect(r.body.clients).toEqual([expect.objectContaining({ email: BUYER.email, bookings: 1 })]);
  });
});
