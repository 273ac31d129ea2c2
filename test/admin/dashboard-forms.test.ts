/**
 * The dashboard's newer forms over plain HTTP (no browser): API keys, revoking one, signing-key
 * rotation, hours for one date and reschedule. Each refuses a POST without the session's CSRF token
 * (or with a wrong one) and changes nothing; a new key's secret is only in the body of the POST
 * that made it, never in a URL, a redirect or the list; a slot taken in between answers the
 * reschedule form with the operation's slot_unavailable words and leaves the booking where it was.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addBusinessUser } from '../../src/operations/index.js';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { signInDashboard } from '../support/dashboard-session.js';

const EMAIL = 'owner@salon.example';
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

/** A signed-in dashboard session kept in a cookie jar, and the page's CSRF token. */
const signIn = () => signInDashboard(t.url, EMAIL, PASSWORD);

async function bookFirst(serviceId: string, date: string) {
  const q = await t.call('POST', '/availability/query', { service_id: serviceId, start_date: date, end_date: date });
  const b = await t.call('POST', '/bookings', { service_id: serviceId, slot_id: q.body.slots[0].id, buyer: BUYER });
  return b.body.booking;
}

describe('every new dashboard form refuses a POST without the session CSRF token and changes nothing', () => {
  it('API key create and revoke, signing-key rotation, hours for a date and reschedule: 403 without the token or with a wrong one', async () => {
    const s = await signIn();
    const key = (await admin('POST', '/admin/api-keys', { label: 'Salon app' })).body.api_key;
    const booking = await bookFirst('svc_haircut', day(1));
    const keysBefore = (await admin('GET', '/admin/signing-keys')).body.keys;
    expect(keysBefore.length).toBeGreaterThan(0);
    const staff = [...t.server.biz.resources.keys()][0];
    const forms: Array<[string, Record<string, string>]> = [
      ['/admin/ui/api-keys', { label: 'Forged' }],
      [`/admin/ui/api-keys/${key.id}/revoke`, {}],
      ['/admin/ui/webhooks/rotate-key', {}],
      ['/admin/ui/time-off/exception', { resource_id: staff, date: day(5), opens: '', closes: '' }],
      [`/admin/ui/bookings/${booking.id}/reschedule`, { slot_id: 'anything' }],
    ];
    for (const [path, form] of forms) {
      expect((await s.post(path, form)).status, path).toBe(403);
      expect((await s.post(path, { ...form, _csrf: `${s.csrf}x` })).status, path).toBe(403);
    }
    const keys = (await admin('GET', '/admin/api-keys')).body.api_keys;
    expect(keys).toHaveLength(1);
    expect(keys[0].revoked_at).toBeNull();
    expect((await admin('GET', '/admin/signing-keys')).body.keys).toEqual(keysBefore);
    expect((await admin('GET', '/admin/schedule-changes')).body.changes).toEqual([]);
    expect((await admin('GET', `/admin/bookings/${booking.id}`)).body.booking.slot.id).toBe(booking.slot.id);
    expect((await admin('GET', '/admin/audit')).body.entries.some((e: any) => e.actor === `user:${EMAIL}`)).toBe(false);

    // The same forms with the token do their work: the refusals above were the token's.
    const page = await (await s.get(`/admin/ui/bookings/${booking.id}?date=${day(2)}`)).text();
    const slot = /name="slot_id" value="([^"]+)"/.exec(page)![1];
    forms[4][1].slot_id = slot;
    for (const [path, form] of forms)
      expect([200, 303], path).toContain((await s.post(path, { ...form, _csrf: s.csrf })).status);
    const after = (await admin('GET', '/admin/api-keys')).body.api_keys;
    const active = Object.fromEntries(after.map((k: any) => [k.label, k.revoked_at === null]));
    expect(active).toEqual({ 'Salon app': false, Forged: true });
    expect((await admin('GET', '/admin/signing-keys')).body.keys).not.toEqual(keysBefore);
    expect((await admin('GET', '/admin/schedule-changes')).body.changes).toMatchObject([
      { kind: 'exception', resource_id: staff, date: day(5), hours: [] },
    ]);
    expect((await admin('GET', `/admin/bookings/${booking.id}`)).body.booking.slot.id).toBe(slot);
    const actions = (await admin('GET', '/admin/audit')).body.entries
      .filter((e: any) => e.actor === `user:${EMAIL}`)
      .map((e: any) => e.action);
    expect(actions).toEqual([
      'reschedule_booking',
      'add_schedule_exception',
      'rotate_signing_key',
      'revoke_api_key',
      'create_api_key',
    ]);
  });
});

