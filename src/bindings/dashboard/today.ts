/** The Today screen: the day's figures, the queue of bookings waiting for confirmation, today's calendar. */
import { formatMoney } from '../../operations/index.js';
import { html } from '../../web/index.js';
import { calendarGrid } from './calendar.js';
import { buyerName, middayOf, type DashboardApp, type Screens } from './kit.js';
import { dashboardRefusal } from './layout.js';
import { viewOf, type BookingsView, type FiguresView } from './views.js';

export function mountToday(app: DashboardApp, s: Screens): void {
  app.get('/admin', async (c) => {
    const [fig, pend, todays] = [
      await s.run(c, 'figures', {}),
      await s.run(c, 'bookings', { view: 'all', status: 'pending' }),
      await s.run(c, 'bookings', { view: 'day' }),
    ];
    if (!fig.ok) return dashboardRefusal(500, fig.error);
    if (!pend.ok) return dashboardRefusal(500, pend.error);
    if (!todays.ok) return dashboardRefusal(500, todays.error);
    const f = viewOf<FiguresView>(fig.data).figures;
    const money =
      Object.entries(f.revenue_minor)
        .map(([cur, n]) => formatMoney(n, cur))
        .join(' · ') || '—';
    // Pending confirmations: every pending booking, soonest first.
    const queue = viewOf<BookingsView>(pend.data)
      .bookings.filter((r) => r.booking.confirmation_mode === 'manual')
      .sort((a, b) => a.start_ms - b.start_ms);
    const figures = html`<div class="figures">
<div class="figure"><b>${f.bookings}</b><span>bookings today</span></div>
<div class="figure"><b>${f.by_status.confirmed ?? 0}</b><span>confirmed</span></div>
<div class="figure"><b>${f.pending_confirmations}</b><span>waiting for you</span></div>
<div class="figure"><b>${money}</b><span>booked today</span></div>
<div class="figure"><b>${f.failed_deliveries}</b><span>failed webhooks</span></div></div>`;
    const pendingCard = html`<section class="card" aria-labelledby="q"><h2 id="q">Waiting for confirmation</h2>${
      queue.length === 0
        ? html`<p class="note">Nothing waits for you.</p>`
        : html`<table class="list"><thead><tr><th>When</th><th>Buyer</th><th>Service</th><th>Actions</th></tr></thead><tbody>${queue.map(
            (r) => {
              const id = encodeURIComponent(r.booking.id);
              return html`<tr><td>${s.when(r.start_ms)}</td><td><a href="/admin/ui/bookings/${id}">${buyerName(r.booking)}</a></td><td>${r.booking.service_name}</td>
<td><form class="inline" method="post" action="/admin/ui/bookings/${id}/confirm">${s.csrfField(c)}<button class="primary" type="submit">Confirm</button></form>
<a class="button" href="/admin/ui/bookings/${id}#decline">Decline…</a></td></tr>`;
            },
          )}</tbody></table>`
    }</section>`;
    const today = viewOf<BookingsView>(todays.data);
    return s.view(
      c,
      'Today',
      '/admin',
      html`<h1>Today, ${s.dayFmt.format(middayOf(today.range.from))}</h1>${s.flash(c)}${figures}${pendingCard}
<section class="card" aria-labelledby="t"><h2 id="t">Today's calendar</h2>${today.bookings.length === 0 ? html`<p class="note">No bookings today.</p>` : calendarGrid(s, today.bookings, today.range, 'day')}</section>`,
    );
  });
}
