/** Who a booking is for, as its page shows it: the buyer (linked to their client page), the recipient, the delivery address and the notes. */
import { escapeHtml as esc } from '../../web/index.js';

const name = (p: { first_name: string; last_name: string }) => `${p.first_name} ${p.last_name}`;
const contact = (p: { email: string; phone_number?: string }) => [p.email, p.phone_number].filter(Boolean).map((x) => esc(String(x))).join(' · ');

export function bookingPeople(b: any): string {
  const clientHref = `/admin/ui/clients?email=${encodeURIComponent(b.buyer.email)}`;
  const rows = [`<dt>Buyer</dt><dd><a href="${esc(clientHref)}">${esc(name(b.buyer))}</a> · ${contact(b.buyer)}</dd>`];
  if (b.recipient) rows.push(`<dt>For</dt><dd>${esc(name(b.recipient))} · ${contact(b.recipient)}</dd>`);
  const a = b.delivery_address;
  if (a) {
    const lines = [a.line1, a.line2, [a.postal_code, a.city].filter(Boolean).join(' '), a.region, a.country].filter(Boolean).map((x: unknown) => esc(String(x)));
    rows.push(`<dt>Address</dt><dd>${lines.join('<br>')}</dd>`);
  }
  if (b.notes) rows.push(`<dt>Notes</dt><dd>${esc(String(b.notes))}</dd>`);
  return rows.join('\n');
}
