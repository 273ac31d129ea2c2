/** The booking page's money card: paid, refunded, disputed, with the payment provider's ids. */
import type { MoneyView } from '../../operations/index.js';
import { escapeHtml as esc } from '../../web/index.js';

type Money = MoneyView;

const minor = (n: number, currency: string) => `${(n / 100).toFixed(2)} ${currency}`;

export function moneyCard(m: Money | undefined): string {
  if (!m || (m.paid === 0 && m.payments.length === 0 && m.refunds.length === 0)) return '';
  const row = (cells: unknown[]) => `<tr>${cells.map((x) => `<td>${esc(String(x ?? '—'))}</td>`).join('')}</tr>`;
  const rows = [
    ...m.payments.map((p) => row(['Payment', minor(p.amount, m.currency), p.status, [p.session_id, p.payment_ref].filter(Boolean).join(' · ')])),
    ...m.refunds.map((r) => row(['Refund', minor(r.amount, m.currency), r.status, [r.refund_id, r.payment_ref].filter(Boolean).join(' · ')])),
    ...m.disputes.map((d) => row([`Dispute (${d.reason})`, minor(d.amount, m.currency), d.status, d.dispute_id])),
    ...m.mismatches.map((x) => row(['Mismatched payment', minor(x.amount, x.currency), 'not applied', x.event_id])),
    ...m.jobs.filter((j) => j.status !== 'done').map((j) => row([`Provider call (${j.kind})`, '', `${j.status}, ${j.attempts} attempt${j.attempts === 1 ? '' : 's'}`, j.last_error ?? j.id])),
  ];
  return `<section class="card" aria-labelledby="money"><h2 id="money">Money</h2><p>Paid ${esc(minor(m.paid, m.currency))} · refunded ${esc(minor(m.refunded, m.currency))}${m.provider ? ` · through ${esc(m.provider)}` : ''}</p>
<table class="list"><thead><tr><th>What</th><th>Amount</th><th>Status</th><th>Provider ids</th></tr></thead><tbody>${rows.join('') || '<tr><td colspan="4">Nothing through a provider.</td></tr>'}</tbody></table></section>`;
}
