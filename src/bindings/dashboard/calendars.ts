/**
 * The calendars screen: each staff calendar read for busy times (when it last read well, its
 * error, stale after a day), the bookings waiting to be pushed to a CalDAV calendar (failed pushes
 * with their error), and the secret feed addresses to subscribe to, with rotation.
 */
import { html } from '../../web/index.js';
import type { DashboardApp, Screens } from './kit.js';

interface FeedRow {
  resource_id: string;
  resource_name: string;
  type: string;
  write: boolean;
  last_ok_at: string | null;
  error: string | null;
  busy_intervals: number;
  stale: boolean;
}
interface PushRow {
  booking_id: string;
  attempts: number;
  next_attempt_at: string;
  error: string | null;
}

/** What the feeds say of the buyer, as the business chose (settings.calendar_feed_buyer_data). */
const BUYER_DATA = {
  none: 'the service only, no buyer',
  name: "the buyer's name only",
  name_and_contact: "the buyer's name, email and phone",
} as const;

export function mountCalendars(app: DashboardApp, s: Screens): void {
  app.get('/admin/ui/calendars', async (c) => {
    const res = await s.run(c, 'calendar_sync', {});
    const feeds = res.ok ? (res.data.feeds as FeedRow[]) : [];
    const pushes = res.ok ? (res.data.pushes as PushRow[]) : [];
    const feedRows = feeds.map(
      (
        f,
      ) => html`<tr><td><a href="/admin/ui/staff/${encodeURIComponent(f.resource_id)}/calendars">${f.resource_name}</a></td><td>${f.type === 'caldav' ? `CalDAV${f.write ? ', bookings pushed' : ''}` : 'iCalendar'}</td>
<td data-col="Last read">${f.last_ok_at ?? 'never'}</td><td data-col="Busy times">${f.busy_intervals}</td>
<td data-col="State">${f.error ? html`<span class="state s-canceled">failing: ${f.error}</span>` : f.stale ? html`<span class="state s-pending">stale</span>` : html`<span class="state s-confirmed">ok</span>`}${
        f.error ? html`<br><small>the last busy times read are kept</small>` : ''
      }</td></tr>`,
    );
    const pushRows = pushes.map(
      (p) =>
        html`<tr><td><a href="/admin/ui/bookings/${encodeURIComponent(p.booking_id)}">${p.booking_id}</a></td><td data-col="Attempts">${p.attempts}</td><td data-col="Error">${p.error ?? 'waiting'}</td></tr>`,
    );
    const urls: Array<{ id: string; name: string; url: string }> = [];
    for (const r of [
      { id: '_business', name: 'All bookings' },
      ...[...s.biz.resources.values()].map((x) => ({ id: x.id, name: x.name })),
    ]) {
      const u = await s.run(c, 'calendar_feed_url', { resource_id: r.id });
      if (u.ok) urls.push({ ...r, url: u.data.url as string });
    }
    const urlRows = urls.map(
      (
        u,
      ) => html`<tr><td>${u.name}</td><td><input type="text" readonly value="${u.url}" aria-label="Feed address of ${u.name}" size="60"></td>
<td><form class="inline" method="post" action="/admin/ui/calendars/${encodeURIComponent(u.id)}/rotate">${s.csrfField(c)}<button type="submit">New address</button></form></td></tr>`,
    );
    return s.view(
      c,
      'Calendars',
      '/admin/ui/calendars',
      html`<h1>Calendars</h1>${s.flash(c)}
<section class="card" aria-labelledby="h-feeds"><h2 id="h-feeds">Busy times from staff calendars</h2>${
        feedRows.length
          ? html`<table class="list"><thead><tr><th>Staff</th><th>Calendar</th><th>Last read</th><th>Busy times</th><th>State</th></tr></thead><tbody>${feedRows}</tbody></table>`
          : html`<p class="note">No calendars yet: add one from a staff member's <a href="/admin/ui/staff">Calendars</a> link.</p>`
      }</section>
<section class="card" aria-labelledby="h-push"><h2 id="h-push">Bookings waiting to reach a calendar</h2>${
        pushRows.length
          ? html`<table class="list"><thead><tr><th>Booking</th><th>Attempts</th><th>Last error</th></tr></thead><tbody>${pushRows}</tbody></table>`
          : html`<p class="note">None: every booking is in its calendar.</p>`
      }</section>
<section class="card" aria-labelledby="h-subscribe"><h2 id="h-subscribe">Subscribe from a calendar app</h2>
<p>Each address is secret: whoever has it sees the bookings (${BUYER_DATA[s.biz.def.settings.calendar_feed_buyer_data]}). A new address stops the old one working.</p>
<table class="list"><thead><tr><th>Feed</th><th>Address</th><th><span class="sr-only">Actions</span></th></tr></thead><tbody>${urlRows}</tbody></table></section>`,
    );
  });
  app.post('/admin/ui/calendars/:id/rotate', async (c) =>
    s.back(
      c,
      '/admin/ui/calendars',
      await s.run(c, 'calendar_feed_rotate', { resource_id: c.req.param('id') }),
      'feed_rotated',
    ),
  );
}
