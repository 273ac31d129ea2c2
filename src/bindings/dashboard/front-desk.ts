/**
 * The front desk's screens: a walk-in or phone booking (a free time of the day, or, when the
 * business chooses, any time over the normal rules), and clients (their bookings by email or
 * phone, the private note, and their data exported as a JSON file or erased). Every action is a
 * form carrying the session's CSRF token, run through the pipeline like the other screens.
 */
import type { Pipeline } from '../../operations/index.js';
import { escapeHtml as esc, pageHeaders, raw, readForm } from '../../web/index.js';
import type { DashboardApp, Screens, ScreenContext } from './kit.js';

type Result = Awaited<ReturnType<Pipeline['execute']>>;

const str = (v: unknown, max = 2000) => (typeof v === 'string' ? v.trim().slice(0, max) : '');

export function mountFrontDesk(app: DashboardApp, s: Screens): void {
  const { run, back } = s;
  // These screens are built as strings with the kit's one escaping, and handed to the layout as markup.
  const view = (c: ScreenContext, title: string, current: string, main: string, status?: number) =>
    s.view(c, title, current, raw(main), status);
  const csrfField = (c: ScreenContext) => s.csrfField(c).toString();
  const flash = (c: ScreenContext) => s.flash(c).toString();
  // The request's business (its latest snapshot): its zone, its bookable services, its staff.
  const timeFmt = { format: (ms: number) => s.timeFmt.format(ms) };
  const dayFmts = new Map<string, Intl.DateTimeFormat>();
  const dayFmt = {
    format: (ms: number) => {
      let f = dayFmts.get(s.zone);
      if (!f)
        dayFmts.set(
          s.zone,
          (f = new Intl.DateTimeFormat('en-GB', {
            timeZone: s.zone,
            weekday: 'short',
            day: 'numeric',
            month: 'short',
            year: 'numeric',
          })),
        );
      return f.format(ms);
    },
  };
  const dateKey = { format: (ms: number) => s.dateKey.format(ms) };
  const services = () => [...s.biz.services.values()].filter((v) => s.biz.published.get(v.id)?.status === 'active');
  const staff = () => [...s.biz.resources.values()].filter((r) => r.type === 'staff');
  const opt = (v: string, label: string, cur: string) =>
    `<option value="${esc(v)}"${v === cur ? ' selected' : ''}>${esc(label)}</option>`;
  const problemOf = (res: Result) =>
    !res.ok ? res.error.message : res.messages.find((m) => m.type === 'error')?.content;

  const personFields = `<label>First name<input name="first_name" required maxlength="200" autocomplete="off"></label>
<label>Last name<input name="last_name" maxlength="200" autocomplete="off"></label>
<label>Email<input type="email" name="email" maxlength="320" autocomplete="off"></label>
<label>Phone<input type="tel" name="phone_number" maxlength="50" autocomplete="off"></label>
<label>Notes<input name="notes" maxlength="2000" autocomplete="off"></label>`;

  // ---- walk-in and phone bookings -----------------------------------------------------------
  app.get('/admin/ui/walk-in', async (c) => {
    const q = c.req.query();
    const serviceId = services().some((s) => s.id === q.service_id) ? q.service_id : (services()[0]?.id ?? '');
    const date = q.date && /^\d{4}-\d{2}-\d{2}$/.test(q.date) ? q.date : dateKey.format(Date.now());
    const who = staff().some((r) => r.id === q.staff) ? q.staff : '';
    const input: Record<string, unknown> = { service_id: serviceId, start_date: date, end_date: date };
    if (who) input.resource_id = who;
    const free = serviceId ? await run(c, 'free_slots', input) : null;
    const slots = free?.ok ? (free.data.slots as any[]).filter((x) => x.state !== 'waitlist') : [];
    const problem = free ? problemOf(free) : 'No service can be booked.';
    // Grouped by part of the day, each time a small button, after the person: on a phone the name comes first, not 87 buttons.
    const parts = [
      { label: 'Morning', until: 12 },
      { label: 'Afternoon', until: 17 },
      { label: 'Evening', until: 24 },
    ];
    const partOf = (x: { start: string }) =>
      parts.findIndex((p) => Number(timeFmt.format(Date.parse(x.start)).slice(0, 2)) < p.until);
    const choice = (x: any, first: boolean) => {
      const names = ((x.resources as any[]) ?? []).map((r) => r.name).join(', ');
      const end = `<span class="sr-only">–${esc(timeFmt.format(Date.parse(x.end)))}</span>`;
      return `<label><input type="radio" name="slot_id" value="${esc(x.id)}"${first ? ' required' : ''}>${esc(timeFmt.format(Date.parse(x.start)))}${end}${names ? ` <small>${esc(names)}</small>` : ''}</label>`;
    };
    const choices = parts
      .map((p, i) => {
        const inPart = slots.filter((x) => partOf(x) === i);
        if (!inPart.length) return '';
        return `<fieldset class="slots"><legend>${esc(p.label)} <span class="note">(${inPart.length})</span></legend>${inPart.map((x) => choice(x, x === slots[0])).join('')}</fieldset>`;
      })
      .join('');
    const hidden = `<input type="hidden" name="service_id" value="${esc(serviceId)}">`;
    const freeForm = problem
      ? `<p class="flash bad" role="alert">${esc(problem)}</p>`
      : choices
        ? `<form method="post" action="/admin/ui/walk-in">${csrfField(c)}${hidden}<div class="stack">${personFields}</div>
<div class="times" role="group" aria-labelledby="free-day"><h3 id="free-day">Free times on ${esc(dayFmt.format(Date.parse(`${date}T12:00:00Z`)))} (${esc(s.zone)})</h3>${choices}</div>
<p class="actions"><button class="primary" type="submit">Book this time</button></p></form>`
        : '<p class="note">No free time that day; pick another day, or book over the rules below.</p>';
    const overForm = `<form method="post" action="/admin/ui/walk-in">${csrfField(c)}${hidden}<input type="hidden" name="override_rules" value="on">
<div class="stack"><label>Start (${esc(s.zone)})<input type="datetime-local" name="start" required value="${esc(date)}T09:00"></label>
<label>With<select name="resource_id">${opt('', 'Whoever delivers it', who)}${staff()
      .map((r) => opt(r.id, r.name, who))
      .join('')}</select></label>${personFields}</div>
<p class="actions"><button class="danger" type="submit">Book over the rules</button></p>
<p class="note">Outside opening hours, the booking window or the notice period. A staff member or room already booked then is never double-booked.</p></form>`;
    return view(
      c,
      'Walk-in booking',
      '/admin/ui/walk-in',
      `<h1>Walk-in or phone booking</h1>${flash(c)}<section class="card" aria-labelledby="wf"><h2 id="wf">Find a free time</h2>
<form class="filters" method="get" action="/admin/ui/walk-in"><label>Service<select name="service_id">${services()
        .map((s) => opt(s.id, s.name, serviceId))
        .join('')}</select></label>
<label>Date<input type="date" name="date" value="${esc(date)}" required></label>
<label>With<select name="staff">${opt('', 'Anyone', who)}${staff()
        .map((r) => opt(r.id, r.name, who))
        .join('')}</select></label><button type="submit">Show free times</button></form>
${freeForm}</section><section class="card" aria-labelledby="wo"><h2 id="wo">Over the normal rules</h2>${overForm}</section>`,
    );
  });

  app.post('/admin/ui/walk-in', async (c) => {
    const f = await readForm(c);
    const buyer: Record<string, unknown> = { first_name: str(f.first_name, 200) };
    for (const key of ['last_name', 'email', 'phone_number'] as const) if (str(f[key])) buyer[key] = str(f[key], 320);
    const input: Record<string, unknown> = { service_id: str(f.service_id, 512), buyer };
    if (str(f.notes)) input.notes = str(f.notes);
    if (str(f.slot_id)) input.slot_id = str(f.slot_id, 512);
    if (f.override_rules === 'on') {
      input.override_rules = true;
      if (str(f.start)) input.start = str(f.start, 40);
      if (str(f.resource_id)) input.resource_id = str(f.resource_id, 512);
    }
    const res = await run(c, 'walk_in', input);
    const booking = res.ok && !problemOf(res) ? (res.data.booking as { id: string }) : undefined;
    const to = booking
      ? `/admin/ui/bookings/${encodeURIComponent(booking.id)}`
      : `/admin/ui/walk-in?service_id=${encodeURIComponent(String(input.service_id))}`;
    return back(c, to, res, 'walk_in_booked');
  });

  // ---- clients: history, the private note, their data ---------------------------------------
  const clientQuery = (email: string, phone: string) => {
    const p = new URLSearchParams();
    if (email) p.set('email', email);
    if (phone) p.set('phone', phone);
    return p.toString();
  };
  const personHidden = (email: string, phone: string) =>
    `${email ? `<input type="hidden" name="email" value="${esc(email)}">` : ''}${phone ? `<input type="hidden" name="phone" value="${esc(phone)}">` : ''}`;

  app.get('/admin/ui/clients', async (c) => {
    const email = str(c.req.query('email'), 320);
    const phone = str(c.req.query('phone'), 50);
    const name = str(c.req.query('name'), 100);
    const search = `<form class="filters" method="get" action="/admin/ui/clients"><label>Name<input type="search" name="name" value="${esc(name)}" autocomplete="off"></label>
<label>Email<input type="email" name="email" value="${esc(email)}"></label>
<label>Phone<input type="tel" name="phone" value="${esc(phone)}"></label><button type="submit">Find</button></form>`;
    let body =
      '<p class="note">Find a client by name, email or phone: their bookings from every platform and the desk, and your note about them.</p>';
    if (name && !email && !phone) {
      const res = await run(c, 'clients_by_name', { name });
      const problem = problemOf(res);
      if (problem || !res.ok)
        body = `<p class="flash bad" role="alert">${esc(problem ?? 'That search could not be run.')}</p>`;
      else {
        const rows = (res.data.clients as any[])
          .map(
            (p) =>
              `<tr><td data-col="Name"><a href="/admin/ui/clients?${esc(clientQuery(p.email, ''))}">${esc(`${p.first_name} ${p.last_name}`)}</a></td><td data-col="Email">${esc(p.email)}</td><td data-col="Phone">${esc(p.phone_number ?? '')}</td><td data-col="Bookings">${esc(String(p.bookings))}</td><td data-col="Latest">${esc(dayFmt.format(Date.parse(p.latest_start)))}</td></tr>`,
          )
          .join('');
        body = `<section class="card" aria-labelledby="cm"><h2 id="cm">Clients named like “${esc(name)}”</h2>${
          rows
            ? `<table class="list"><thead><tr><th>Name</th><th>Email</th><th>Phone</th><th>Bookings</th><th>Latest</th></tr></thead><tbody>${rows}</tbody></table>`
            : '<p class="note">No client has that in their name. Try part of the first or last name, or their email or phone.</p>'
        }</section>`;
      }
    } else if (email || phone) {
      const res = await run(c, 'client', email ? { email, ...(phone ? { phone } : {}) } : { phone });
      const problem = problemOf(res);
      if (problem || !res.ok) {
        body = `<p class="flash bad" role="alert">${esc(problem ?? 'That search could not be run.')}</p>`;
      } else {
        const rows = (res.data.bookings as any[])
          .map(
            (
              r,
            ) => `<tr><td data-col="When">${esc(dayFmt.format(r.start_ms))} ${esc(timeFmt.format(r.start_ms))}</td><td data-col="Service"><a href="/admin/ui/bookings/${encodeURIComponent(r.booking.id)}">${esc(r.booking.service_name)}</a></td>
<td data-col="Name">${esc(`${r.booking.buyer.first_name} ${r.booking.buyer.last_name}`)}</td><td data-col="Status"><span class="state s-${esc(r.booking.status)}">${esc(String(r.booking.status).replace('_', ' '))}</span></td></tr>`,
          )
          .join('');
        const note = res.data.note as { note: string; updated_at: string; updated_by: string } | null;
        const q = clientQuery(email, phone);
        body = `<section class="card" aria-labelledby="ch"><h2 id="ch">Bookings</h2>${
          rows
            ? `<table class="list"><thead><tr><th>When</th><th>Service</th><th>Name</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table>`
            : '<p class="note">No bookings for this client.</p>'
        }</section>
<section class="card" aria-labelledby="cn"><h2 id="cn">Private note</h2><form class="stack" method="post" action="/admin/ui/clients/note?${esc(q)}">${csrfField(c)}${personHidden(email, phone)}
<label>Only the business sees this note<textarea name="note" rows="3" cols="40" maxlength="5000">${esc(note?.note ?? '')}</textarea></label><button class="primary" type="submit">Save note</button></form>
${note ? `<p class="note">Last changed ${esc(Number.isFinite(Date.parse(note.updated_at)) ? `${s.when(Date.parse(note.updated_at))} (${s.zone})` : note.updated_at)} by ${esc(note.updated_by.replace(/^user:/, ''))}.</p>` : ''}</section>
<section class="card" aria-labelledby="cd"><h2 id="cd">Their data</h2><form class="inline" method="post" action="/admin/ui/clients/export">${csrfField(c)}${personHidden(email, phone)}<button type="submit">Download everything stored (JSON)</button></form>
<form class="stack" method="post" action="/admin/ui/clients/erase?${esc(q)}">${csrfField(c)}${personHidden(email, phone)}
<label class="check"><span><input type="checkbox" name="confirm" value="yes" required> Erase this person's data everywhere: bookings keep their times and money, the buyer shows as erased, their account ends. This cannot be undone.</span></label>
<button class="danger" type="submit">Erase their data</button></form></section>`;
      }
    }
    return view(
      c,
      'Clients',
      '/admin/ui/clients',
      `<h1>Clients</h1>${flash(c)}<div class="card">${search}</div>${body}`,
    );
  });

  const personFrom = (f: Record<string, unknown>) => {
    const input: Record<string, unknown> = {};
    if (str(f.email, 320)) input.email = str(f.email, 320);
    if (str(f.phone, 50)) input.phone = str(f.phone, 50);
    return input;
  };
  app.post('/admin/ui/clients/note', async (c) => {
    const f = await readForm(c);
    const person = personFrom(f);
    const res = await run(c, 'client_note', {
      ...person,
      note: typeof f.note === 'string' ? f.note.slice(0, 5000) : '',
    });
    return back(
      c,
      `/admin/ui/clients?${clientQuery(String(person.email ?? ''), String(person.phone ?? ''))}`,
      res,
      'note_saved',
    );
  });
  app.post('/admin/ui/clients/export', async (c) => {
    const res = await run(c, 'buyer_export', personFrom(await readForm(c)));
    if (!res.ok || problemOf(res)) return back(c, '/admin/ui/clients', res, 'note_saved');
    const headers = new Headers(pageHeaders());
    headers.set('Content-Type', 'application/json; charset=utf-8');
    headers.set('Content-Disposition', 'attachment; filename="buyer-data.json"');
    return new Response(JSON.stringify(res.data.export, null, 2), { status: 200, headers });
  });
  app.post('/admin/ui/clients/erase', async (c) => {
    const f = await readForm(c);
    const person = personFrom(f);
    const back_to = `/admin/ui/clients?${clientQuery(String(person.email ?? ''), String(person.phone ?? ''))}`;
    if (f.confirm !== 'yes')
      return new Response(null, { status: 303, headers: { Location: `${back_to}&error=confirm_erase` } });
    return back(c, '/admin/ui/clients', await run(c, 'buyer_erase', person), 'buyer_erased');
  });
}
