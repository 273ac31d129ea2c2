/**
 * What the buyer's pages show of a booking (spec 8.5.4, 8.5.5): the hosted checkout page behind a
 * payment action's `continue_url`, and the read-only booking page. Both are reached by the booking's
 * own link (its id), show what is due and never buyer data, and apply lazy expiry first.
 */
import type { Business } from '../business.js';
import {
  bookingDeadline,
  formatMoney,
  formatInstant,
  isoUtc,
  moneyFacts,
  parseDuration,
  type BookingRecord,
  type ServiceDef,
} from '../../domain/index.js';
import { returnUrlProblem } from '../../security/index.js';
import { ProtocolError } from '../core/errors.js';
import { expireIfDue } from './lifecycle.js';
import type { OperationContext } from '../core/context.js';
import type { PaymentMode } from '../business.js';

export interface CheckoutView {
  booking_id: string;
  service_name: string;
  start: string;
  zone: string;
  state: 'due' | 'paid' | 'expired' | 'not_applicable';
  amount_due?: string;
  expires_at?: string;
  return_url?: string;
  sandbox: boolean;
  /** Who takes the payment: the sandbox page, a provider (pay at `pay_url`), an external checkout, or none. */
  provider: PaymentMode;
  /** The provider's page for the pending action, once it exists. */
  pay_url?: string;
  /** What the buyer bought, from whom, where, when, on what terms and in what state (no buyer data). */
  booking: BookingPageView;
}

/**
 * The read-only facts of a booking a buyer's page shows. Instants are UTC (RFC 3339) and money is
 * in minor units, so each page formats them in the buyer's language; `locale` is the business's default.
 */
export interface BookingPageView {
  booking_id: string;
  business_name: string;
  locale: string;
  zone: string;
  service_name: string;
  status: string;
  start_at: string;
  end_at: string;
  duration_minutes: number;
  /** Until when a pending booking waits for the business, or a payment may be made. */
  deadline_at?: string;
  location?: { name: string; address?: string; map_url?: string };
  resources: Array<{ type: string; name: string }>;
  price: {
    currency: string;
    total: number;
    /** Paid online so far (the completed payment actions). */
    paid: number;
    /** Due now through the booking's payment link. */
    due_now: number;
    /** Left to pay at the appointment. */
    at_appointment: number;
    /** Owed outside a payment link (a fee the payment did not cover). */
    owed: number;
    /** Everything still to pay: due now, at the appointment and owed (0 when settled). */
    balance: number;
    deposit?: number;
    timing?: string;
    cancellation_fee?: number;
    refund?: number;
  };
  /** The cancellation and rescheduling policies in plain words. */
  terms: string[];
  /** Relative link to the iCalendar file; only once the booking is confirmed (or canceled after). */
  calendar_path?: string;
  booking_path: string;
  reschedule_count: number;
  /** The service booked (the move form asks availability for it). */
  service_id: string;
  /** How the buyer reaches the business about the booking (business.contact). */
  contact?: { phone?: string; email?: string };
}

function durationWords(iso: string): string {
  const ms = parseDuration(iso);
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (ms % 86_400_000 === 0 && ms >= 2 * 86_400_000) return plural(ms / 86_400_000, 'day');
  if (ms % 3_600_000 === 0) return plural(ms / 3_600_000, 'hour');
  return plural(Math.round(ms / 60_000), 'minute');
}

/** The service's cancellation and rescheduling policies, one sentence each. */
/** What a late cancellation costs, in words: a fixed fee, a percentage of the price, or nothing. */
function lateFeeWords(c: ServiceDef['policies']['cancellation'], money: (n: number) => string): string {
  if (c.late_cancellation_fee) return `a ${money(c.late_cancellation_fee)} fee applies`;
  if (c.late_cancellation_fee_percentage) return `a fee of ${c.late_cancellation_fee_percentage}% of the price applies`;
  return 'it is still free';
}

function termsInWords(service: ServiceDef, currency: string): string[] {
  const money = (n: number) => formatMoney(n, currency);
  const c = service.policies.cancellation;
  const r = service.policies.rescheduling;
  const terms: string[] = [];
  if (!c.allowed) terms.push('This booking cannot be canceled.');
  else {
    let t = c.free_cancellation_until
      ? `Free cancellation until ${durationWords(c.free_cancellation_until)} before the start; after that ${lateFeeWords(c, money)}.`
      : 'Free cancellation at any time before the start.';
    if (c.no_cancellation_after) t += ` No cancellation in the last ${durationWords(c.no_cancellation_after)}.`;
    terms.push(t);
  }
  if (!r.allowed) terms.push('This booking cannot be rescheduled.');
  else {
    let t = r.free_reschedule_until
      ? `Free rescheduling until ${durationWords(r.free_reschedule_until)} before the start${r.fee ? `; after that ${money(r.fee)}` : ''}.`
      : `Rescheduling is free${r.fee ? ` (${money(r.fee)} fee)` : ''}.`.replace('free (', 'possible (');
    if (r.max_reschedules !== undefined)
      t += ` At most ${r.max_reschedules} reschedule${r.max_reschedules === 1 ? '' : 's'}.`;
    terms.push(t);
  }
  const ns = service.policies.no_show;
  if (ns?.fee || ns?.fee_percentage)
    terms.push(`Missing the appointment costs ${ns.fee ? money(ns.fee) : `${ns.fee_percentage}% of the price`}.`);
  return terms;
}

function mapUrl(loc: { address?: string; coordinates?: { lat: number; lng: number } }): string | undefined {
  if (loc.coordinates)
    return `https://www.openstreetmap.org/?mlat=${loc.coordinates.lat}&mlon=${loc.coordinates.lng}#map=17/${loc.coordinates.lat}/${loc.coordinates.lng}`;
  if (loc.address) return `https://www.openstreetmap.org/search?query=${encodeURIComponent(loc.address)}`;
  return undefined;
}

