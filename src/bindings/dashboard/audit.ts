/** The audit log screen: who changed what as the business, newest first, 50 a page (keyset paging on the entry's sequence number). */
import { html } from '../../web/index.js';
import { badge, refusal, type DashboardApp, type Screens } from './kit.js';
import { viewOf, type AuditEntryView } from './views.js';

const AUDIT_PAGE = 50;
const actorName = (a: string) =>
  a.startsWith('user:') ? a.slice(5) : a === 'admin_api_key' ? 'Admin API key' : a === 'cli' ? 'Command line' : a;

export function mountAudit(app: DashboardApp, s: Screens): void {
  app.get('/admin/ui/audit', async (c) => {
    const before = c.req.query('before');
    const input: Record<string, unknown> = { limit: String(AUDIT_PAGE) };
    if (before && /^\d+$/.test(before)) input.before = before;
    const res = await s.run(c, 'audit_log', input);
    if (!res.ok)
      return s.view(c, 'Audit log', '/admin/ui/audit', html`<h1>Audit log</h1>${refusal(res.error.message)}`, 400);
    const entries = viewOf<{ entries: AuditEntryView[] }>(res.data).entries;
    const rows = entries.map((e) => {
      const ms = Date.parse(e.at);
      const on = e.target ? String(e.target) : '';
      const target = on.startsWith('bkg_')
        ? html`<a href="/admin/ui/bookings/${encodeURIComponent(on)}">${on}</a>`
        : s.biz.resources.has(on)
          ? s.resourceName(on)
          : on;
      return html`<tr><td>${s.dateKey.format(ms)} ${s.timeFmt.format(ms)}</td><td data-col="Who">${actorName(e.actor)}</td><td data-col="What">${String(e.action).replaceAll('_', ' ')}</td><td${
        on ? html` data-col="On"` : ''
      }>${target}</td><td>${badge(e.outcome)}</td></tr>`;
    });
    const pages = [];
    if (input.before) pages.push(html`<a class="button" href="/admin/ui/audit">Newest</a>`);
    if (entries.length === AUDIT_PAGE)
      pages.push(
        html`<a class="button" href="/admin/ui/audit?before=${encodeURIComponent(entries[entries.length - 1].seq)}">Older →</a>`,
      );
    return s.view(
      c,
      'Audit log',
      '/admin/ui/audit',
      html`<h1>Audit log</h1><section class="card" aria-labelledby="h-audit"><h2 id="h-audit">Who changed what, newest first</h2>${
        rows.length
          ? html`<table class="list"><thead><tr><th>When</th><th>Who</th><th>What</th><th>On</th><th>Outcome</th></tr></thead><tbody>${rows}</tbody></table>`
          : html`<p class="note">Nothing recorded yet.</p>`
      }<p class="note">Times in ${s.zone}. Every change made as the business (dashboard, admin API, command line) is recorded.</p>${pages.length ? html`<p class="actions">${pages}</p>` : ''}</section>`,
    );
  });
}