describe('the time-off form says which bookings stay inside the new time off', () => {
  it('time off over a confirmed booking: the page after the form names the booking as a warning, and the booking stays confirmed', async () => {
    const s = await signIn();
    const booking = await bookFirst('svc_haircut', day(3));
    const staff = booking.resources[0].id;
    const posted = await s.post('/admin/ui/time-off', {
      _csrf: s.csrf,
      resource_id: staff,
      start: booking.slot.start,
      end: booking.slot.end,
      reason: 'Dentist',
    });
    expect(posted.status).toBe(303);
    const page = await (await s.get(posted.headers.get('location')!)).text();
    const flash = /<p class="flash (\w+)" role="(\w+)">([^<]*)<\/p>/.exec(page);
    expect(flash?.slice(1, 3)).toEqual(['warn', 'alert']);
    expect(flash![3]).toContain('Time off added.');
    expect(flash![3]).toContain(booking.id);
    expect(flash![3].replaceAll('&#38;', '&').replaceAll('&amp;', '&')).toContain(booking.service_name);
    expect((await admin('GET', `/admin/bookings/${booking.id}`)).body.booking.status).toBe('confirmed');

    // Nothing inside: the plain words, no warning.
    const later = await s.post('/admin/ui/time-off', {
      _csrf: s.csrf,
      resource_id: staff,
      start: `${day(9)}T09:00`,
      end: `${day(9)}T10:00`,
    });
    const calm = await (await s.get(later.headers.get('location')!)).text();
    expect(calm).toContain('<p class="flash ok" role="status">Time off added.</p>');
  });
});

describe("a platform key's secret is shown once, in the answer to the POST that made it", () => {
  it('the answer is a no-store page with the secret and no redirect; the list, the audit log and the next pages never carry it', async () => {
    const s = await signIn();
    const made = await s.post('/admin/ui/api-keys', { _csrf: s.csrf, label: 'Salon app' });
    expect(made.status).toBe(200);
    expect(made.headers.get('location')).toBeNull();
    expect(made.headers.get('cache-control')).toBe('no-store');
    const secret = /<code id="secret">([^<]+)<\/code>/.exec(await made.text())?.[1] ?? '';
    expect(secret).toMatch(/^uspk_/);
    // It works as a platform's key.
    const q = { service_id: 'svc_haircut', start_date: day(1), end_date: day(1) };
    expect((await t.call('POST', '/availability/query', q, { apiKey: secret })).status).toBe(200);
    for (const path of ['/admin/ui/api-keys', '/admin/ui/audit', '/admin'])
      expect(await (await s.get(path)).text(), path).not.toContain(secret);
    const listed = await (await s.get('/admin/ui/api-keys')).text();
    expect(listed).toContain('Salon app');
    // An empty label is the operation's refusal, shown as a flash: no key made.
    const empty = await s.post('/admin/ui/api-keys', { _csrf: s.csrf, label: '  ' });
    expect(empty.status).toBe(303);
    expect((await admin('GET', '/admin/api-keys')).body.api_keys).toHaveLength(1);
  });
});

describe('reschedule from the booking page', () => {
  it('a slot taken between showing and choosing answers slot_unavailable in words and leaves the booking at its time', async () => {
    const s = await signIn();
    const booking = await bookFirst('svc_haircut', day(1));
    const page = await (await s.get(`/admin/ui/bookings/${booking.id}?date=${day(2)}`)).text();
    const offered = [...page.matchAll(/name="slot_id" value="([^"]+)"/g)].map((m) => m[1]);
    expect(offered.length).toBeGreaterThan(0);
    // Someone else books the first offered slot.
    const other = await t.call('POST', '/bookings', {
      service_id: 'svc_haircut',
      slot_id: offered[0],
      buyer: { ...BUYER, email: 'grace@example.com' },
    });
    expect(other.status).toBe(201);
    const res = await s.post(`/admin/ui/bookings/${booking.id}/reschedule`, { _csrf: s.csrf, slot_id: offered[0] });
    expect(res.status).toBe(303);
    const back = await (await s.get(res.headers.get('location')!)).text();
    expect(back).toMatch(/role="alert">The new slot is no longer available/);
    expect((await admin('GET', `/admin/bookings/${booking.id}`)).body.booking.slot.id).toBe(booking.slot.id);
  });
});

describe('calls made from the dashboard are reported as its own door', () => {
  it('/metrics counts the Today page calls under door="dashboard", none under cli', async () => {
    const s = await signIn();
    expect((await s.get('/admin')).status).toBe(200);
    const text = await (await fetch(`${t.url}/metrics`)).text();
    expect(text).toMatch(/usp_calls_total\{[^}]*door="dashboard"[^}]*operation="get_day_figures"[^}]*\} [1-9]/);
    expect(text).not.toMatch(/usp_calls_total\{[^}]*door="cli"/);
  });
});

describe('the dashboard shows only messages the server chose, never text from a link', () => {
  it("a crafted /admin?error=... link shows our generic words, not the attacker's sentence; ?ok= likewise", async () => {
    const s = await signIn();
    const lure = 'Your account is suspended: call +1 555 0100 and read out your password';
    const bad = await (
      await s.get(`/admin?error=${encodeURIComponent(lure)}&ok=${encodeURIComponent('Payment received')}`)
    ).text();
    expect(bad).not.toContain('suspended');
    expect(bad).not.toContain('Payment received');
    expect(bad).toMatch(/role="alert">That could not be done; nothing was changed\./);
    // An error code shows our words for it; a detail with a forged seal is ignored.
    const coded = await (
      await s.get(`/admin?error=slot_unavailable&detail=${encodeURIComponent(lure)}&seal=forged`)
    ).text();
    expect(coded).toMatch(/role="alert">That time is no longer free; choose another\./);
    expect(coded).not.toContain('suspended');
  });
});
