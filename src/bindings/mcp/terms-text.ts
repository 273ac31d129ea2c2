/**
 * A service's terms and a booking's terms in the words an assistant relays: duration, price and
 * when it is paid, where, and what cancelling, rescheduling or missing it costs. A service says
 * each window as a length ("until 24 hours before"); a booking says it as the instant it closes,
 * or that it has closed and what the change costs now. The facts come from the operations
 * (serviceTerms), so the words follow the rules the operations apply.
 */
import {
  shortestWindowSeconds,
  type PaymentWindowSettings,
  type ServiceTerms,
  type WindowFacts,
} from '../../operations/index.js';
import { money, shortWhen } from './format.js';

export function lengthWords(ms: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (ms % 86_400_000 === 0 && ms >= 2 * 86_400_000) return plural(ms / 86_400_000, 'day');
  if (ms % 3_600_000 === 0) return plural(ms / 3_600_000, 'hour');
  return plural(Math.round(ms / 60_000), 'minute');
}

function durationWords(t: ServiceTerms): string | null {
  const d = t.durationMinutes;
  if (!d) return null;
  return d.min === d.max ? `${d.min} min` : `${d.min}-${d.max} min`;
}

function priceWords(t: ServiceTerms): string {
  const p = t.pricing;
  if (p.model === 'free' || p.amount === null) return 'free';
  const amount = money(p.amount, t.currency);
  if (p.model === 'per_person') return `${amount} per person`;
  if (p.model === 'hourly') return `${amount} per hour`;
  if (p.model === 'variable') return `from ${amount}`;
  return amount;
}

/**
 * The business's payment window (paymentDeadline's three settings) in words: the longest, the
 * closing before the start, and (in full) the floor that lets a person who booked at night pay.
 */
export function paymentWindowWords(w: PaymentWindowSettings, opts: { full: boolean }): string {
  const before =
    w.payment_due_before_start_seconds > 0
      ? `${lengthWords(w.payment_due_before_start_seconds * 1000)} before the start`
      : 'the start';
  const head = `open up to ${lengthWords(w.payment_ttl_seconds * 1000)} after booking, closing ${before} if that comes sooner`;
  return opts.full
    ? `${head}, but never less than ${lengthWords(shortestWindowSeconds(w) * 1000)} after booking (nor past the start)`
    : head;
}

/** When the price is paid, in words (with the payment link's window, compactly, when there is one). */
export function paymentWords(t: ServiceTerms): string {
  const p = t.payment;
  switch (p.timing) {
    case 'free':
      return 'nothing to pay';
    case 'at_booking':
      return `paid in full when booking, by a payment link${p.window ? ` (${paymentWindowWords(p.window, { full: false })})` : ''}`;
    case 'deposit_required':
      return `a ${p.deposit !== null ? money(p.deposit, t.currency) : ''} deposit${p.depositRefundable === false ? ' (not refundable)' : ''} paid when booking by a payment link${p.window ? ` (${paymentWindowWords(p.window, { full: false })})` : ''}, the rest at the appointment`.replace(
        'a  deposit',
        'a deposit',
      );
    default:
      return 'paid at the appointment (nothing online)';
  }
}

export function placeWords(t: ServiceTerms): string | null {
  if (t.atBuyer)
    return `at the person's address${t.atBuyer.serviceArea ? ` (area served: ${t.atBuyer.serviceArea})` : ''}; give delivery_address when booking`;
  if (t.places.length === 0) return null;
  return t.places.map((p) => (p.address ? `${p.name}, ${p.address}` : p.name)).join(' or ');
}

/** "Cancel: free until 24 hours before the start, then $20.00; not at all in the last 2 hours." */
function windowLengthWords(verb: string, w: WindowFacts, currency: string): string {
  if (!w.allowed) return `${verb}: not allowed`;
  // The policy's window is said even when no fee follows it, so the words match the policy object.
  if (!w.fee)
    return w.freeWindowMs === null
      ? `${verb}: free`
      : `${verb}: free until ${lengthWords(w.freeWindowMs)} before the start, and after that too (no fee is set)`;
  if (w.freeWindowMs === null) return `${verb}: ${money(w.fee, currency)} fee`;
  return `${verb}: free until ${lengthWords(w.freeWindowMs)} before the start, then ${money(w.fee, currency)}`;
}

