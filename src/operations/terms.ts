/**
 * The terms of a service, and of one booking of it, as facts a door can put into words: what it
 * costs and when it is paid, where it happens, and what cancelling, rescheduling or missing it
 * costs, with each window as a length (a service) or as the instant it closes (a booking). The
 * rules come from the domain's pricing functions, so what a door says is what the operations do.
 */
import {
  amountDueAtBooking,
  bookingPrice,
  deepFreeze,
  lateCancellationFee,
  memoPerObject,
  noShowFee,
  parseDuration,
  type PaymentWindowSettings,
  type ServiceDef,
} from '../domain/index.js';
import type { Business } from './business.js';

export interface WindowFacts {
  allowed: boolean;
  /** The free window before the start (ms); null when it is free until the start. */
  freeWindowMs: number | null;
  /** The fee once the free window has passed. */
  fee: number;
}

export interface CancelFacts extends WindowFacts {
  /** No cancellation at all in this last stretch before the start (ms). */
  closedWindowMs: number | null;
}

export interface RescheduleFacts extends WindowFacts {
  max: number | null;
}

export interface ServiceTerms {
  business: string;
  serviceName: string;
  currency: string;
  /** "45 min", "30-90 min", or null when the service has no length to show. */
  durationMinutes: { min: number; max: number } | null;
  pricing: { model: string; amount: number | null };
  /** How and when the price is paid: nothing to pay, a link when booking, a deposit, or at the appointment. */
  payment: {
    timing: 'free' | 'at_booking' | 'deposit_required' | 'at_service';
    deposit: number | null;
    depositRefundable: boolean | null;
    /** The business's payment window (paymentDeadline's settings) when something is paid by a link when booking. */
    window: PaymentWindowSettings | null;
  };
  confirmation: 'auto' | 'manual';
  /** Where it happens: the business's locations (name and address), or the buyer's address with the area served. */
  places: Array<{ name: string; address: string | null }>;
  atBuyer: { serviceArea: string | null } | null;
  instructions: string | null;
  cancel: CancelFacts;
  reschedule: RescheduleFacts;
  /** The no-show fee for one default booking (null when there is none) and the lateness tolerated. */
  noShow: { fee: number; graceMinutes: number | null } | null;
}

const minutes = (iso: string) => Math.round(parseDuration(iso) / 60_000);

function durationOf(s: ServiceDef): ServiceTerms['durationMinutes'] {
  const d = s.duration as { fixed?: string; range?: { min: string; max: string } };
  if (d.fixed) return { min: minutes(d.fixed), max: minutes(d.fixed) };
  if (d.range) return { min: minutes(d.range.min), max: minutes(d.range.max) };
  return null;
}

/** The business's payment window settings (the three members paymentDeadline reads). */
export function paymentWindowOf(biz: Business): PaymentWindowSettings {
  const st = biz.def.settings;
  return {
    payment_ttl_seconds: st.payment_ttl_seconds,
    payment_due_before_start_seconds: st.payment_due_before_start_seconds,
    payment_min_window_seconds: st.payment_min_window_seconds,
  };
}

/**
 * Each snapshot's service terms, made once: the MCP texts and view data of every call ask for them
 * (a service card, an availability page, a booking), and a snapshot never changes (a new definition
 * is a new snapshot, which starts its own). Frozen, as they are shared.
 */
const termsOf = memoPerObject((biz: Business, serviceId: string): Readonly<ServiceTerms> | null => {
  const s = biz.services.get(serviceId);
  return s ? deepFreeze(termsOfService(biz, s)) : null;
});

/** The terms of one service of the business; null for an unknown id. */
export function serviceTerms(biz: Business, serviceId: string): Readonly<ServiceTerms> | null {
  return termsOf(biz, serviceId);
}

function termsOfService(biz: Business, s: ServiceDef): ServiceTerms {
  const pol = s.policies;
  const c = pol.cancellation;
  const r = pol.rescheduling;
  const dur = durationOf(s);
  const defaultPrice = bookingPrice(s, 1, (dur?.min ?? 60) * 60_000);
  const timing = !pol.requires_payment ? 'free' : (pol.payment_timing ?? 'at_service');
  const locs = biz.def.business.locations ?? [];
  const places = (s.location_ids ?? []).flatMap((id) => {
    const l = locs.find((x) => x.id === id);
    return l ? [{ name: l.name, address: l.address ?? null }] : [];
  });
  const fee = noShowFee(s, defaultPrice);
  return {
    business: biz.def.business.name,
    serviceName: s.name,
    currency: s.pricing.currency,
    durationMinutes: dur,
    pricing: { model: s.pricing.model, amount: s.pricing.amount ?? s.pricing.price_range?.min ?? null },
    payment: {
      timing,
      deposit: timing === 'deposit_required' ? amountDueAtBooking(s, defaultPrice) : null,
      depositRefundable: timing === 'deposit_required' ? (s.pricing.deposit?.refundable ?? null) : null,
      window: timing === 'at_booking' || timing === 'deposit_required' ? paymentWindowOf(biz) : null,
    },
    confirmation: pol.confirmation_mode,
    places,
    atBuyer: s.channel.type === 'at_buyer_location' ? { serviceArea: s.channel.service_area ?? null } : null,
    instructions: s.channel.instructions ?? null,
    cancel: {
      allowed: c.allowed,
      freeWindowMs: c.free_cancellation_until ? parseDuration(c.free_cancellation_until) : null,
      fee: lateCancellationFee(s, defaultPrice),
      closedWindowMs: c.no_cancellation_after ? parseDuration(c.no_cancellation_after) : null,
    },
    reschedule: {
      allowed: r.allowed,
      freeWindowMs: r.free_reschedule_until ? parseDuration(r.free_reschedule_until) : null,
      fee: r.fee ?? 0,
      max: r.max_reschedules ?? null,
    },
    noShow:
      fee > 0 ? { fee, graceMinutes: pol.no_show?.grace_period ? minutes(pol.no_show.grace_period) : null } : null,
  };
}

/**
 * The no-show fee of a booking of `serviceId` for `partySize` lasting `durationMs`: on the price of
 * the service itself (a late-reschedule fee added to what is paid at the appointment is no part of it).
 */
export function bookingNoShowFee(biz: Business, serviceId: string, partySize: number, durationMs: number): number {
  const s = biz.services.get(serviceId);
  return s ? noShowFee(s, bookingPrice(s, partySize, durationMs)) : 0;
}
