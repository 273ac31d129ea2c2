/**
 * The business's own screens: its details (name, time zone, currency, locale) and its settings, and
 * the categories its services carry. The settings form is built from the settings' schema (one field
 * per member, an empty field giving the default back), so a new setting has its field here without an
 * edit. Every form runs its admin operation through the pipeline; what the operation refuses (the
 * business file's messages, one per field, naming it) comes back in the flash as it said it.
 */
import { settingsFields, type SettingField } from '../../operations/index.js';
import { html, readForm, type Html } from '../../web/index.js';
import type { DashboardApp, ScreenContext, Screens } from './kit.js';
import { SETTING_WORDS } from './setting-words.js';

type Json = Record<string, unknown>;
const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
const fieldId = (name: string) => `set-${name.replaceAll('_', '-')}`;
const words = (name: string) => name.replaceAll('_', ' ').replace(/^./, (ch) => ch.toUpperCase());

/** One setting's field, showing the stored value (or the default, named in the hint). */
function settingField(f: SettingField, value: unknown): Html {
  const id = fieldId(f.name);
  const said = SETTING_WORDS[f.name];
  const hint = html`<small id="${id}-hint" class="note">${said?.help ?? f.description}${f.default !== undefined ? ` Default: ${JSON.stringify(f.default)}.` : ''}</small>`;
  const label = html`<label for="${id}">${said?.label ?? words(f.name)}</label>`;
  const shown = value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (f.kind === 'boolean' || f.kind === 'choice') {
    const options = f.kind === 'boolean' ? ['true', 'false'] : (f.choices ?? []);
    return html`<div class="field">${label}<select id="${id}" name="${f.name}" aria-describedby="${id}-hint"><option value="">(default)</option>${options.map(
      (o) => html`<option value="${o}"${o === shown ? html` selected` : ''}>${o}</option>`,
    )}</select>${hint}</div>`;
  }
  if (f.kind === 'json') {
    return html`<div class="field">${label}<textarea id="${id}" name="${f.name}" rows="3" aria-describedby="${id}-hint">${shown}</textarea>${hint}</div>`;
  }
  return html`<div class="field">${label}<input id="${id}" name="${f.name}" value="${shown}"${f.kind === 'integer' ? html` inputmode="numeric"` : ''} aria-describedby="${id}-hint">${hint}</div>`;
}

/** A setting as the form sent it: empty gives the default back (null); numbers and JSON as typed, else the text (the operation names the field). */
function settingValue(f: SettingField, raw: unknown): unknown {
  const v = text(raw);
  if (v === '') return null;
  if (f.kind === 'integer') return Number.isFinite(Number(v)) ? Number(v) : v;
  if (f.kind === 'boolean') return v === 'true' ? true : v === 'false' ? false : v;
  if (f.kind === 'json') {
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }
  return v;
}

function mountDetails(app: DashboardApp, s: Screens): void {
  app.get('/admin/ui/business', async (c) => {
    await s.refresh();
    const b = s.biz.def.business;
    const settings = s.biz.def.settings as Json;
    return s.view(
      c,
      'Business & settings',
      '/admin/ui/business',
      html`<h1>Business &amp; settings</h1>${s.flash(c)}
<section class="card" aria-labelledby="h-details"><h2 id="h-details">Details</h2><form class="stack" id="business" method="post" action="/admin/ui/business">${s.csrfField(c)}
<label>Name<input name="name" required value="${b.name}"></label>
<label>Time zone (IANA, e.g. America/New_York)<input name="timezone" required value="${b.timezone}"></label>
<label>Currency (ISO 4217; every service is re-priced in it)<input name="currency" required maxlength="3" value="${b.currency}"></label>
<label>Language of the buyer pages (BCP 47)<input name="locale" value="${b.locale ?? ''}"></label>
<label><input type="checkbox" name="force" value="1"> Keep bookings a new time zone would strand as booked</label>
<button class="primary" type="submit">Save the details</button></form></section>
<section class="card" aria-labelledby="h-settings"><h2 id="h-settings">Settings</h2><p class="note">Leave a field empty for its default.</p>
<form class="stack settings" id="settings" method="post" action="/admin/ui/settings">${s.csrfField(c)}${settingsFields().map((f) => settingField(f, settings[f.name]))}
<button class="primary" type="submit">Save the settings</button></form></section>`,
    );
  });
  app.post('/admin/ui/business', async (c) => {
    const form = await readForm(c);
    const input: Json = {
      name: text(form.name),
      timezone: text(form.timezone),
      currency: text(form.currency),
      locale: text(form.locale) || null,
    };
    if (form.force === '1') input.force = true;
    return s.back(c, '/admin/ui/business', await s.run(c, 'business_update', input), 'saved');
  });
  app.post('/admin/ui/settings', async (c) => {
    const form = await readForm(c);
    const input = Object.fromEntries(settingsFields().map((f) => [f.name, settingValue(f, form[f.name])]));
    return s.back(c, '/admin/ui/business', await s.run(c, 'settings_update', input), 'saved');
  });
}

