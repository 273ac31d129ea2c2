/**
 * The owner's chores on the dashboard (issue 37, item 7): a new service needs no hand-made id and
 * its form keeps what was typed when the save is refused; a day off can be the whole day; settings
 * speak plain words; the booking history and webhook log show the business's zone. Through the real
 * dashboard over HTTP: signed in, forms posted with the session's CSRF token.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addBusinessUser, settingsFields } from '../../src/operations/index.js';
import { signInDashboard, type DashboardClient } from '../support/dashboard-session.js';
import { localToUtcMs } from '../../src/domain/index.js';
import { book, startWebhookServer } from '../webhooks/helpers.js';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';

const ZONE = 'America/New_York';

const EMAIL = 'owner@salon.example';
const PASSWORD = 'correct horse battery staple';

let t: TestServer;
let s: DashboardClient;
beforeEach(async () => {
  t = await startTestServer();
  await addBusinessUser(t.server.store, EMAIL, PASSWORD, t.clock.now());
  s = await signInDashboard(t.url, EMAIL, PASSWORD);
});
afterEach(async () => {
  await t.close();
});

const service = async (id: string) => t.call('GET', `/services/${id}`, undefined, { profile: null });

describe('a new service', () => {
  it('gets its id from its name, with a suffix when that id is taken', async () => {
    const form = { _csrf: s.csrf, name: 'Deep Tissue Massage', template: 'svc_haircut', amount: '90', minutes: '60' };
    const first = await s.post('/admin/ui/services', form);
    expect(decodeURIComponent(first.headers.get('location') ?? '')).toMatch(/^\/admin\/ui\/services\?ok=saved/);
    expect((await service('svc_deep_tissue_massage')).body.service).toMatchObject({
      name: 'Deep Tissue Massage',
      pricing: { amount: 9000 },
    });
    const second = await s.post('/admin/ui/services', form);
    expect(second.headers.get('location')).toMatch(/ok=saved/);
    expect((await service('svc_deep_tissue_massage_2')).body.service.name).toBe('Deep Tissue Massage');
    // The form no longer asks for an id first; one typed is still used.
    expect(await (await s.get('/admin/ui/services')).text()).not.toMatch(/<input name="id" required/);
    await s.post('/admin/ui/services', { ...form, name: 'Hot Stones', id: 'svc_stones' });
    expect((await service('svc_stones')).body.service.name).toBe('Hot Stones');
  });

  it('refused, comes back with what was typed in the form', async () => {
    const typed = { _csrf: s.csrf, name: 'Scalp Ritual', template: 'svc_haircut', amount: '70.001', minutes: '45' };
    const bad = await s.post('/admin/ui/services', typed);
    const back = bad.headers.get('location') ?? '';
    expect(back).toMatch(/error=validation_error/);
    const page = await (await s.get(back)).text();
    expect(page).toContain('value="Scalp Ritual"');
    expect(page).toContain('value="70.001"');
    expect(page).toContain('value="45"');
    expect((await service('svc_scalp_ritual')).body.code).toBe('service_not_found');
    // Refused below the form (an id already taken): the same.
    const taken = await s.post('/admin/ui/services', { ...typed, amount: '70', id: 'svc_haircut' });
    const again = await (await s.get(taken.headers.get('location') ?? '')).text();
    expect(again).toMatch(/flash bad/);
    expect(again).toContain('value="Scalp Ritual"');
    expect(again).toContain('value="svc_haircut"');
  });
});

describe('time off', () => {
  it('whole days off run from the first day’s local midnight to the end of the last day, in the business zone', async () => {
    const page = await (await s.get('/admin/ui/time-off')).text();
    expect(page).toContain('Whole days off');
    const res = await s.post('/admin/ui/time-off/days', {
      _csrf: s.csrf,
      resource_id: 'res_stylist_ava',
      from: day(3),
      to: day(4),
      reason: 'Wedding',
    });
    expect(res.headers.get('location')).toMatch(/ok=time_off_added/);
    // One day: the last day left empty.
    await s.post('/admin/ui/time-off/days', { _csrf: s.csrf, resource_id: 'res_stylist_ben', from: day(6) });
    const changes = (await t.call('GET', '/admin/schedule-changes', undefined, { apiKey: ADMIN_KEY, profile: null }))
      .body.changes as any[];
    const ava = changes.find((ch) => ch.resource_id === 'res_stylist_ava');
    const ben = changes.find((ch) => ch.resource_id === 'res_stylist_ben');
    expect(Date.parse(ava.start)).toBe(localToUtcMs(day(3), '00:00', ZONE));
    expect(Date.parse(ava.end)).toBe(localToUtcMs(day(5), '00:00', ZONE));
    expect(Date.parse(ben.start)).toBe(localToUtcMs(day(6), '00:00', ZONE));
    expect(Date.parse(ben.end)).toBe(localToUtcMs(day(7), '00:00', ZONE));
    // A date that does not exist is refused in words, nothing added.
    const bad = await s.post('/admin/ui/time-off/days', {
      _csrf: s.csrf,
      resource_id: 'res_stylist_ava',
      from: '2027-02-31',
    });
    expect(bad.headers.get('location')).toMatch(/error=/);
  });
});

describe('settings', () => {
  it('are labelled in plain words with a line of help each, for every setting the business file has', async () => {
    const page = await (await s.get('/admin/ui/business')).text();
    expect(page).toContain('How long a hold keeps a time (seconds)');
    expect(page).not.toContain('Hold ttl seconds');
    for (const f of settingsFields()) {
      const id = `set-${f.name.replaceAll('_', '-')}`;
      const label = new RegExp(`<label for="${id}">([^<]*)</label>`).exec(page)?.[1] ?? '';
      const hint = new RegExp(`<small id="${id}-hint" class="note">([^<]*)</small>`).exec(page)?.[1] ?? '';
      expect(label, f.name).not.toMatch(/_|ttl|^$/i);
      expect(label.toLowerCase(), f.name).not.toBe(f.name.replaceAll('_', ' '));
      expect(hint.trim().length, `${f.name} has help`).toBeGreaterThan(20);
    }
  });
});

describe('times in the business zone, the zone named', () => {
  /** "Tue 1 Dec 12:00" for an instant, in New York, as the dashboard writes it. */
  const nyWhen = (ms: number) =>
    `${new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, weekday: 'short', day: 'numeric', month: 'short' }).format(ms)} ${new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(ms)}`;

  it('the booking history lists each event at its New York time under a heading naming the zone, never as UTC text', async () => {
    const [slot] = (
      await t.call('POST', '/availability/query', { service_id: 'svc_haircut', start_date: day(2), end_date: day(2) })
    ).body.slots;
    const b = (await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER })).body
      .booking;
    const page = await (await s.get(`/admin/ui/bookings/${b.id}`)).text();
    const history = page.slice(page.indexOf('id="h">History'));
    expect(history).toContain(`<th>At (${ZONE})</th>`);
    const stamps = [...history.matchAll(/<time datetime="([^"]+)">([^<]+)<\/time>/g)];
    expect(stamps.length).toBeGreaterThan(0);
    for (const [, iso, shown] of stamps) expect(shown).toBe(nyWhen(Date.parse(iso)));
    // No bare UTC timestamp is shown as text.
    expect(history.replace(/datetime="[^"]+"/g, '')).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  });
});

