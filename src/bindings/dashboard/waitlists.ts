/** The waitlists screen: who waits for each service, oldest first as the operation lists them. */
import { html } from '../../web/index.js';
import { badge, stamp, type DashboardApp, type Screens } from './kit.js';
import { viewOf, type WaitlistEntryView } from './views.js';

export function mountWaitlists(app: DashboardApp, s: Screens): void {
  app.get('/admin/ui/waitlists', async (c) => {
    const cards = [];
    for (const svc of s.biz.services.values()) {
      const res = await s.run(c, 'waitlist', { service_id: svc.id });
      const entries = res.ok ? viewOf<{ entries: WaitlistEntryView[] }>(res.data).entries : [];
      cards.push(
        html`<section class="card"><h2>${svc.name}</h2>${
          entries.length === 0
            ? html`<p class="note">Nobody is waiting.</p>`
            : html`<table class="list"><thead><tr><th>Since (${s.zone})</th><th>Status</th><th>Entry</th></tr></thead><tbody>${entries.map(
                (e) => html`<tr><td>${stamp(s, e.created_at)}</td><td>${badge(e.status)}</td><td>${e.id}</td></tr>`,
              )}</tbody></table>`
        }</section>`,
      );
    }
    return s.view(c, 'Waitlists', '/admin/ui/waitlists', html`<h1>Waitlists</h1>${cards}`);
  });
}
