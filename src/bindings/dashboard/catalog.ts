/**
 * The catalog screens: services (list, create from an existing one, change name, price and length,
 * archive), staff and other resources with their weekly hours (list, create, change), and locations
 * (list, create, rename). Every form runs the catalog's admin operations through the pipeline; what
 * they refuse (the business file's messages, one per field; bookings a change would strand) comes
 * back in the flash as the operation said it.
 */
import { majorAmount } from '../../operations/index.js';
import { html, readForm, type Html } from '../../web/index.js';
import type { DashboardApp, ScreenContext, Screens } from './kit.js';
import { minorFromForm } from './money.js';

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
/** Intervals a day's row offers (a split day: morning and afternoon). */
const SLOTS = [0, 1] as const;
const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
const minutesOf = (iso: string | undefined) => {
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?$/.exec(iso ?? '');
  return m ? Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0) : undefined;
};
type ServiceFacts = { name?: string; pricing?: { amount?: number }; duration?: { fixed?: string } };

/** What a saved service form changed, with the new values: "Saved Haircut: price $70.00 (was $65.00)." */
function savedService(s: Screens, before: ServiceFacts | undefined, after: ServiceFacts | undefined): string {
  if (!after) return 'Saved; platforms are told the catalog changed.';
  const changes: string[] = [];
  const price = (x: ServiceFacts | undefined) =>
    x?.pricing?.amount === undefined ? 'none' : s.money(x.pricing.amount);
  const length = (x: ServiceFacts | undefined) => `${minutesOf(x?.duration?.fixed) ?? '?'} minutes`;
  if (!before) changes.push(`price ${price(after)}`, ...(after.duration?.fixed ? [`length ${length(after)}`] : []));
  else {
    if (before.name !== after.name) changes.push(`name “${after.name}” (was “${before.name}”)`);
    if (before.pricing?.amount !== after.pricing?.amount) changes.push(`price ${price(after)} (was ${price(before)})`);
    if (before.duration?.fixed !== after.duration?.fixed)
      changes.push(`length ${length(after)} (was ${length(before)})`);
  }
  const what = before ? `Saved ${after.name}` : `Added ${after.name}`;
  return changes.length
    ? `${what}: ${changes.join(', ')}; platforms are told the catalog changed.`
    : `${what}: nothing changed.`;
}

type Hours = Partial<Record<(typeof DAYS)[number], Array<{ opens: string; closes: string }>>>;

/** The weekly hours grid of a form: two intervals a day, an empty pair is no interval. */
function hoursGrid(prefix: string, hours: Hours | undefined): Html {
  return html`<table class="list hours"><thead><tr><th>Day</th><th>Opens</th><th>Closes</th><th>Opens again</th><th>Closes</th></tr></thead><tbody>${DAYS.map(
    (d) =>
      html`<tr><td class="day">${d[0].toUpperCase()}${d.slice(1)}</td>${SLOTS.map((i) => {
        const iv = hours?.[d]?.[i];
        // data-col: the column's heading, shown in the cell on a phone, where the table's head is hidden.
        return html`<td data-col="${i ? 'Opens again' : 'Opens'}"><input type="time" aria-label="${d} opens ${i + 1}" name="${prefix}${d}_opens_${i}" value="${iv?.opens ?? ''}"></td><td data-col="Closes"><input type="time" aria-label="${d} closes ${i + 1}" name="${prefix}${d}_closes_${i}" value="${iv?.closes ?? ''}"></td>`;
      })}</tr>`,
  )}</tbody></table>`;
}

function hoursFrom(form: Record<string, unknown>): Hours {
  const out: Hours = {};
  for (const d of DAYS) {
    out[d] = SLOTS.map((i) => ({
      opens: text(form[`${d}_opens_${i}`]),
      closes: text(form[`${d}_closes_${i}`]),
    })).filter((iv) => iv.opens || iv.closes);
  }
  return out;
}

/** The new-service form's fields kept when the save is refused. */
const TYPED_FIELDS = ['name', 'template', 'amount', 'minutes', 'id'] as const;

