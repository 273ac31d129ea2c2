/**
 * The mail screen: first the mail actually sent (the latest messages, newest first, each with its
 * state: queued, sent, failed or canceled, when, and why one failed, linked to its booking); then each message a buyer can get, as this business sends it (its own templates
 * included), rendered from a sample booking: the subject, the plain text, and the HTML in a
 * sandboxed frame served from its own URL, which may run nothing, load nothing and only be framed
 * by this screen. Rendering is the mail layer's, handed in by the server: nothing here decides.
 */
import { contentSecurityPolicy, html, pageHeaders } from '../../web/index.js';
import { badge, stamp, type DashboardApp, type Screens } from './kit.js';
import { viewOf } from './views.js';

/** One kind of message as the mail layer renders it (its shape, so the door imports no mail code). */
export interface MailPreviewView {
  kind: string;
  subject: string;
  text: string;
  html: string;
  overridden: boolean;
}

const LABEL: Record<string, string> = {
  booking_confirmed: 'Booking confirmed',
  booking_requested: 'Request received (manual confirmation)',
  booking_declined: 'Request declined',
  payment_needed: 'Payment needed',
  booking_rescheduled: 'Booking moved',
  booking_canceled: 'Booking canceled',
  refund_issued: 'Refund issued',
  reminder: 'Reminder',
  waitlist_offer: 'Waitlist place offered',
};

/** One message of the mail log, as `list_sent_mail` presents it. */
interface SentMailView {
  kind: string;
  recipient: string;
  booking_id?: string;
  status: string;
  attempts: number;
  created_at: string;
  due_at: string;
  sent_at?: string;
  error?: string;
}

export function mountMailPreviews(app: DashboardApp, s: Screens, preview: () => MailPreviewView[]): void {
  app.get('/admin/ui/mail', async (c) => {
    const res = await s.run(c, 'mail_log', { limit: 100 });
    const sent = res.ok ? viewOf<{ messages: SentMailView[] }>(res.data).messages : [];
    const rows = sent.map(
      (m) =>
        html`<tr><td data-col="Queued">${stamp(s, m.created_at)}</td><td data-col="Message">${
          m.booking_id
            ? html`<a href="/admin/ui/bookings/${m.booking_id}">${LABEL[m.kind] ?? m.kind}</a>`
            : (LABEL[m.kind] ?? m.kind)
        }</td><td data-col="To">${m.recipient}</td><td data-col="State">${badge(m.status)}</td>
<td data-col="When">${m.sent_at ? html`sent ${stamp(s, m.sent_at)}` : m.status === 'queued' ? html`due ${stamp(s, m.due_at)}` : ''}</td><td data-col="Last error">${m.error ?? ''}</td></tr>`,
    );
    const log = html`<section class="card" aria-labelledby="mail-log"><h2 id="mail-log">Sent and waiting</h2><p class="note">The latest ${sent.length === 100 ? '100 ' : ''}messages to buyers, newest first. A failed message is tried again on a schedule; one that keeps failing stays failed.</p>${
      rows.length
        ? html`<table class="list"><thead><tr><th>Queued (${s.zone})</th><th>Message</th><th>To</th><th>State</th><th>When (${s.zone})</th><th>Last error</th></tr></thead><tbody>${rows}</tbody></table>`
        : html`<p class="note">No mail yet.</p>`
    }</section>`;
    const cards = preview().map(
      (p) =>
        html`<section class="card" aria-labelledby="mail-${p.kind}"><h2 id="mail-${p.kind}">${LABEL[p.kind] ?? p.kind}</h2><p class="note">${p.overridden ? 'Your own text (settings.mail_templates)' : 'Built-in text'} · Subject: ${p.subject}</p>
<iframe sandbox="" src="/admin/ui/mail/${p.kind}.html" title="${LABEL[p.kind] ?? p.kind}: HTML preview" width="100%" height="520"></iframe>
<details><summary>Plain text</summary><pre>${p.text}</pre></details></section>`,
    );
    const r = s.view(
      c,
      'Mail',
      '/admin/ui/mail',
      html`<h1>Mail to buyers</h1>${log}<h2>What each message says</h2><p class="note">Every message as a buyer of ${s.bizName} gets it, from a sample booking. Replace a message's text by naming a file per kind in <code>settings.mail_templates</code>.</p>${cards}`,
    );
    // This screen frames its own previews, and nothing else.
    r.headers.set('Content-Security-Policy', contentSecurityPolicy({ framesOwn: true }));
    return r;
  });
  app.get('/admin/ui/mail/:file', (c) => {
    const kind = c.req.param('file').replace(/\.html$/, '');
    const p = preview().find((x) => x.kind === kind);
    if (!p) return c.notFound();
    // The mail's HTML (inline styles, as mail has no other kind), framed only by the screen above.
    return new Response(p.html, { headers: pageHeaders({ framed: true }) });
  });
}
