/**
 * The buyer's waitlist offer page (the link in the "a place is free" mail): what is offered, by
 * whom, where, when and at what price, until when, and what became of it. Reached under the
 * entry's own credential (the one the mail carries), never the business's; the page then accepts or
 * declines through accept_waitlist_offer and decline_waitlist_offer, the tools' own operations.
 */
import { z } from 'zod';
import { isoUtc } from '../../domain/index.js';
import { defineOperation, ok } from '../core/define.js';
import type { OperationContext } from '../core/context.js';
import { loadEntry } from './offers.js';
import { entryNotFound } from './entries.js';
import { id } from '../schemas.js';
import type { WaitlistRecord } from '../../domain/index.js';

export interface WaitlistOfferView {
  entry_id: string;
  /** `offered` while the offer stands; `accepted`, `declined`, `expired` (or `waiting`) after. */
  status: string;
  business_name: string;
  locale: string;
  zone: string;
  service_name: string;
  start_at?: string;
  end_at?: string;
  duration_minutes?: number;
  expires_at?: string;
  location?: { name: string; address?: string };
  price: { currency: string; total: number };
  /** The booking an accepted offer made. */
  booking_path?: string;
}

export function waitlistOfferView(ctx: Pick<OperationContext, 'biz'>, rec: WaitlistRecord): WaitlistOfferView {
  const e = rec.entry;
  const def = ctx.biz.def.business;
  const service = ctx.biz.services.get(e.service_id);
  const v: WaitlistOfferView = {
    entry_id: e.id,
    status: e.status,
    business_name: def.name,
    locale: def.locale ?? 'en-US',
    zone: ctx.biz.zone,
    service_name: service?.name ?? e.service_id,
    price: { currency: service?.pricing.currency ?? def.currency, total: service?.pricing.amount ?? 0 },
  };
  if (e.offered_slot) {
    v.start_at = isoUtc(Date.parse(e.offered_slot.start));
    v.end_at = isoUtc(Date.parse(e.offered_slot.end));
    v.duration_minutes = Math.round((Date.parse(e.offered_slot.end) - Date.parse(e.offered_slot.start)) / 60_000);
  }
  if (e.offer_expires_at) v.expires_at = e.offer_expires_at;
  const loc =
    def.locations.find((l) => service?.location_ids?.includes(l.id)) ??
    (def.locations.length === 1 ? def.locations[0] : undefined);
  if (loc) v.location = { name: loc.name, ...(loc.address ? { address: loc.address } : {}) };
  if (rec.priv.booking_id) v.booking_path = `/booking/${encodeURIComponent(rec.priv.booking_id)}`;
  return v;
}

export const viewWaitlistOffer = defineOperation({
  name: 'view_waitlist_offer',
  rest: { method: 'GET', path: '/waitlist/{entry_id}/offer', input: 'none' },
  resource: { kind: 'waitlist_entry', key: 'entry_id' },
  access: 'privileged_scoped',
  scopes: ['usp:booking'],
  capability: 'dev.usp-protocol.services.waitlist',
  mutating: false,
  conditional: false,
  // Reading settles a lapsed offer (it expires and the place moves down the line).
  writes: true,
  page: 'waitlist_offer',
  summary:
    "The buyer's waitlist offer page (HTML for browsers, JSON otherwise): the offered place, its price and deadline, and the offer's state.",
  input: z.object({ entry_id: id('The waitlist entry whose offer is shown.') }),
  async handle(inp, ctx) {
    const rec = await loadEntry(ctx, inp.entry_id);
    if (!rec) throw entryNotFound(inp.entry_id);
    return ok({ offer: waitlistOfferView(ctx, rec) });
  },
});