function mountServices(app: DashboardApp, s: Screens): void {
  app.get('/admin/ui/services', async (c) => {
    await s.refresh();
    // A refused new service comes back with what was typed (TYPED_FIELDS as `new_<field>`), so nothing is typed twice.
    const typed = (field: (typeof TYPED_FIELDS)[number]) => text(c.req.query(`new_${field}`)).slice(0, 200);
    const services = [...s.biz.services.values()];
    const rows = services.map((svc) => {
      const status = svc.status ?? 'active';
      return html`<section class="card" aria-labelledby="svc-${svc.id}"><h2 id="svc-${svc.id}">${svc.name} <span class="state s-${status}">${status}</span></h2>
<form class="stack" method="post" action="/admin/ui/services/${encodeURIComponent(svc.id)}">${s.csrfField(c)}
<label>Name<input name="name" required value="${svc.name}"></label>
<label>Price (${svc.pricing.currency}, e.g. ${s.money(svc.pricing.amount ?? 6500)})<input name="amount" inputmode="decimal" value="${svc.pricing.amount === undefined ? '' : majorAmount(svc.pricing.amount, svc.pricing.currency)}"></label>
${svc.duration.fixed ? html`<label>Length (minutes)<input name="minutes" inputmode="numeric" value="${minutesOf(svc.duration.fixed) ?? ''}"></label>` : ''}
<label><input type="checkbox" name="force" value="1"> Keep bookings this change would strand as booked</label>
<button class="primary" type="submit">Save ${svc.name}</button></form>
${status === 'archived' ? '' : html`<form class="inline" method="post" action="/admin/ui/services/${encodeURIComponent(svc.id)}/archive">${s.csrfField(c)}<button class="danger" type="submit">Archive ${svc.name}</button></form>`}</section>`;
    });
    return s.view(
      c,
      'Services',
      '/admin/ui/services',
      html`<h1>Services</h1>${s.flash(c)}<section class="card" aria-labelledby="h-new"><h2 id="h-new">New service</h2><form class="stack" id="service-new" method="post" action="/admin/ui/services">${s.csrfField(c)}
<label>Name<input name="name" required value="${typed('name')}"></label>
<label>Like (policies, staff and locations copied from)<select name="template">${services.map((svc) => html`<option value="${svc.id}" ${svc.id === typed('template') ? 'selected' : ''}>${svc.name}</option>`)}</select></label>
<label>Price (${s.currency}, e.g. ${s.money(6500)})<input name="amount" inputmode="decimal" value="${typed('amount')}"></label><label>Length (minutes)<input name="minutes" inputmode="numeric" value="${typed('minutes')}"></label>
<label>Id (optional: made from the name when empty, e.g. svc_deep_tissue_massage)<input name="id" maxlength="128" value="${typed('id')}"></label>
<button class="primary" type="submit">Add the service</button></form></section>${rows}`,
    );
  });
  app.post('/admin/ui/services', async (c) => {
    const form = await readForm(c);
    const template = s.biz.services.get(text(form.template)) ?? [...s.biz.services.values()][0];
    const { handle: _handle, url: _url, id: _id, ...copy } = structuredClone(template);
    const input: Record<string, unknown> = { ...copy, name: text(form.name), status: 'active' };
    if (text(form.id)) input.id = text(form.id);
    const kept = new URLSearchParams();
    for (const f of TYPED_FIELDS) if (text(form[f])) kept.set(`new_${f}`, text(form[f]).slice(0, 200));
    const again = `/admin/ui/services?${kept}`;
    const amount = minorFromForm(form.amount, copy.pricing.currency);
    if (typeof amount === 'object') return s.refuse(c, again, `Price: ${amount.refused}`);
    if (amount !== undefined) input.pricing = { ...copy.pricing, amount };
    if (text(form.minutes) && copy.duration.fixed)
      input.duration = { ...copy.duration, fixed: `PT${text(form.minutes)}M` };
    const res = await s.run(c, 'service_create', input);
    return s.back(
      c,
      res.ok ? '/admin/ui/services' : again,
      res,
      'saved',
      res.ok ? savedService(s, undefined, res.data.service as ServiceFacts | undefined) : undefined,
    );
  });
  app.post('/admin/ui/services/:id', async (c) => {
    const form = await readForm(c);
    await s.refresh();
    const before = s.biz.services.get(c.req.param('id'));
    const input: Record<string, unknown> = { service_id: c.req.param('id'), name: text(form.name) };
    const amount = minorFromForm(form.amount, before?.pricing.currency ?? s.currency);
    if (typeof amount === 'object')
      return s.refuse(c, '/admin/ui/services', `Price of ${before?.name ?? 'the service'}: ${amount.refused}`);
    if (amount !== undefined) input.pricing = { amount };
    if (text(form.minutes)) input.duration = { fixed: `PT${text(form.minutes)}M` };
    if (form.force === '1') input.force = true;
    const res = await s.run(c, 'service_update', input);
    return s.back(
      c,
      '/admin/ui/services',
      res,
      'saved',
      res.ok ? savedService(s, before, res.data.service as ServiceFacts | undefined) : undefined,
    );
  });
  app.post('/admin/ui/services/:id/archive', async (c) =>
    s.back(c, '/admin/ui/services', await s.run(c, 'service_archive', { service_id: c.req.param('id') }), 'archived'),
  );
}

function locationSelect(s: Screens, current?: string): Html {
  return html`<select name="location_id"><option value="">(none)</option>${s.biz.def.business.locations.map(
    (l) => html`<option value="${l.id}"${l.id === current ? html` selected` : ''}>${l.name}</option>`,
  )}</select>`;
}

