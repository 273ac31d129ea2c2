/**
 * What a view shows beside the structured result, under `_meta["dev.usp-server/view"]` of a result
 * whose tool has a view: the business's name and time zone, the place with its address, the price
 * and what is due as the business writes money, and the terms in words, all from the same helpers
 * the text uses. A view formats nothing the business decides; a client without views ignores it.
 */
import {
  bookingNoShowFee,
  decodeSlotId,
  moneyFacts,
  serviceTerms,
  type BookingFactsInput,
  type Business,
} from '../../operations/index.js';

import { money } from './format.js';
import { bookingTermsWords, paymentWords, serviceTermsWords } from './terms-text.js';
import { META_VIEW, type ViewData } from './view-shape.js';

export { META_VIEW };
export type { ViewData };

/** The view data of a result, or undefined when the tool has no view or the result nothing to show. */
export function viewData(biz: Business, data: Record<string, any>, nowMs: number): ViewData | undefined {
  const base: ViewData = { business: biz.def.business.name, zone: biz.zone, now: new Date(nowMs).toISOString() };
  const record = data.booking ?? data.hold ?? data.entry ?? data.waitlist_entry;
  const serviceId = record?.service_id ?? data.service_id;
  const t = typeof serviceId === 'string' ? serviceTerms(biz, serviceId) : null;
  if (!t) return base;
  base.service = t.serviceName;
  base.payment = paymentWords(t);
  const b = data.booking;
  if (b) {
    const loc = b.location?.id ? biz.def.business.locations.find((l) => l.id === b.location.id) : undefined;
    if (loc) base.place = { name: loc.name, address: loc.address ?? null };
    const cur = b.payment?.currency ?? t.currency;
    if (typeof b.payment?.amount === 'number') base.price = money(b.payment.amount, cur);
    const m = moneyFacts(b as BookingFactsInput);
    const due = m.payNow?.amount ?? m.owed;
    if (due > 0) base.due = money(due, m.currency ?? cur);
    if (b.status === 'canceled' && b.cancellation)
      base.cancellation = {
        fee: money(b.cancellation.fee ?? 0, cur),
        refund: money(b.cancellation.refund_amount ?? 0, cur),
      };
    const startMs = Date.parse(b.slot?.start);
    if (!Number.isNaN(startMs) && ['pending', 'requires_action', 'confirmed'].includes(b.status)) {
      const durationMs = Math.max(0, Date.parse(b.slot?.end) - startMs) || 0;
      base.terms = bookingTermsWords(
        t,
        startMs,
        nowMs,
        biz.zone,
        bookingNoShowFee(biz, String(b.service_id), Number(b.party_size) || 1, durationMs),
      );
    }
    return base;
  }
  const heldStart = data.hold ? decodeSlotId(data.hold.slot_id)?.startMs : undefined;
  if (heldStart !== undefined) base.start = new Date(heldStart).toISOString();
  if (t.places.length === 1) base.place = t.places[0];
  if (t.pricing.amount !== null) base.price = money(t.pricing.amount, t.currency);
  base.terms = serviceTermsWords(t);
  return base;
}