/** The services as checkboxes, `on` ticked (one field each, `service:<id>`: a form body keeps one value per name). */
function serviceChoices(s: Screens, legend: string, on: readonly string[]): Html {
  return html`<fieldset class="choices"><legend>${legend}</legend>${[...s.biz.services.values()].map(
    (svc) =>
      html`<label><input type="checkbox" name="service:${svc.id}" value="1"${on.includes(svc.id) ? html` checked` : ''}> ${svc.name}</label>`,
  )}</fieldset>`;
}

const ticked = (form: Json): string[] =>
  Object.keys(form)
    .filter((k) => k.startsWith('service:') && form[k] === '1')
    .map((k) => k.slice('service:'.length));

function mountCategories(app: DashboardApp, s: Screens): void {
  app.get('/admin/ui/categories', async (c: ScreenContext) => {
    const res = await s.run(c, 'categories', {});
    const categories = (res.ok ? (res.data.categories as Json[]) : []).filter((k) => k.taxonomy === 'merchant');
    const cards = categories.map((k) => {
      const id = String(k.id);
      const at = `/admin/ui/categories/${encodeURIComponent(id)}`;
      return html`<section class="card" aria-labelledby="cat-${id}"><h2 id="cat-${id}">${String(k.name ?? id)} <span class="note">${id}</span></h2>
<form class="stack" method="post" action="${at}">${s.csrfField(c)}
<label>Name<input name="name" value="${String(k.name ?? '')}"></label><label>Parent category id<input name="parent_id" value="${String(k.parent_id ?? '')}"></label>
${serviceChoices(s, `Services in ${String(k.name ?? id)}`, (k.service_ids as string[]) ?? [])}
<button class="primary" type="submit">Save ${String(k.name ?? id)}</button></form>
<form class="inline" method="post" action="${at}/delete">${s.csrfField(c)}<button class="danger" type="submit">Remove ${String(k.name ?? id)} from every service</button></form></section>`;
    });
    return s.view(
      c,
      'Categories',
      '/admin/ui/categories',
      html`<h1>Categories</h1>${s.flash(c)}${res.ok ? '' : html`<p class="flash bad" role="alert">${res.error.message}</p>`}<p class="note">The business's own categories, as its services carry them.</p>
<section class="card" aria-labelledby="h-new-cat"><h2 id="h-new-cat">New category</h2><form class="stack" id="category-new" method="post" action="/admin/ui/categories">${s.csrfField(c)}
<label>Id<input name="id" required maxlength="128"></label><label>Name<input name="name" required></label><label>Parent category id<input name="parent_id"></label>
${serviceChoices(s, 'Services in the new category', [])}<button class="primary" type="submit">Add the category</button></form></section>${cards}`,
    );
  });
  app.post('/admin/ui/categories', async (c) => {
    const form = await readForm(c);
    const input: Json = { id: text(form.id), name: text(form.name), service_ids: ticked(form) };
    if (text(form.parent_id)) input.parent_id = text(form.parent_id);
    return s.back(c, '/admin/ui/categories', await s.run(c, 'category_create', input), 'saved');
  });
  app.post('/admin/ui/categories/:id', async (c) => {
    const form = await readForm(c);
    const input = {
      category_id: c.req.param('id'),
      name: text(form.name) || null,
      parent_id: text(form.parent_id) || null,
      service_ids: ticked(form),
    };
    return s.back(c, '/admin/ui/categories', await s.run(c, 'category_update', input), 'saved');
  });
  app.post('/admin/ui/categories/:id/delete', async (c) =>
    s.back(c, '/admin/ui/categories', await s.run(c, 'category_delete', { category_id: c.req.param('id') }), 'removed'),
  );
}

/** The business's details and settings, and its categories. */
export function mountBusiness(app: DashboardApp, s: Screens): void {
  mountDetails(app, s);
  mountCategories(app, s);
}
