/**
 * The text of a booking, a list of bookings and a waitlist entry: what the person must hear of
 * each, in the business's time zone, with the terms as they apply to this booking now.
 */
import {
  bookingNoShowFee,
  moneyFacts,
  paymentWindowOf,
  serviceTerms,
  type Business,
  type BookingFactsInput,
} from '../../operations/index.js';
import { money, when } from './format.js';
import { lengthWords, paymentWindowWords, placeWords } from './terms-text.js';
import { laterAccess, RENEW_TOOL } from './next-steps.js';
import { bookingTermsWords } from './terms-text.js';

export interface BookingTextContext {
  zone: string;
  currency: string;
  business?: Business;
  now?: number;
  /** The caller's platform profile says it tells the buyer itself (the business then sends no booking mail). */
  platformTells?: boolean;
  /** The links name an address only the business's own machine opens (no public URL, caller elsewhere). */
  linksUnreachable?: boolean;
}

const LIVE = new Set(['pending', 'requires_action', 'confirmed']);

/**
 * The money of a booking in words, from its money facts (moneyFacts, over the booking object the
 * result carries) and from nothing else: what was paid, what is due now and by when, what is left
 * for the appointment, what is owed, the fee and the refund.
 */
function paymentLines(b: Record<string, any>, ctx: BookingTextContext): string[] {
  const lines: string[] = [];
  const m = moneyFacts(b as BookingFactsInput);
  const cur = m.currency ?? ctx.currency;
  const $ = (n: number) => money(n, cur);
  if (b.status === 'requires_action' && m.payNow) {
    const w = ctx.business ? paymentWindowOf(ctx.business) : null;
    const window = w
      ? ` The business's payment window: a link is ${paymentWindowWords(w, { full: true })}. If it lapses while the time is still free, ${RENEW_TOOL} gives a fresh link instead of booking again.`
      : '';
    const already = m.paid > 0 ? ` (${$(m.paid)} is already paid online)` : '';
    lines.push(
      `NOT confirmed and NOT paid yet: the person must pay ${$(m.payNow.amount)}${already} at ${m.payNow.url} before ${when(m.payNow.until, ctx.zone)}, or the booking is canceled and the time freed.${window}${ctx.linksUnreachable ? '' : ' Give them that link exactly.'}`,
    );
    if (m.atAppointment > 0)
      lines.push(
        `${m.timing === 'deposit_required' && m.paid === 0 ? 'That is the deposit; the other' : 'After that,'} ${$(m.atAppointment)} is paid at the appointment.`,
      );
    return lines;
  }
  if (!b.payment) return lines;
  const status = `payment.status ${m.status}`;
  if (b.status === 'canceled') {
    if (m.paid > 0) lines.push(`${$(m.paid)} was paid online (${status}).`);
  } else if (LIVE.has(b.status) || m.paid > 0 || m.owed > 0) {
    const refunded =
      m.refundState === 'full'
        ? ', since refunded in full'
        : m.refundState === 'partial'
          ? ', since partly refunded'
          : '';
    if (m.paid === 0 && m.atAppointment > 0)
      lines.push(`Nothing is paid online (${status}): ${$(m.atAppointment)} is paid at the appointment.`);
    else if (m.paid > 0 && m.atAppointment > 0)
      lines.push(
        `Paid ${$(m.paid)} online${refunded} (${status}); ${$(m.atAppointment)} is still paid at the appointment.`,
      );
    else if (m.paid > 0)
      lines.push(
        `Paid ${$(m.paid)} online${refunded} (${status})${m.owed || m.payNow ? '.' : '; nothing is left to pay at the appointment.'}`,
      );
    if (m.payNow)
      lines.push(
        `${$(m.payNow.amount)} is due through the payment link ${m.payNow.url} before ${when(m.payNow.until, ctx.zone)}.`,
      );
  }
  if (m.owed > 0) lines.push(`${$(m.owed)} is due from the person (booking.payment.amount_due).`);
  return lines;
}

