/**
 * The full card of one service, for `usp_services_get` (the list keeps one line each): who delivers
 * it (names and resource ids to filter by), whether the business confirms by hand and how long it
 * takes, the business's time zone, the payment window, what a late cancellation keeps of a deposit,
 * how refunds are paid back, and how to reach the business. From the business definition the
 * operations compiled, so it says what the operations apply.
 */
import type { Business, ServiceTerms } from '../../operations/index.js';
import { money, zoneLabel } from './format.js';
import { contactWords } from './next-steps.js';
import { lengthWords, paymentWindowWords } from './terms-text.js';
import { RENEW_TOOL } from './next-steps.js';

function deliveredBy(biz: Business, serviceId: string): string | null {
  const s = biz.services.get(serviceId);
  if (!s || s.requirements.length === 0) return null;
  const groups = s.requirements.map((r) => {
    const who = r.resource_ids.map((id) => `${biz.resources.get(id)?.name ?? id} (${id})`).join(', ');
    return `${r.name ?? r.type}: ${r.resource_ids.length > 1 ? 'one of ' : ''}${who}`;
  });
  return `Delivered by ${groups.join('; ')}. To book with one of them, pass its id as resource_id to usp_availability_query.`;
}

function refundWords(biz: Business, t: ServiceTerms): string {
  if (t.payment.timing === 'free' || t.payment.timing === 'at_service')
    return 'Nothing is paid online, so nothing is refunded online.';
  const how =
    biz.payments === 'sandbox'
      ? 'this is a sandbox business: no money moves, and a refund is recorded at once'
      : biz.provider
        ? `a refund goes back to the card or account used to pay, through ${biz.provider.label}, and is recorded once ${biz.provider.label} confirms it (the bank then takes its own time to show it)`
        : "a refund goes back through the business's payment provider, the way the person paid";
  let deposit = '';
  const nonRefundable = t.payment.depositRefundable === false;
  if (
    t.payment.timing === 'deposit_required' &&
    t.payment.deposit !== null &&
    t.cancel.allowed &&
    (t.cancel.fee || nonRefundable)
  ) {
    // A late cancellation keeps its fee from what was paid, and all of a deposit marked not refundable (cancellationTerms).
    const kept = nonRefundable ? t.payment.deposit : Math.min(t.cancel.fee, t.payment.deposit);
    deposit =
      kept >= t.payment.deposit
        ? ` Cancelling after the free window keeps the whole ${money(t.payment.deposit, t.currency)} deposit (${nonRefundable ? 'it is not refundable' : `the fee is ${money(t.cancel.fee, t.currency)}`}); before it, the deposit comes back in full.`
        : ` Cancelling after the free window keeps ${money(kept, t.currency)} of the ${money(t.payment.deposit, t.currency)} deposit; before it, the deposit comes back in full.`;
  }
  return `Refunds: ${how}.${deposit}`;
}

/** The card's sentences, after the service's own line (serviceWords). */
export function serviceCard(biz: Business, serviceId: string, t: ServiceTerms): string {
  const parts: string[] = [];
  // A service served `suspended` (the business suspended by its operator, or no online payment) says so first, with why.
  const why = biz.suspendedWhy.get(serviceId);
  if (why) parts.push(`This service is suspended. ${why}`);
  const who = deliveredBy(biz, serviceId);
  if (who) parts.push(who);
  const settings = biz.def.settings;
  parts.push(
    t.confirmation === 'manual'
      ? `The business confirms each request by hand, within ${lengthWords(settings.manual_confirmation_ttl_seconds * 1000)} (never later than the start); unanswered by then, the request lapses and the time is freed.`
      : 'Booked at once: the business does not confirm by hand.',
  );
  parts.push(`Times are in ${zoneLabel(biz.zone)}.`);
  if (t.payment.window) {
    parts.push(
      `Payment window: the payment link is ${paymentWindowWords(t.payment.window, { full: true })}; unpaid by then, the booking is canceled and the time freed. If the link lapses while the time is still free, ${RENEW_TOOL} with the booking_id gives a fresh link instead of booking again.`,
    );
  }
  parts.push(refundWords(biz, t));
  parts.push(`Questions about a booking: ${contactWords(biz)}.`);
  return parts.join(' ');
}
