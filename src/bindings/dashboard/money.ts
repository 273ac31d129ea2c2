/** The booking page's money card: paid, refunded, disputed, with the payment provider's ids. */
import { formatMoney, majorAmount, parseMoney, type MoneyView } from '../../operations/index.js';
import { html, type Html } from '../../web/index.js';

type Money = MoneyView;

const minor = (n: number, currency: string) => formatMoney(n, currency);

/**
 * A form's amount, typed in the currency's major unit ("70", "70.00", "$70.00"; JPY "700"), as the
 * operation's minor units: `undefined` when the field is empty, `{ refused }` with the words saying
 * why when it is not an amount in that currency ("70.001" for USD, "1,2").
 */
export function minorFromForm(v: unknown, currency: string): number | undefined | { refused: string } {
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  const parsed = parseMoney(v, currency);
  return parsed.ok ? parsed.amount : { refused: parsed.message };
}

/** The refund form, when something is left to refund (`refund` carries the CSRF field and where it posts). */
function refundForm(m: Money, refund: { csrf: Html; action: string }): Html | '' {
  if (m.refundable <= 0) return '';
  return html`<form class="stack" id="refund" method="post" action="${refund.action}">${refund.csrf}<label>Amount to refund (${m.currency}, up to ${minor(m.refundable, m.currency)}; empty for all of it)<input name="amount" inputmode="decimal" placeholder="${majorAmount(m.refundable, m.currency)}"></label><label>Reason<input name="reason" required maxlength="1000"></label><button class="danger" type="submit">Refund</button></form>`;
}

export function moneyCard(m: Money | undefined, refund?: { csrf: Html; action: string }): Html | '' {
  if (!m || (m.paid === 0 && m.payments.length === 0 && m.refunds.length === 0)) return '';
  const row = (cells: unknown[]) => html`<tr>${cells.map((x) => html`<td>${String(x ?? '—')}</td>`)}</tr>`;
  const rows = [
    ...m.payments.map((p) =>
      row([
        'Payment',
        minor(p.amount, m.currency),
        p.status,
        [p.session_id, p.payment_ref].filter(Boolean).join(' · '),
      ]),
    ),
    ...m.business_refunds
      .filter((r) => !r.through_provider)
      .map((r) => row([`Refund (${r.reason})`, minor(r.amount, m.currency), 'recorded', r.at])),
    ...m.refunds.map((r) =>
      row(['Refund', minor(r.amount, m.currency), r.status, [r.refund_id, r.payment_ref].filter(Boolean).join(' · ')]),
    ),
    ...m.disputes.map((d) => row([`Dispute (${d.reason})`, minor(d.amount, m.currency), d.status, d.dispute_id])),
    ...m.mismatches.map((x) => row(['Mismatched payment', minor(x.amount, x.currency), 'not applied', x.event_id])),
    ...m.jobs
      .filter((j) => j.status !== 'done')
      .map((j) =>
        row([
          `Provider call (${j.kind})`,
          '',
          `${j.status}, ${j.attempts} attempt${j.attempts === 1 ? '' : 's'}`,
          j.last_error ?? j.id,
        ]),
      ),
  ];
  return html`<section class="card" aria-labelledby="money"><h2 id="money">Money</h2><p>Paid ${minor(m.paid, m.currency)} · refunded ${minor(m.refunded, m.currency)}${m.provider ? ` · through ${m.provider}` : ''}</p>
${refund ? refundForm(m, refund) : ''}<table class="list"><thead><tr><th>What</th><th>Amount</th><th>Status</th><th>Provider ids</th></tr></thead><tbody>${rows.length ? rows : html`<tr><td colspan="4">Nothing through a provider.</td></tr>`}</tbody></table></section>`;
}