/** The cancellation's fee and refund, and whether the refund has been made or only asked for. */
function cancellationLine(b: Record<string, any>, ctx: BookingTextContext): string {
  const m = moneyFacts(b as BookingFactsInput);
  const $ = (n: number) => money(n, m.currency ?? ctx.currency);
  const fee = m.fee ? `fee ${$(m.fee)}` : 'no fee';
  let refund = 'nothing to refund';
  if (m.refund) {
    refund =
      m.refundState === 'requested'
        ? `refund ${$(m.refund)}, on its way to the way they paid (not yet made: the payment block shows refunded once it is)`
        : `refund ${$(m.refund)}, made (payment.status ${m.status})`;
  }
  return `Canceled by ${b.cancellation.canceled_by}; ${fee}, ${refund}.`;
}

/** Canceled by the system because its payment action lapsed (what the renewal tool takes). */
function lapsedUnpaid(b: Record<string, any>): boolean {
  return (
    b.status === 'canceled' &&
    b.cancellation?.canceled_by === 'system' &&
    Array.isArray(b.actions) &&
    b.actions.some((a: any) => a.type === 'payment' && a.status === 'expired')
  );
}

/** One booking in full: every fact the booking tools tell the assistant to relay. */
export function bookingText(b: Record<string, any>, ctx: BookingTextContext): string {
  const biz = ctx.business;
  const service = biz ? serviceTerms(biz, String(b.service_id)) : null;
  const head = `Booking ${b.id}: ${b.service_name}${biz ? ` at ${biz.def.business.name}` : ''}, ${when(b.slot?.start, ctx.zone)}; status ${b.status}${b.party_size > 1 ? `, party of ${b.party_size}` : ''}.`;
  const lines = [head];
  if (b.resources?.length) lines.push(`With ${b.resources.map((r: any) => `${r.name} (${r.id})`).join(', ')}.`);
  const place = b.location?.id && biz ? biz.def.business.locations.find((l) => l.id === b.location.id) : undefined;
  if (place) lines.push(`At ${place.name}${place.address ? `, ${place.address}` : ''}.`);
  else if (b.location?.name) lines.push(`At ${b.location.name}.`);
  else if (service?.atBuyer && b.delivery_address)
    lines.push(`At ${[b.delivery_address.line1, b.delivery_address.city].filter(Boolean).join(', ')}.`);
  else if (service && !b.location) {
    const where = placeWords(service);
    if (where) lines.push(`Where: ${where}.`);
  }
  lines.push(...paymentLines(b, ctx));
  if (b.status === 'pending') {
    const by = b.expires_at ? ` by ${when(b.expires_at, ctx.zone)}` : '';
    lines.push(
      `Waiting for the business to confirm${by}; it is not confirmed yet. ${hearWords(ctx, b.buyer?.email, 'whether it is confirmed or declined')}${by ? ` If the business has not answered${by}, the request lapses: the booking is canceled by the system, the time freed and anything paid refunded.` : ''}`,
    );
  } else if (b.status === 'requires_action' && moneyFacts(b as BookingFactsInput).payNow)
    lines.push(hearWords(ctx, b.buyer?.email, 'the payment link and its deadline'));
  if (b.status === 'canceled' && b.cancellation) lines.push(cancellationLine(b, ctx));
  if (lapsedUnpaid(b))
    lines.push(
      `The payment link lapsed unpaid, so the system canceled it. While the time is still free, ${RENEW_TOOL} with booking_id ${b.id} makes the same booking again with a fresh payment link.`,
    );
  const startMs = Date.parse(b.slot?.start);
  if (service && biz && LIVE.has(b.status) && !Number.isNaN(startMs)) {
    const durationMs = Math.max(0, Date.parse(b.slot?.end) - startMs) || 0;
    const noShow = bookingNoShowFee(biz, String(b.service_id), Number(b.party_size) || 1, durationMs);
    const terms = bookingTermsWords(service, startMs, ctx.now ?? Date.now(), ctx.zone, noShow);
    lines.push(`${terms.join('. ')}.`);
  }
  if (b.revision) lines.push(`Revision ${b.revision}.`);
  return lines.join(' ');
}

