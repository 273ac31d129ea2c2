/** Who a booking is for, as its page shows it: the buyer (linked to their client page), the recipient, the delivery address and the notes. */
import { html, type Html } from '../../web/index.js';

interface Person {
  first_name: string;
  last_name: string;
  email: string;
  phone_number?: string;
}

/** The members of a booking this card reads (the protocol's Booking has them all). */
export interface BookingPeople {
  buyer: Person;
  recipient?: Person;
  delivery_address?: {
    line1: string;
    line2?: string;
    city: string;
    region?: string;
    postal_code?: string;
    country: string;
  };
  notes?: string;
}

const name = (p: Person) => `${p.first_name} ${p.last_name}`;
const contact = (p: Person) => [p.email, p.phone_number].filter(Boolean).join(' · ');

export function bookingPeople(b: BookingPeople): Html {
  const a = b.delivery_address;
  const lines = a
    ? [a.line1, a.line2, [a.postal_code, a.city].filter(Boolean).join(' '), a.region, a.country].filter(
        (x): x is string => !!x,
      )
    : [];
  return html`<dt>Buyer</dt><dd><a href="/admin/ui/clients?email=${encodeURIComponent(b.buyer.email)}">${name(b.buyer)}</a> · ${contact(b.buyer)}</dd>
${b.recipient ? html`<dt>For</dt><dd>${name(b.recipient)} · ${contact(b.recipient)}</dd>` : ''}
${a ? html`<dt>Address</dt><dd>${lines.map((l, i) => html`${i > 0 ? html`<br>` : ''}${l}`)}</dd>` : ''}
${b.notes ? html`<dt>Notes</dt><dd>${b.notes}</dd>` : ''}`;
}