/** The page view of a booking record (after lazy expiry has run). */
export function bookingPageView(ctx: { biz: Business }, rec: BookingRecord): BookingPageView {
  const b = rec.booking;
  const def = ctx.biz.def.business;
  const service = ctx.biz.services.get(b.service_id);
  const currency = b.payment?.currency ?? service?.pricing.currency ?? def.currency;
  // The money the page states is the booking object's own (moneyFacts), as the MCP text's is.
  const m = moneyFacts(b);
  const live = b.status !== 'canceled' && b.status !== 'completed' && b.status !== 'no_show';
  // A booking without a payment block states no price; what the service costs is paid at the appointment.
  const total = m.total ?? rec.priv.price_total;
  const atAppointment = m.total === null && live ? total : m.atAppointment;
  const dueNow = b.status === 'requires_action' ? (m.payNow?.amount ?? 0) : 0;
  const loc = b.location ? def.locations.find((l) => l.id === b.location!.id) : undefined;
  const deadline = bookingDeadline(b)?.at;
  const v: BookingPageView = {
    booking_id: b.id,
    business_name: def.name,
    locale: def.locale ?? 'en-US',
    zone: ctx.biz.zone,
    service_name: b.service_name,
    status: b.status,
    start_at: isoUtc(rec.priv.start_ms),
    end_at: isoUtc(rec.priv.end_ms),
    duration_minutes: Math.round((rec.priv.end_ms - rec.priv.start_ms) / 60_000),
    resources: (b.resources ?? []).map((r) => ({ type: r.type, name: r.name })),
    price: {
      currency,
      total,
      paid: m.paid,
      due_now: dueNow,
      at_appointment: atAppointment,
      owed: m.owed,
      balance: b.status === 'canceled' ? m.owed : dueNow + atAppointment + m.owed,
    },
    terms: service ? termsInWords(service, currency) : [],
    booking_path: `/booking/${encodeURIComponent(b.id)}`,
    reschedule_count: rec.priv.reschedule_count,
    service_id: b.service_id,
  };
  if (def.contact && (def.contact.phone || def.contact.email)) v.contact = { ...def.contact };
  if (deadline) v.deadline_at = deadline;
  if (b.location)
    v.location = {
      name: loc?.name ?? b.location.name,
      ...(loc?.address ? { address: loc.address } : {}),
      ...(loc && mapUrl(loc) ? { map_url: mapUrl(loc) } : {}),
    };
  if (b.payment?.timing) v.price.timing = b.payment.timing;
  if (b.payment?.deposit_amount) v.price.deposit = b.payment.deposit_amount;
  if (b.cancellation) {
    v.price.cancellation_fee = b.cancellation.fee;
    v.price.refund = b.cancellation.refund_amount;
  }
  if (
    b.status !== 'pending' &&
    b.status !== 'requires_action' &&
    (b.status !== 'canceled' || rec.priv.confirmed_once)
  ) {
    v.calendar_path = `/booking/${encodeURIComponent(b.id)}/calendar.ics`;
  }
  return v;
}

/** The checkout page of a booking, with what is due on it (after lazy expiry). */
export async function checkoutView(
  ctx: OperationContext,
  bookingId: string,
): Promise<{ v: CheckoutView; due?: number }> {
  const rec = await ctx.tx.bookings.get(bookingId);
  if (!rec)
    throw new ProtocolError('not_found', 'There is no checkout for this link.', { detailCode: 'checkout_not_found' });
  await expireIfDue(ctx, rec);
  const b = rec.booking;
  const action = b.actions?.find((a) => a.type === 'payment' && a.status === 'pending');
  const lastPayment = b.actions?.filter((a) => a.type === 'payment').at(-1);
  const zone = ctx.biz.zone;
  const v: CheckoutView = {
    booking_id: b.id,
    service_name: b.service_name,
    start: formatInstant(rec.priv.start_ms, zone),
    zone,
    state: action
      ? 'due'
      : lastPayment?.status === 'expired'
        ? 'expired'
        : lastPayment?.status === 'completed'
          ? 'paid'
          : 'not_applicable',
    sandbox: ctx.biz.payments === 'sandbox',
    provider: ctx.biz.payments,
    booking: bookingPageView(ctx, rec),
  };
  const ret = rec.priv.post_payment_return_request;
  // Checked when the booking was made; checked again here for bookings stored before that rule.
  if (ret && returnUrlProblem(ret.url, null, ctx.biz.allowLoopbackUrls) === null) {
    const u = new URL(ret.url);
    for (const [k, val] of Object.entries(ret.params ?? {})) u.searchParams.append(k, val);
    v.return_url = u.toString();
  }
  if (action?.payment_context) {
    v.amount_due = formatMoney(action.payment_context.amount_due, action.payment_context.currency);
    v.expires_at = formatInstant(Date.parse(action.expires_at), zone);
    const index = b.actions!.indexOf(action);
    const co = rec.priv.provider?.checkouts.find((c) => c.action_index === index && c.status === 'open');
    if (co?.url) v.pay_url = co.url;
    return { v, due: action.payment_context.amount_due };
  }
  return { v };
}

/** A booking reached by its own link (the buyer's page, its calendar file), after lazy expiry. */
export async function loadBookingByLink(ctx: OperationContext, bookingId: string): Promise<BookingRecord> {
  const rec = await ctx.tx.bookings.get(bookingId);
  if (!rec)
    throw new ProtocolError('not_found', 'There is no booking behind this link.', { detailCode: 'booking_not_found' });
  await expireIfDue(ctx, rec);
  return rec;
}