/** The terms of a service in words, one clause each, joined with "; " (no final stop). */
export function serviceTermsWords(t: ServiceTerms): string[] {
  const out: string[] = [];
  let cancel = windowLengthWords('Cancel', t.cancel, t.currency);
  if (t.cancel.allowed && t.cancel.closedWindowMs !== null)
    cancel += `; no cancellation in the last ${lengthWords(t.cancel.closedWindowMs)}`;
  out.push(cancel);
  let resched = windowLengthWords('Reschedule', t.reschedule, t.currency);
  if (t.reschedule.allowed && t.reschedule.max !== null)
    resched += `; at most ${t.reschedule.max} time${t.reschedule.max === 1 ? '' : 's'}`;
  out.push(resched);
  out.push(
    t.noShow
      ? `No-show: ${money(t.noShow.fee, t.currency)}${t.noShow.graceMinutes ? ` (after ${t.noShow.graceMinutes} min late)` : ''}`
      : 'No-show: no fee',
  );
  return out;
}

/** One service as a model relays it before booking: every fact usp_services_get promises. */
export function serviceWords(id: string, t: ServiceTerms, opts: { business: boolean }): string {
  const head = [durationWords(t), priceWords(t), paymentWords(t)].filter(Boolean).join(', ');
  const where = placeWords(t);
  const parts = [`${t.serviceName} [${id}]${opts.business ? ` at ${t.business}` : ''}: ${head}.`];
  if (where) parts.push(`Where: ${where}.`);
  if (t.confirmation === 'manual')
    parts.push('The business confirms each request (the booking stays pending until then).');
  parts.push(`${serviceTermsWords(t).join('. ')}.`);
  return parts.join(' ');
}

const at = shortWhen;

/**
 * A booking's terms as they apply now: "Cancel: free until Thu 3 Dec 2026 9:00, then $20.00", or
 * once that has passed, what the change costs now and that a preview says it exactly.
 */
export function bookingTermsWords(
  t: ServiceTerms,
  startMs: number,
  nowMs: number,
  zone: string,
  noShowFee: number,
): string[] {
  const out: string[] = [];
  const line = (verb: string, tool: string, w: WindowFacts, extra: string) => {
    if (!w.allowed) return `${verb}: not allowed`;
    if (w.freeWindowMs === null) return `${verb}: free${extra}`;
    const deadline = startMs - w.freeWindowMs;
    if (!w.fee) return `${verb}: free until ${at(deadline, zone)}, and after that too (no fee is set)${extra}`;
    if (nowMs < deadline) return `${verb}: free until ${at(deadline, zone)}, then ${money(w.fee, t.currency)}${extra}`;
    return `${verb}: the free window closed ${at(deadline, zone)}; doing it now costs ${money(w.fee, t.currency)}${extra} (uspserver_bookings_quote with change ${tool} tells the exact fee first)`;
  };
  let closed = '';
  if (t.cancel.allowed && t.cancel.closedWindowMs !== null) {
    const from = startMs - t.cancel.closedWindowMs;
    closed =
      nowMs < from ? `; no cancellation after ${at(from, zone)}` : '; no longer possible (too close to the start)';
  }
  if (closed.startsWith('; no longer')) out.push('Cancel: no longer possible (too close to the start)');
  else out.push(line('Cancel', 'cancel', t.cancel, closed));
  out.push(
    line(
      'Reschedule',
      'reschedule',
      t.reschedule,
      t.reschedule.max !== null ? `; at most ${t.reschedule.max} time${t.reschedule.max === 1 ? '' : 's'} in all` : '',
    ),
  );
  const grace = t.noShow?.graceMinutes;
  out.push(
    noShowFee > 0
      ? `No-show: ${money(noShowFee, t.currency)}${grace ? ` (after ${grace} min late)` : ''}`
      : 'No-show: no fee',
  );
  return out;
}
