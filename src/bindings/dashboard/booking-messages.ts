/** The booking screen's mail card: every message to the buyer, its state (queued, sent, failed) and why one failed. */
import { html, type Html } from '../../web/index.js';
import type { MessageView } from './views.js';

const KIND: Record<string, string> = {
  booking_confirmed: 'Confirmation',
  booking_requested: 'Request received',
  booking_declined: 'Declined',
  payment_needed: 'Payment request',
  booking_rescheduled: 'Rescheduled',
  booking_canceled: 'Cancellation',
  refund_issued: 'Refund',
  reminder: 'Reminder',
};

export function messagesCard(
  messages: readonly MessageView[] | undefined,
  when: (iso: string) => string,
  zone: string,
): Html {
  const rows = (messages ?? []).map(
    (m) =>
      html`<tr><td>${KIND[m.kind] ?? m.kind}</td><td>${m.recipient}</td><td><span class="badge">${m.status}</span></td><td>${m.sent_at ? when(m.sent_at) : m.status === 'queued' ? `due ${when(m.due_at)}` : '—'}</td><td>${m.error ?? ''}</td></tr>`,
  );
  return html`<section class="card" id="messages" aria-labelledby="msg"><h2 id="msg">Messages to the buyer</h2><table class="list"><thead><tr><th>Message</th><th>To</th><th>State</th><th>When (${zone})</th><th>Last error</th></tr></thead><tbody>${rows.length ? rows : html`<tr><td colspan="5">No messages.</td></tr>`}</tbody></table></section>`;
}
