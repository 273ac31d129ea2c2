/**
 * Money (spec 3.8, 5.3.5, 8.5.7): everything in integer minor units of the business currency.
 */
import type { ServiceDef } from './business.js';

/** Total price of one booking of `service` for `partySize` lasting `durationMs`. */
export function bookingPrice(service: ServiceDef, partySize: number, durationMs: number): number {
  const p = service.pricing;
  const amount = p.amount ?? p.price_range?.min ?? 0;
  switch (p.model) {
    case 'free':
      return 0;
    case 'per_person':
      return amount * partySize;
    case 'hourly':
      return Math.round((amount * durationMs) / 3_600_000);
    default:
      return amount;
  }
}

/** The amount collected before confirmation: all of it, the deposit, or nothing. */
export function amountDueAtBooking(service: ServiceDef, total: number): number {
  const pol = service.policies;
  if (!pol.requires_payment) return 0;
  if (pol.payment_timing === 'at_booking') return total;
  if (pol.payment_timing === 'deposit_required') {
    const d = service.pricing.deposit;
    if (!d) return total;
    return d.type === 'fixed' ? Math.min(d.value, total) : Math.round((total * d.value) / 100);
  }
  return 0;
}

export interface CancellationTerms {
  allowed: boolean;
  fee: number;
  refund: number;
  /** Why cancellation is refused, when it is. */
  reason?: 'not_allowed' | 'too_late';
}

/**
 * What cancelling costs at `nowMs` for a booking starting at `startMs` (spec 3.9, 5.3.5):
 * inside the free window the fee is 0 and everything collected comes back; after it the late fee
 * is kept (never more than what was collected for the refund); past `no_cancellation_after`
 * cancellation is refused. A business-initiated cancel is always free and fully refunded.
 */
export function cancellationTerms(
  service: ServiceDef,
  startMs: number,
  nowMs: number,
  amountPaid: number,
  byBusiness: boolean,
  parseDuration: (iso: string) => number,
  price = 0,
): CancellationTerms {
  if (byBusiness) return { allowed: true, fee: 0, refund: amountPaid };
  const c = service.policies.cancellation;
  if (!c.allowed) return { allowed: false, fee: 0, refund: 0, reason: 'not_allowed' };
  const before = startMs - nowMs;
  if (c.no_cancellation_after && before < parseDuration(c.no_cancellation_after)) {
    return { allowed: false, fee: 0, refund: 0, reason: 'too_late' };
  }
  const freeUntil = c.free_cancellation_until ? parseDuration(c.free_cancellation_until) : 0;
  const late = before < freeUntil;
  let fee = late ? lateCancellationFee(service, price) : 0;
  // A non-refundable deposit is kept as the fee when cancelling late.
  const dep = service.pricing.deposit;
  if (late && dep && dep.refundable === false && service.policies.payment_timing === 'deposit_required')
    fee = Math.max(fee, amountPaid);
  const refund = Math.max(0, amountPaid - fee);
  return { allowed: true, fee, refund };
}

export interface RescheduleTerms {
  allowed: boolean;
  fee: number;
  reason?: 'not_allowed' | 'limit_reached';
}

export function rescheduleTerms(
  service: ServiceDef,
  startMs: number,
  nowMs: number,
  rescheduleCount: number,
  parseDuration: (iso: string) => number,
): RescheduleTerms {
  const r = service.policies.rescheduling;
  if (!r.allowed) return { allowed: false, fee: 0, reason: 'not_allowed' };
  if (r.max_reschedules !== undefined && rescheduleCount >= r.max_reschedules) {
    return { allowed: false, fee: 0, reason: 'limit_reached' };
  }
  const freeUntil = r.free_reschedule_until ? parseDuration(r.free_reschedule_until) : 0;
  const fee = startMs - nowMs < freeUntil ? (r.fee ?? 0) : 0;
  return { allowed: true, fee };
}

/** The late-cancellation fee of a booking priced `price` (spec-next 3.9): the fixed fee, else the percentage of the price, else 0. */
export function lateCancellationFee(service: ServiceDef, price: number): number {
  const c = service.policies.cancellation;
  if (c.late_cancellation_fee !== undefined) return c.late_cancellation_fee;
  if (c.late_cancellation_fee_percentage !== undefined)
    return Math.round((price * c.late_cancellation_fee_percentage) / 100);
  return 0;
}

/** The no-show fee of a booking priced `price` (spec 3.9): the fixed fee, else the percentage of the price, else 0. */
export function noShowFee(service: ServiceDef, price: number): number {
  const ns = service.policies.no_show;
  if (!ns) return 0;
  if (ns.fee !== undefined) return ns.fee;
  if (ns.fee_percentage !== undefined) return Math.round((price * ns.fee_percentage) / 100);
  return 0;
}
