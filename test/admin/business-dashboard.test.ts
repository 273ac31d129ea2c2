/**
 * The dashboard's screens for the business's details, its settings and its categories, over plain
 * HTTP: each form runs its admin operation (the change is in the stored definition), a refused form
 * shows the business file's message naming the field, a form without the session's CSRF token changes
 * nothing, and the settings form has one field per member of the settings' schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBusinessUser, settingsFields } from '../../src/operations/index.js';
import { signInDashboard, type DashboardClient } from '../support/dashboard-session.js';
import { demoBusiness, startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
let d: DashboardClient;
beforeAll(async () => {
  t = await startTestServer();
  await addBusinessUser(t.server.store, 'owner@salon.example', 'correct horse battery staple', t.clock.now());
  d = await signInDashboard(t.url, 'owner@salon.example', 'correct horse battery staple');
});
afterAll(async () => {
  await t?.close();
});

/** Post a form and follow its redirect: the page it lands on. */
async function submit(path: string, form: Record<string, string>): Promise<string> {
  const res = await d.post(path, { _csrf: d.csrf, ...form });
  expect(res.status).toBe(303);
  return (await d.get(res.headers.get('location')!)).text();
}
const details = (over: Record<string, string> = {}) => {
  const b = demoBusiness().business;
  return { name: b.name, timezone: b.timezone, currency: b.currency, locale: b.locale ?? '', ...over };
};

describe('the Business & settings screen', () => {
  it('has one field per setting of the schema, each showing its value', async () => {
    const page = await (await d.get('/admin/ui/business')).text();
    for (const f of settingsFields()) expect(page, f.name).toContain(`name="${f.name}"`);
    expect(page).toContain('value="600"');
  });

  it('a new name is saved, shown in the header, and in the stored definition', async () => {
    const page = await submit('/admin/ui/business', details({ name: 'Maple & Pine Uptown' }));
    expect(page).toContain('role="status"');
    expect(page).toContain('<span class="biz">Maple &amp; Pine Uptown</span>');
    expect(t.server.biz.def.business.name).toBe('Maple & Pine Uptown');
  });

  it("a time zone that is not one is refused with the file's message naming timezone", async () => {
    const page = await submit('/admin/ui/business', details({ timezone: 'Mars/Olympus' }));
    expect(page).toMatch(/role="alert">timezone: [^<]+/);
    expect(t.server.biz.def.business.timezone).toBe(demoBusiness().business.timezone);
  });

  it('settings are saved from the form; an empty field gives the default back; a bad value is named', async () => {
    const form = Object.fromEntries(settingsFields().map((f) => [f.name, '']));
    let page = await submit('/admin/ui/settings', { ...form, hold_ttl_seconds: '300', mail_reminders: 'false' });
    expect(page).toContain('role="status"');
    expect(t.server.biz.def.settings.hold_ttl_seconds).toBe(300);
    expect(t.server.biz.def.settings.mail_reminders).toBe(false);
    page = await submit('/admin/ui/settings', form);
    expect(t.server.biz.def.settings.hold_ttl_seconds).toBe(600);
    page = await submit('/admin/ui/settings', { ...form, max_query_days: '0' });
    expect(page).toMatch(/role="alert">max_query_days: [^<]+/);
  });

  it('a form without the session CSRF token is refused and changes nothing', async () => {
    const res = await d.post('/admin/ui/business', details({ name: 'Forged' }));
    expect(res.status).toBe(403);
    expect(t.server.biz.def.business.name).not.toBe('Forged');
  });
});

describe('the Categories screen', () => {
  it('a category is added to the services ticked, renamed, moved and removed', async () => {
    let page = await submit('/admin/ui/categories', { id: 'cat_kids', name: 'Kids', 'service:svc_haircut': '1' });
    expect(page).toContain('role="status"');
    expect(page).toContain('id="cat-cat_kids"');
    expect(t.server.biz.services.get('svc_haircut')!.categories).toContainEqual({
      taxonomy: 'merchant',
      id: 'cat_kids',
      name: 'Kids',
    });
    page = await submit('/admin/ui/categories/cat_kids', {
      name: 'Children',
      parent_id: '',
      'service:svc_color_consult': '1',
    });
    expect(t.server.biz.services.get('svc_color_consult')!.categories).toContainEqual({
      taxonomy: 'merchant',
      id: 'cat_kids',
      name: 'Children',
    });
    expect((t.server.biz.services.get('svc_haircut')!.categories ?? []).some((c) => c.id === 'cat_kids')).toBe(false);
    page = await submit('/admin/ui/categories/cat_kids/delete', {});
    expect(page).not.toContain('id="cat-cat_kids"');
  });

  it("a category for no service is refused with the operation's message naming service_ids", async () => {
    const page = await submit('/admin/ui/categories', { id: 'cat_none', name: 'None' });
    expect(page).toMatch(/role="alert">[^<]*service_ids/);
  });
});
