/**
 * A staff member's (or any resource's) calendars: the ones it is busy in, each kept or removed, and
 * one more added (an iCalendar address, or a CalDAV calendar with its user, the name of the
 * environment variable holding its password, and whether bookings are pushed to it). The form runs
 * the catalog's `update_resource` with the resource's whole `calendars` list, so every check is the
 * business file's (secrets by variable name only, the outbound rule on addresses) and its messages
 * come back in the flash.
 */
import { calendarSecretPrefix } from '../../operations/index.js';
import { html, readForm } from '../../web/index.js';
import type { DashboardApp, ScreenContext, Screens } from './kit.js';

type Calendar =
  | { type: 'ics'; url: string }
  | { type: 'caldav'; url: string; username: string; password_env: string; write?: boolean };

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

function describe(cal: Calendar): string {
  return cal.type === 'ics'
    ? `iCalendar ${cal.url}`
    : `CalDAV ${cal.url} as ${cal.username} (password in $${cal.password_env})${cal.write ? ', bookings pushed' : ''}`;
}

/** The calendars a submitted form keeps, plus the one it adds (when an address was given). */
export function calendarsFrom(form: Record<string, unknown>, current: readonly Calendar[]): Calendar[] {
  const kept = current.filter((_, i) => form[`keep_${i}`] === '1');
  const url = text(form.url);
  if (url === '') return kept;
  if (text(form.type) === 'caldav') {
    return [
      ...kept,
      {
        type: 'caldav',
        url,
        username: text(form.username),
        password_env: text(form.password_env),
        ...(form.write === '1' ? { write: true } : {}),
      },
    ];
  }
  return [...kept, { type: 'ics', url }];
}

export function mountResourceCalendars(app: DashboardApp, s: Screens): void {
  const path = (id: string) => `/admin/ui/staff/${encodeURIComponent(id)}/calendars`;
  const currentOf = (id: string) =>
    ((s.biz.def.resources.find((r) => r.id === id)?.calendars ?? []) as Calendar[]).slice();

  app.get('/admin/ui/staff/:id/calendars', async (c: ScreenContext) => {
    await s.refresh();
    const id = c.req.param('id') ?? '';
    const resource = s.biz.def.resources.find((r) => r.id === id);
    if (!resource)
      return s.view(
        c,
        'Calendars',
        '/admin/ui/staff',
        html`<h1>No such resource</h1><p><a href="/admin/ui/staff">Back to staff</a></p>`,
        404,
      );
    const current = currentOf(id);
    const prefix = calendarSecretPrefix(s.biz.def.business.id);
    const rows = current.map(
      (cal, i) =>
        html`<li><label><input type="checkbox" name="keep_${String(i)}" value="1" checked> ${describe(cal)}</label></li>`,
    );
    return s.view(
      c,
      `Calendars of ${resource.name}`,
      '/admin/ui/staff',
      html`<h1>Calendars of ${resource.name}</h1>${s.flash(c)}
<p class="note">Busy times in these calendars take ${resource.name}'s slots away (read every few minutes). Passwords are never typed here: name the environment variable of the server that holds it, one the operator set for this business's calendars (its name starts with ${prefix}).</p>
<form class="stack" id="calendars-form" method="post" action="${path(id)}">${s.csrfField(c)}
<section class="card" aria-labelledby="h-current"><h2 id="h-current">Calendars read now</h2>${
        rows.length
          ? html`<ul class="plain">${rows}</ul><p class="note">Untick a calendar to stop reading it; its busy times go at the next read.</p>`
          : html`<p class="note">None yet.</p>`
      }</section>
<section class="card" aria-labelledby="h-add"><h2 id="h-add">Add a calendar</h2>
<label>Kind<select name="type"><option value="ics">iCalendar address (Google, Outlook, Apple)</option><option value="caldav">CalDAV calendar</option></select></label>
<label>Address<input name="url" type="url" placeholder="https://calendar.google.com/calendar/ical/.../basic.ics" size="60"></label>
<label>CalDAV user<input name="username" autocomplete="off"></label>
<label>CalDAV password: environment variable<input name="password_env" pattern="${prefix}[A-Za-z0-9_]+" placeholder="${prefix}AVA" autocomplete="off"></label>
<label><input type="checkbox" name="write" value="1"> Put ${resource.name}'s bookings in this CalDAV calendar</label>
</section>
<button class="primary" type="submit">Save calendars</button></form>
<p><a href="/admin/ui/calendars">Calendar sync</a> · <a href="/admin/ui/staff">Staff &amp; hours</a></p>`,
    );
  });

  app.post('/admin/ui/staff/:id/calendars', async (c) => {
    await s.refresh();
    const id = c.req.param('id') ?? '';
    const calendars = calendarsFrom(await readForm(c), currentOf(id));
    return s.back(
      c,
      path(id),
      await s.run(c, 'resource_update', { resource_id: id, calendars: calendars.length > 0 ? calendars : null }),
      'saved',
    );
  });
}