/** A page of bookings: one line each (id, service, time, status), and how to read the next page. */
export function bookingsText(
  bookings: Array<Record<string, any>>,
  pagination: Record<string, any> | undefined,
  ctx: BookingTextContext,
): string {
  if (bookings.length === 0) return 'No bookings found for this person at this business.';
  const counts = new Map<string, number>();
  for (const b of bookings) counts.set(b.status, (counts.get(b.status) ?? 0) + 1);
  const tally = [...counts].map(([s, n]) => `${n} ${s}`).join(', ');
  const nowMs = ctx.now ?? Date.now();
  const lines = bookings.map((b) => {
    const past = Date.parse(b.slot?.start) < nowMs ? ' (past)' : '';
    return `- ${b.id}: ${b.service_name}, ${when(b.slot?.start, ctx.zone)}${past}; ${b.status}${b.resources?.length ? `; with ${b.resources.map((r: any) => r.name).join(', ')}` : ''}`;
  });
  const more = pagination?.has_more
    ? `More follow: call again with cursor "${pagination.next_cursor}".`
    : 'That is every booking.';
  return `${bookings.length} booking${bookings.length === 1 ? '' : 's'} (${tally}), newest first; read one with usp_bookings_get for its terms. ${more}\n${lines.join('\n')}`;
}

/** A waitlist entry: position, how an offer reaches the person, how long it stays open. */
export function entryText(
  e: Record<string, any>,
  ctx: BookingTextContext,
  credential: Record<string, any> | undefined,
): string {
  const party = typeof e.party_size === 'number' && e.party_size > 1 ? e.party_size : null;
  let t = `Waitlist entry ${e.id}: ${e.status}, position ${e.position}${party ? `, party of ${party}` : ''}.`;
  if (e.status === 'offered' && e.offered_slot)
    t += ` ${party ? `Places for the whole party of ${party} are` : 'A place is'} offered at ${when(e.offered_slot.start, ctx.zone)}; accept with usp_waitlist_accept before ${when(e.offer_expires_at, ctx.zone)}. ${hearWords(ctx, e.buyer?.email, 'the offer, with a link to accept or decline it')} If nobody accepts by then, the offer passes to the next in line and this entry ends (expired).`;
  if (e.status === 'waiting') {
    const ttl = ctx.business?.def.settings.waitlist_offer_ttl_seconds;
    t +=
      ` Nothing is booked. When ${party ? `${party} places free together, the business offers them to the first in line whose party fits` : 'a place frees, the business offers it to the first in line'}: your platform receives a waitlist.offered webhook event (and, in this MCP session, a notification on the webhook resource named in _meta["dev.usp-server/webhook_resource"]); the entry then reads status offered with offered_slot and offer_expires_at (usp_waitlist_get).` +
      `${ttl ? ` An offer stays open ${lengthWords(ttl * 1000)};` : ''} the person must accept it with usp_waitlist_accept before it expires, or it passes to the next in line. ${hearWords(ctx, e.buyer?.email, 'an offer when one is made, with a link to accept or decline it')}`;
  }
  if (credential) t += ` ${laterAccess('entry', String(e.id))}`;
  return t;
}

/**
 * Who tells the person, as the platform's profile and the business's mail decide: the business
 * mails the address given, or the platform does (its profile says it tells the buyer itself), or,
 * when this server sends no mail, nobody but the assistant.
 */
function hearWords(ctx: BookingTextContext, email: unknown, what: string): string {
  if (ctx.platformTells)
    return `Your platform tells the person ${what} (its profile says it sends the buyer's messages): the business sends them no mail; your platform hears of it by its webhook events.`;
  if (ctx.business?.mailSent && typeof email === 'string') return `The business mails ${email} ${what}.`;
  return `The business sends no mail from this server, so nobody else tells the person ${what}: tell them yourself (your platform hears of it by its webhook events; usp_bookings_get and usp_waitlist_get read the state).`;
}
