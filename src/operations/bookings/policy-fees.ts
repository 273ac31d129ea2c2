/**
 * A policy fee (a late reschedule, a no-show) is never dropped, whatever the payment timing: it is
 * recorded on the booking's `payment` (collected with the price at the appointment, or due now)
 * and stated in a warning. Fees collected online before the booking counts again are the
 * reschedule's payment action (reschedule-booking.ts); this covers every other case.
 */
import { formatMoney, warningMessage, type BookingRecord, type Message, type ServiceDef } from '../../domain/index.js';

function paymentOf(rec: BookingRecord, service: ServiceDef): NonNullable<BookingRecord['booking']['payment']> {
  const b = rec.booking;
  b.payment ??= {
    status: 'not_required',
    timing: service.policies.payment_timing ?? 'at_service',
    amount: rec.priv.price_total,
    currency: service.pricing.currency,
    amount_due: 0,
  };
  return b.payment;
}

/** A late-reschedule fee for a booking not paid online: added to what is collected at the appointment. */
export function feeAtService(rec: BookingRecord, service: ServiceDef, fee: number, window: string): Message {
  const p = paymentOf(rec, service);
  rec.priv.fees_at_service = (rec.priv.fees_at_service ?? 0) + fee;
  p.amount = rec.priv.price_total + rec.priv.fees_at_service;
  const money = (n: number) => formatMoney(n, service.pricing.currency);
  return warningMessage(
    'late_reschedule_fee',
    `A late-reschedule fee of ${money(fee)} applies (moved ${window}): it is added to what is paid at the appointment, ${money(p.amount)} in all (booking.payment.amount).`,
    '$.booking.payment.amount',
  );
}

/** The no-show fee: kept from what was paid, the rest due from the buyer (booking.payment.amount_due). */
export function noShowCharge(rec: BookingRecord, service: ServiceDef, fee: number): Message {
  const p = paymentOf(rec, service);
  const kept = Math.min(fee, rec.priv.amount_paid);
  const owed = fee - kept;
  p.amount_due = owed;
  if (owed > 0) p.status = 'pending';
  const money = (n: number) => formatMoney(n, service.pricing.currency);
  const settled =
    owed > 0
      ? `${money(owed)} is due from the buyer (booking.payment.amount_due)`
      : `it is kept from the ${money(rec.priv.amount_paid)} paid`;
  return warningMessage(
    'no_show_fee',
    `A no-show fee of ${money(fee)} applies: ${settled}.`,
    '$.booking.payment.amount_due',
  );
}

/** "24 hours", "7 days", "90 minutes": a policy window as people say it. */
export function spokenDuration(ms: number): string {
  const hours = ms / 3_600_000;
  if (Number.isInteger(hours) && hours % 24 === 0 && hours >= 48) return `${hours / 24} days`;
  if (Number.isInteger(hours)) return hours === 1 ? '1 hour' : `${hours} hours`;
  const minutes = Math.round(ms / 60_000);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}
