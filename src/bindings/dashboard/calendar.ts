/**
 * The calendar screen: a day (a column per staff member) or a week (a column per day) of bookings,
 * filtered by staff, location, status or buyer; and the grid itself, which the Today screen shows too.
 */
import { html, type Html } from '../../web/index.js';
import { buyerName, middayOf, refusal, type DashboardApp, type Screens } from './kit.js';
import { viewOf, type BookingsView, type CalendarRow, type DayRange } from './views.js';

const eventLink = (s: Screens, row: CalendarRow): Html =>
  html`<a class="ev s-${row.booking.status}" href="/admin/ui/bookings/${encodeURIComponent(row.booking.id)}">${s.timeFmt.format(row.start_ms)} ${buyerName(row.booking)}<br><small>${row.booking.service_name} · ${row.booking.status.replace('_', ' ')}</small></a>`;

interface Column {
  key: string;
  label: string;
  match: (r: CalendarRow) => boolean;
  /** Busy time read from a staff calendar shown in this column. */
  busy: (b: CalendarBusy) => boolean;
}

/** Busy time read from a resource's own calendar (not a booking). */
export interface CalendarBusy {
  resource_id: string;
  start_ms: number;
  end_ms: number;
}

const busyMark = (s: Screens, b: CalendarBusy): Html =>
  html`<span class="ev busy">${s.timeFmt.format(b.start_ms)}–${s.timeFmt.format(b.end_ms)} busy (from calendar)</span>`;

/** A grid of hours by column (staff members in a day, days in a week); each cell lists the bookings starting in it. */
export function calendarGrid(
  s: Screens,
  rows: CalendarRow[],
  range: DayRange,
  viewKind: 'day' | 'week',
  resourceFilter?: string,
  busy: readonly CalendarBusy[] = [],
): Html {
  let cols: Column[];
  if (viewKind === 'week') {
    cols = Array.from({ length: 7 }, (_, i) => {
      const d = new Date(middayOf(range.from));
      d.setUTCDate(d.getUTCDate() + i);
      const key = d.toISOString().slice(0, 10);
      return {
        key,
        label: s.dayFmt.format(d.getTime()),
        match: (r: CalendarRow) => s.dateKey.format(r.start_ms) === key,
        busy: (b: CalendarBusy) =>
          s.dateKey.format(b.start_ms) === key && (!resourceFilter || b.resource_id === resourceFilter),
      };
    });
  } else {
    const ids = resourceFilter ? [resourceFilter] : [...new Set(rows.flatMap((r) => r.resource_ids))];
    const staff = [...s.biz.resources.values()].filter((r) =>
      resourceFilter ? r.id === resourceFilter : r.type === 'staff' || ids.includes(r.id),
    );
    const isStaff = (r: CalendarRow) => r.resource_ids.some((id) => staff.some((x) => x.id === id));
    cols = staff.map((x) => ({
      key: x.id,
      label: x.name,
      match: (r: CalendarRow) => r.resource_ids.includes(x.id),
      busy: (b: CalendarBusy) => b.resource_id === x.id,
    }));
    if (rows.some((r) => !isStaff(r)) || cols.length === 0)
      cols.push({ key: '_', label: 'Other', match: (r) => !isStaff(r), busy: () => false });
  }
  const hours = rows.map((r) => s.hourOf(r.start_ms));
  const first = Math.min(8, ...hours);
  const last = Math.max(18, ...hours);
  const body: Html[] = [];
  for (let h = first; h <= last; h++) {
    const here = cols.map((col) => rows.filter((r) => col.match(r) && s.hourOf(r.start_ms) === h));
    const away = cols.map((col) => busy.filter((b) => col.busy(b) && s.hourOf(b.start_ms) === h));
    const cells = cols.map((col, i) =>
      here[i].length || away[i].length
        ? html`<td data-col="${col.label}">${away[i].map((b) => busyMark(s, b))}${here[i].map((r) => eventLink(s, r))}</td>`
        : html`<td></td>`,
    );
    body.push(
      html`<tr${here.every((x) => x.length === 0) && away.every((x) => x.length === 0) ? html` class="empty"` : ''}><td class="hour">${String(h).padStart(2, '0')}:00</td>${cells}</tr>`,
    );
  }
  return html`<table class="cal"><caption class="note">Times in ${s.zone}</caption><thead><tr><th scope="col">Time</th>${cols.map((c) => html`<th scope="col">${c.label}</th>`)}</tr></thead><tbody>${body}</tbody></table>`;
}