describe('the webhook log', () => {
  it('shows each delivery at its New York time under a heading naming the zone', async () => {
    const w = await startWebhookServer();
    try {
      await addBusinessUser(w.server.store, EMAIL, PASSWORD, Date.now());
      const app = w.platform('salon-app', 'http://127.0.0.1:9/hooks');
      await book(w, app, 'svc_haircut', day(3));
      const ws = await signInDashboard(w.url, EMAIL, PASSWORD);
      const page = await (await ws.get('/admin/ui/webhooks')).text();
      expect(page).toContain(`<th>Created (${ZONE})</th>`);
      const log = page.slice(page.indexOf('Webhook deliveries'), page.indexOf('h-keys'));
      expect(log).toMatch(/<time datetime="[^"]+">/);
      expect(log.replace(/datetime="[^"]+"/g, '')).not.toMatch(/\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}/);
    } finally {
      await w.close();
    }
  });
});

describe('hours over a date range', () => {
  it('one form sets the same hours on every chosen weekday of a range; a date already set refuses the whole range', async () => {
    const form: Record<string, string> = {
      _csrf: s.csrf,
      resource_id: 'res_stylist_ava',
      date: day(7),
      until: day(13),
      opens: '10:00',
      closes: '14:00',
      reason: 'Short week',
    };
    for (const d of ['monday', 'tuesday', 'wednesday', 'thursday', 'friday']) form[`weekday_${d}`] = '1';
    const res = await s.post('/admin/ui/time-off/exception', form);
    expect(res.headers.get('location')).toMatch(/ok=hours_set/);
    const list = async () =>
      (
        (
          await t.call('GET', '/admin/schedule-changes?resource_id=res_stylist_ava', undefined, {
            apiKey: ADMIN_KEY,
            profile: null,
          })
        ).body.changes as any[]
      ).filter((c) => c.kind === 'exception');
    const set = await list();
    const weekdays = Array.from({ length: 7 }, (_, i) => day(7 + i)).filter(
      (d) => ![0, 6].includes(new Date(`${d}T00:00:00Z`).getUTCDay()),
    );
    expect(set.map((c) => c.date).sort()).toEqual(weekdays);
    expect(
      set.every((c) => c.hours.length === 1 && c.hours[0].opens === '10:00' && c.hours[0].closes === '14:00'),
    ).toBe(true);
    // Availability follows: on the first weekday Ava's slots are inside 10:00-14:00 only.
    const slots = (
      await t.call('POST', '/availability/query', {
        service_id: 'svc_haircut',
        start_date: weekdays[0],
        end_date: weekdays[0],
        resource_ids: ['res_stylist_ava'],
      })
    ).body.slots as any[];
    const ava = slots.filter((x) => (x.resources ?? []).some((r: any) => r.id === 'res_stylist_ava'));
    expect(ava.length).toBeGreaterThan(0);
    for (const x of ava) expect(x.start.slice(11, 16) >= '10:00' && x.end.slice(11, 16) <= '14:00').toBe(true);
    // Again over a range that overlaps: refused naming the date, nothing more set.
    const again = await s.post('/admin/ui/time-off/exception', { ...form, date: day(12), until: day(16) });
    expect(new URL(again.headers.get('location') ?? '', t.url).searchParams.get('detail')).toMatch(
      /already has an exception for \d{4}-\d{2}-\d{2}/,
    );
    expect(await list()).toHaveLength(weekdays.length);
  });
});