function mountStaff(app: DashboardApp, s: Screens): void {
  app.get('/admin/ui/staff', async (c: ScreenContext) => {
    await s.refresh();
    const cards = [...s.biz.resources.values()].map(
      (
        r,
      ) => html`<section class="card" aria-labelledby="res-${r.id}"><h2 id="res-${r.id}">${r.name} <span class="note">${r.type}</span></h2>
<form class="stack" method="post" action="/admin/ui/staff/${encodeURIComponent(r.id)}">${s.csrfField(c)}
<label>Name<input name="name" required value="${r.name}"></label><label>Location${locationSelect(s, r.location_id)}</label>
${hoursGrid('', r.schedule)}
<label><input type="checkbox" name="force" value="1"> Keep bookings these hours would strand as booked</label>
<button class="primary" type="submit">Save ${r.name}</button></form><p><a href="/admin/ui/staff/${encodeURIComponent(r.id)}/calendars">Calendars</a></p></section>`,
    );
    return s.view(
      c,
      'Staff & hours',
      '/admin/ui/staff',
      html`<h1>Staff &amp; hours</h1>${s.flash(c)}<p class="note">Weekly hours in ${s.zone}; leave a day empty to close it. For one date, use Time off &amp; hours.</p>
<section class="card" aria-labelledby="h-new-res"><h2 id="h-new-res">New staff member or resource</h2><form class="stack" id="resource-new" method="post" action="/admin/ui/staff">${s.csrfField(c)}
<label>Id<input name="id" required maxlength="128"></label><label>Name<input name="name" required></label>
<label>Kind<select name="type"><option value="staff">staff</option><option value="room">room</option><option value="equipment">equipment</option></select></label>
<label>Location${locationSelect(s)}</label>${hoursGrid('', undefined)}<button class="primary" type="submit">Add</button></form></section>${cards}`,
    );
  });
  app.post('/admin/ui/staff', async (c) => {
    const form = await readForm(c);
    const input: Record<string, unknown> = {
      id: text(form.id),
      name: text(form.name),
      type: text(form.type),
      schedule: hoursFrom(form),
    };
    if (text(form.location_id)) input.location_id = text(form.location_id);
    return s.back(c, '/admin/ui/staff', await s.run(c, 'resource_create', input), 'saved');
  });
  app.post('/admin/ui/staff/:id', async (c) => {
    const form = await readForm(c);
    const input: Record<string, unknown> = {
      resource_id: c.req.param('id'),
      name: text(form.name),
      schedule: hoursFrom(form),
      location_id: text(form.location_id) || null,
    };
    if (form.force === '1') input.force = true;
    return s.back(c, '/admin/ui/staff', await s.run(c, 'resource_update', input), 'saved');
  });
}

function mountLocations(app: DashboardApp, s: Screens): void {
  app.get('/admin/ui/locations', async (c) => {
    await s.refresh();
    const cards = s.biz.def.business.locations.map(
      (
        l,
      ) => html`<section class="card" aria-labelledby="loc-${l.id}"><h2 id="loc-${l.id}">${l.name}</h2><form class="stack" method="post" action="/admin/ui/locations/${encodeURIComponent(l.id)}">${s.csrfField(c)}
<label>Name<input name="name" required value="${l.name}"></label><label>Address<input name="address" value="${l.address ?? ''}"></label><button class="primary" type="submit">Save ${l.name}</button></form></section>`,
    );
    return s.view(
      c,
      'Locations',
      '/admin/ui/locations',
      html`<h1>Locations</h1>${s.flash(c)}<section class="card" aria-labelledby="h-new-loc"><h2 id="h-new-loc">New location</h2><form class="stack" id="location-new" method="post" action="/admin/ui/locations">${s.csrfField(c)}
<label>Id<input name="id" required maxlength="128"></label><label>Name<input name="name" required></label><label>Address<input name="address"></label><button class="primary" type="submit">Add the location</button></form></section>${cards}`,
    );
  });
  app.post('/admin/ui/locations', async (c) => {
    const form = await readForm(c);
    const input: Record<string, unknown> = { id: text(form.id), name: text(form.name) };
    if (text(form.address)) input.address = text(form.address);
    return s.back(c, '/admin/ui/locations', await s.run(c, 'location_create', input), 'saved');
  });
  app.post('/admin/ui/locations/:id', async (c) => {
    const form = await readForm(c);
    return s.back(
      c,
      '/admin/ui/locations',
      await s.run(c, 'location_update', {
        location_id: c.req.param('id'),
        name: text(form.name),
        address: text(form.address) || null,
      }),
      'saved',
    );
  });
}

/** The services, staff and hours, and locations screens. */
export function mountCatalog(app: DashboardApp, s: Screens): void {
  mountServices(app, s);
  mountStaff(app, s);
  mountLocations(app, s);
}
