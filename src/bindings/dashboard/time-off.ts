/** The time-off screen: add time off, set the hours of one date, list and remove what was added here. */
import { html, readForm } from '../../web/index.js';
import { stamp, type DashboardApp, type Screens } from './kit.js';
import { viewOf, type ScheduleChangeView } from './views.js';

const text = (v: unknown) => (typeof v === 'string' ? v : '');
const hoursText = (hours: ScheduleChangeView['hours']) =>
  hours.length ? `open ${hours.map((h) => `${h.opens}–${h.closes}`).join(', ')}` : 'closed all day';

const WEEKDAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

export function mountTimeOff(app: DashboardApp, s: Screens): void {
  app.get('/admin/ui/time-off', async (c) => {
    const res = await s.run(c, 'schedule_changes', {});
    const list = res.ok ? viewOf<{ changes: ScheduleChangeView[] }>(res.data).changes : [];
    const rows = list.map(
      (
        ch,
      ) => html`<tr><td>${s.resourceName(ch.resource_id)}</td><td data-col="Kind">${ch.kind === 'time_off' ? 'Time off' : 'Hours for a date'}</td>
<td>${ch.kind === 'time_off' ? html`${stamp(s, ch.start)} → ${stamp(s, ch.end)}` : `${ch.date}: ${hoursText(ch.hours)}`}</td>
<td>${ch.reason ?? ''}</td><td><form class="inline" method="post" action="/admin/ui/time-off/${encodeURIComponent(ch.id)}/remove">${s.csrfField(c)}<button class="danger" type="submit">Remove</button></form></td></tr>`,
    );
    const staffSelect = html`<select name="resource_id" required>${[...s.biz.resources.values()].map((r) => html`<option value="${r.id}">${r.name}</option>`)}</select>`;
    return s.view(
      c,
      'Time off & hours',
      '/admin/ui/time-off',
      html`<h1>Time off &amp; hours</h1>${s.flash(c)}<section class="card" aria-labelledby="h-off"><h2 id="h-off">Add time off</h2><form class="stack" id="time-off" method="post" action="/admin/ui/time-off">${s.csrfField(c)}
<label>Staff member${staffSelect}</label>
<label>From<input type="datetime-local" name="start" required></label><label>Until<input type="datetime-local" name="end" required></label>
<label>Reason<input name="reason" maxlength="500"></label><button class="primary" type="submit">Add time off</button></form>
<p class="note">Times in ${s.zone}. The slots disappear from availability at once; platforms are told the catalog changed.</p></section>
<section class="card" aria-labelledby="h-days"><h2 id="h-days">Whole days off</h2><form class="stack" id="days-off" method="post" action="/admin/ui/time-off/days">${s.csrfField(c)}
<label>Staff member${staffSelect}</label>
<label>First day<input type="date" name="from" required></label><label>Last day (empty: just the first day)<input type="date" name="to"></label>
<label>Reason<input name="reason" maxlength="500"></label><button class="primary" type="submit">Add the days off</button></form>
<p class="note">All day: from the start of the first day to the end of the last, in ${s.zone}.</p></section>
<section class="card" aria-labelledby="h-exc"><h2 id="h-exc">Hours for one date</h2><form class="stack" id="exception" method="post" action="/admin/ui/time-off/exception">${s.csrfField(c)}
<label>Staff member or resource${staffSelect}</label><label>Date<input type="date" name="date" required></label>
<label>Opens<input type="time" name="opens"></label><label>Closes<input type="time" name="closes"></label>
<label>Reason<input name="reason" maxlength="500"></label><button class="primary" type="submit">Set the hours</button></form>
<p class="note">These hours replace the weekly hours for that date only (an extra Sunday, a short day). Leave Opens and Closes empty to close the day. One per date: remove it below to change it.</p></section>
<section class="card" aria-labelledby="h-range"><h2 id="h-range">Hours for a range of dates</h2><form class="stack" id="exception-range" method="post" action="/admin/ui/time-off/exception">${s.csrfField(c)}
<label>Staff member or resource${staffSelect}</label><label>First date<input type="date" name="date" required></label><label>Last date<input type="date" name="until" required></label>
<fieldset><legend>On these days</legend>${WEEKDAY_NAMES.map((d) => html`<label class="check"><input type="checkbox" name="weekday_${d}" value="1" checked> ${d[0].toUpperCase()}${d.slice(1)}</label>`)}</fieldset>
<label>Opens<input type="time" name="opens"></label><label>Closes<input type="time" name="closes"></label>
<label>Reason<input name="reason" maxlength="500"></label><button class="primary" type="submit">Set the hours for every date</button></form>
<p class="note">Next week's hours in one go: each date chosen gets these hours in place of the weekly ones (empty: closed). If any date already has its own hours, nothing is set and that date is named.</p></section>
<section class="card" aria-labelledby="h-list"><h2 id="h-list">Added here</h2>${
        rows.length
          ? html`<table class="list"><thead><tr><th>Staff</th><th>Kind</th><th>When (${s.zone})</th><th>Reason</th><th><span class="sr-only">Actions</span></th></tr></thead><tbody>${rows}</tbody></table>`
          : html`<p class="note">No time off or dated hours added from the dashboard.</p>`
      }</section>`,
    );
  });
  app.post('/admin/ui/time-off/exception', async (c) => {
    const form = await readForm(c);
    // Both times empty: closed all day; otherwise one interval, which the operation checks.
    const hours = text(form.opens) || text(form.closes) ? [{ opens: text(form.opens), closes: text(form.closes) }] : [];
    const input: Record<string, unknown> = { resource_id: form.resource_id, date: form.date, hours };
    if (text(form.until)) {
      input.until = text(form.until);
      input.weekdays = WEEKDAY_NAMES.filter((d) => form[`weekday_${d}`] === '1');
    }
    if (text(form.reason)) input.reason = form.reason;
    return s.back(
      c,
      '/admin/ui/time-off',
      await s.run(c, 'exception_add', input),
      hours.length ? 'hours_set' : 'day_closed',
    );
  });
  app.post('/admin/ui/time-off', async (c) => {
    const form = await readForm(c);
    const input: Record<string, unknown> = { resource_id: form.resource_id, start: form.start, end: form.end };
    if (text(form.reason)) input.reason = form.reason;
    return s.back(c, '/admin/ui/time-off', await s.run(c, 'time_off_add', input), 'time_off_added');
  });
  app.post('/admin/ui/time-off/days', async (c) => {
    const form = await readForm(c);
    // Dates as the operation takes them for all-day time off: the first day's start to the last day's end.
    const input: Record<string, unknown> = {
      resource_id: form.resource_id,
      start: text(form.from),
      end: text(form.to) || text(form.from),
    };
    if (text(form.reason)) input.reason = form.reason;
    return s.back(c, '/admin/ui/time-off', await s.run(c, 'time_off_add', input), 'time_off_added');
  });
  app.post('/admin/ui/time-off/:id/remove', async (c) =>
    s.back(
      c,
      '/admin/ui/time-off',
      await s.run(c, 'schedule_change_remove', { change_id: c.req.param('id') }),
      'removed',
    ),
  );
}