const STATUSES = ['pending', 'confirmed', 'in_progress', 'completed', 'canceled', 'no_show'];
const FILTERS = ['date', 'resource_id', 'location_id', 'status', 'buyer'] as const;

export function mountCalendar(app: DashboardApp, s: Screens): void {
  app.get('/admin/ui/calendar', async (c) => {
    const q = c.req.query();
    const input: Record<string, unknown> = { view: q.view === 'week' ? 'week' : 'day' };
    for (const k of FILTERS) if (q[k]) input[k] = q[k];
    const res = await s.run(c, 'bookings', input);
    if (!res.ok)
      return s.view(
        c,
        'Calendar',
        '/admin/ui/calendar',
        html`<h1>Calendar</h1>${refusal(res.error.message)}<p><a href="/admin/ui/calendar">Back to today</a></p>`,
        400,
      );
    const { range, bookings: rows } = viewOf<BookingsView>(res.data);
    const viewKind = input.view as 'day' | 'week';
    const sync = await s.run(c, 'calendar_sync', {
      from: new Date(middayOf(range.from) - 43_200_000).toISOString(),
      to: new Date(middayOf(range.to) + 43_200_000).toISOString(),
    });
    const busy = sync.ok ? (sync.data.busy as CalendarBusy[]) : [];
    const opt = (v: string, label: string, cur: string | undefined) =>
      html`<option value="${v}"${v === (cur ?? '') ? html` selected` : ''}>${label}</option>`;
    const shift = (days: number) => {
      const d = new Date(middayOf(range.from));
      d.setUTCDate(d.getUTCDate() + days);
      return `/admin/ui/calendar?${new URLSearchParams({ ...q, date: d.toISOString().slice(0, 10) })}`;
    };
    const step = viewKind === 'week' ? 7 : 1;
    const filters = html`<form class="filters" method="get" action="/admin/ui/calendar">
<label>Date<input type="date" name="date" value="${q.date ?? range.from}"></label>
<label>View<select name="view">${opt('day', 'Day', viewKind)}${opt('week', 'Week', viewKind)}</select></label>
<label>Staff<select name="resource_id">${opt('', 'Everyone', q.resource_id)}${[...s.biz.resources.values()].map((r) => opt(r.id, r.name, q.resource_id))}</select></label>
<label>Location<select name="location_id">${opt('', 'All', q.location_id)}${s.biz.def.business.locations.map((l) => opt(l.id, l.name, q.location_id))}</select></label>
<label>Status<select name="status">${opt('', 'Any', q.status)}${STATUSES.map((x) => opt(x, x.replace('_', ' '), q.status))}</select></label>
<label>Buyer<input type="search" name="buyer" value="${q.buyer ?? ''}" placeholder="name, email, phone"></label>
<button type="submit">Show</button></form>`;
    const day = s.dayFmt.format(middayOf(range.from));
    const title = viewKind === 'week' ? `Week of ${day}` : day;
    return s.view(
      c,
      'Calendar',
      '/admin/ui/calendar',
      html`<h1>${title}</h1><div class="card">${filters}<p class="actions"><a class="button" href="${shift(-step)}">← Previous</a><a class="button" href="${shift(step)}">Next →</a></p></div>
<div class="card">${calendarGrid(s, rows, range, viewKind, q.resource_id || undefined, busy)}<p class="note">${rows.length} booking${rows.length === 1 ? '' : 's'}.</p></div>`,
    );
  });
}
