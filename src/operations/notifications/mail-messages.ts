/**
 * Which messages a committed change sends to people, decided in the change's own transaction: the
 * pipeline (and the sweeper) hand the events a call raised to `queueMailForEvents`, and the
 * creation of a booking that waits for a payment or for the business calls `queueBookingWaiting`.
 * Each message is a row of the mail outbox keyed by what caused it, its kind and its recipient, so
 * that a retried transaction, an idempotent replay or a second process queues it once; the mail
 * worker renders and sends it after commit.
 *
 * Transactional messages always go. A reminder does not when the business turned reminders off
 * (`settings.mail_reminders`) or the buyer did (the link in each reminder). When the platform that
 * made a booking said it sends its own messages (`dev.usp-server.buyer_messages` among its profile's
 * capabilities, remembered on the booking), the business sends none about it: the platform has every
 * fact in its webhooks.
 */
import type { BookingRecord } from '../../domain/index.js';
import type { OutboxEvent, Tx } from '../../store/index.js';
import { issueCredential } from '../../security/index.js';
import type { Business } from '../business.js';
import type { OperationContext } from '../core/context.js';

/** The platform capability that says it tells buyers itself. */
export const PLATFORM_MESSAGES_CAPABILITY = 'dev.usp-server.buyer_messages';

export type MailKind =
  | 'booking_confirmed'
  | 'booking_requested'
  | 'booking_declined'
  | 'payment_needed'
  | 'booking_rescheduled'
  | 'booking_canceled'
  | 'refund_issued'
  | 'reminder'
  | 'waitlist_offer'
  | 'signup_code'
  | 'password_reset'
  | 'owner_invite';

/**
 * A recipient address of a plausible form (one @, a dotted domain, nothing a header could be split
 * on), and not under `.invalid` (RFC 2606): the placeholder of a walk-in who gave only a phone, and
 * an erased buyer, are nobody's mailbox.
 */
export function mailableAddress(s: unknown): s is string {
  return (
    typeof s === 'string' &&
    s.length <= 254 &&
    /^[^\s@<>()",;:\\[\]]+@[^\s@<>()",;:\\[\]]+\.[^\s@<>()",;:\\[\]]+$/.test(s) &&
    !/\.invalid$/i.test(s)
  );
}

/** Turned off for this booking's reminders by the buyer (the link in a reminder). */
export const reminderOptOutKey = (bookingId: string) => `mail:reminders_off:${bookingId}`;

/**
 * The facts a booking message is rendered from, as of the change (the mail worker turns them into
 * the booking page's view: names, time, place, price and balance, terms): the booking, the private
 * facts that view needs, and the payment due.
 */
function bookingPayload(_biz: Business, rec: BookingRecord): Record<string, unknown> {
  const p = rec.priv;
  const pay = rec.booking.actions?.find((a) => a.type === 'payment' && a.status === 'pending');
  return {
    booking: rec.booking,
    priv: {
      start_ms: p.start_ms,
      end_ms: p.end_ms,
      price_total: p.price_total,
      amount_paid: p.amount_paid,
      reschedule_count: p.reschedule_count,
      confirmed_once: p.confirmed_once ?? false,
    },
    ...(pay
      ? {
          payment: {
            url: pay.continue_url,
            expires_at: pay.expires_at,
            amount: pay.payment_context?.amount_due ?? 0,
            currency: pay.payment_context?.currency ?? '',
          },
        }
      : {}),
  };
}

/** The language a message is written in, recorded on its row: the buyer's when the call that made the booking or entry said it, else the business's. */
function localeOf(biz: Business, rec: { priv: { locale?: string } }): string | null {
  return rec.priv.locale ?? biz.def.business.locale ?? null;
}

async function queue(
  tx: Tx,
  cause: string,
  kind: MailKind,
  subject: string,
  to: unknown,
  payload: Record<string, unknown>,
  locale: string | null,
  now: number,
  dueMs = now,
): Promise<void> {
  if (!mailableAddress(to)) return;
  await tx.mail.enqueue({
    id: `${cause}|${kind}|${to.toLowerCase()}`,
    kind,
    subject_id: subject,
    recipient: to,
    locale,
    payload,
    due_ms: dueMs,
    created_ms: now,
  });
}

/** The booking's buyer, and the person it is for when someone else booked it (both are told). */
function recipientsOf(rec: BookingRecord): string[] {
  const out = [rec.booking.buyer.email];
  const other = rec.booking.recipient?.email;
  if (other && other.toLowerCase() !== rec.booking.buyer.email.toLowerCase()) out.push(other);
  return out;
}

/** What a booking event tells the buyer, if anything. */
function bookingKind(event: string, rec: BookingRecord): MailKind | null {
  switch (event) {
    case 'booking.confirmed':
      return 'booking_confirmed';
    case 'booking.rescheduled':
      return 'booking_rescheduled';
    case 'booking.refund_issued':
      return 'refund_issued';
    case 'booking.reminder':
      return 'reminder';
    case 'booking.canceled':
      // A manual booking the business turned down before ever confirming it was declined, not canceled.
      return rec.booking.confirmation_mode === 'manual' &&
        !rec.priv.confirmed_once &&
        rec.booking.cancellation?.canceled_by === 'business'
        ? 'booking_declined'
        : 'booking_canceled';
    default:
      return null;
  }
}

/** Events after which a booking's queued reminder no longer stands (a new one, if any, is queued after). */
const ENDS_REMINDER = new Set(['booking.canceled', 'booking.rescheduled', 'booking.completed', 'booking.no_show']);

/** Queue the messages the events of one transaction send (called in that transaction, after its outbox rows). */
export async function queueMailForEvents(
  tx: Tx,
  biz: Business,
  events: readonly OutboxEvent[],
  now: number,
  created: ReadonlySet<string> = new Set(),
): Promise<void> {
  const bookings = new Map<string, BookingRecord | null>();
  const load = async (id: string) => {
    if (!bookings.has(id)) bookings.set(id, await tx.bookings.get(id));
    return bookings.get(id) ?? null;
  };
  // One booking page link per booking for all of this call's messages (a confirmation and its
  // reminder): the same credential, issued once.
  const links = new Map<string, string>();
  const linkOf = async (rec: BookingRecord) => {
    let link = links.get(rec.booking.id);
    if (link === undefined) links.set(rec.booking.id, (link = await manageLink(tx, rec)));
    return link;
  };
  for (const e of events) {
    if (ENDS_REMINDER.has(e.event) && typeof e.payload.booking_id === 'string')
      await tx.mail.cancelQueued(e.payload.booking_id, 'reminder');
  }
  for (const e of events) {
    if (e.event.startsWith('booking.') && typeof e.payload.booking_id === 'string') {
      const rec = await load(e.payload.booking_id);
      if (!rec || rec.priv.platform_messages) continue;
      // The booking as the event saw it (a later event of the same call may have moved it on).
      const at: BookingRecord = {
        booking: (e.payload.data as BookingRecord['booking']) ?? rec.booking,
        priv: rec.priv,
      };
      const kind = bookingKind(e.event, at);
      if (!kind) continue;
      if (kind === 'reminder' && !(await remindersOn(tx, biz, at.booking.id, created.has(at.booking.id)))) continue;
      // A refund's message says how much came back (the event's amount: one of several refunds, or a dispute's).
      const payload: Record<string, unknown> = {
        ...bookingPayload(biz, at),
        ...(typeof e.payload.refund_amount === 'number' ? { refund_amount: e.payload.refund_amount } : {}),
      };
      // A booking that can still change: the link lets the buyer cancel or move it herself.
      if (LIVE.has(at.booking.status) && recipientsOf(at).length > 0) payload.manage_path = await linkOf(rec);
      for (const to of recipientsOf(at))
        await queue(
          tx,
          e.event_id,
          kind,
          at.booking.id,
          to,
          payload,
          localeOf(biz, at),
          now,
          kind === 'reminder' ? e.due_ms : now,
        );
    } else if (e.event === 'waitlist.spot_offered' && typeof e.payload.entry_id === 'string') {
      const rec = await tx.waitlist.get(e.payload.entry_id);
      if (!rec || rec.priv.platform_messages) continue;
      if (!mailableAddress(rec.entry.buyer.email)) continue;
      const offerPath = await offerLink(
        tx,
        rec.entry.id,
        rec.priv.principal,
        rec.priv.offer_expires_ms ?? now + OFFER_LINK_GRACE_MS,
      );
      await queue(
        tx,
        e.event_id,
        'waitlist_offer',
        rec.entry.id,
        rec.entry.buyer.email,
        { entry: e.payload.data ?? rec.entry, offer_path: offerPath },
        localeOf(biz, rec),
        now,
      );
    }
  }
}

/** How long after the offer's deadline its link still opens the page (to say it expired, not "unknown link"). */
const OFFER_LINK_GRACE_MS = 86_400_000;

/**
 * The offer page's link: the entry's own credential, unbound (a browser proves no key) and issued
 * for the person the mail goes to, so the page acts as the entry and nobody else. It stops working
 * once the offer is answered or lapses (the entry's credentials are revoked then).
 */
async function offerLink(tx: Tx, entryId: string, principal: string | null, offerEndsMs: number): Promise<string> {
  const c = await issueCredential(tx.security, {
    kind: 'waitlist_entry',
    resourceId: entryId,
    jkt: null,
    principal,
    expiresMs: offerEndsMs + OFFER_LINK_GRACE_MS,
  });
  return `/waitlist/${encodeURIComponent(entryId)}/offer?token=${encodeURIComponent(c.value)}`;
}

const LIVE = new Set(['confirmed', 'pending', 'requires_action']);

/**
 * The booking page's link with the booking's own credential, unbound (a browser proves no key) and
 * issued for the booking's principal, as the offer link is: the page cancels or moves this booking
 * and nothing else, under the business's policy, until a day after it ends.
 */
async function manageLink(tx: Tx, rec: BookingRecord): Promise<string> {
  const c = await issueCredential(tx.security, {
    kind: 'booking',
    resourceId: rec.booking.id,
    jkt: null,
    principal: rec.priv.principal,
    expiresMs: rec.priv.end_ms + 86_400_000,
  });
  return `/booking/${encodeURIComponent(rec.booking.id)}?token=${encodeURIComponent(c.value)}`;
}

/** Whether the booking's reminder is sent: the business sends reminders and the buyer has not stopped them (a booking created by this call has not, so nothing is read). */
async function remindersOn(tx: Tx, biz: Business, bookingId: string, createdHere: boolean): Promise<boolean> {
  if (biz.def.settings.mail_reminders === false) return false;
  if (createdHere) return true;
  return (await tx.kv.get(reminderOptOutKey(bookingId))) === null;
}

/**
 * A new booking that waits (for its payment, or for the business to accept it) has no event yet:
 * the buyer is told what is due and by when, or that the business will answer.
 */
export async function queueBookingWaiting(ctx: OperationContext, rec: BookingRecord): Promise<void> {
  if (rec.priv.platform_messages) return;
  const b = rec.booking;
  const kind: MailKind | null = b.actions?.some((a) => a.type === 'payment' && a.status === 'pending')
    ? 'payment_needed'
    : b.status === 'pending'
      ? 'booking_requested'
      : null;
  if (!kind) return;
  const to = recipientsOf(rec);
  if (to.length === 0) return;
  const payload: Record<string, unknown> = {
    ...bookingPayload(ctx.biz, rec),
    manage_path: await manageLink(ctx.tx, rec),
  };
  for (const address of to)
    await queue(ctx.tx, `${b.id}:created`, kind, b.id, address, payload, localeOf(ctx.biz, rec), ctx.now);
}

/** Remember that the booking's platform tells the buyer itself (its profile says so). */
export function platformSendsMessages(ctx: OperationContext): boolean {
  return ctx.caller.platform?.capabilities.includes(PLATFORM_MESSAGES_CAPABILITY) ?? false;
}

/** Remember the language the creating call asked for, so every later mail about the booking or entry (a reminder, a cancellation by the business) is in it. */
export function rememberLocale(ctx: OperationContext, rec: { priv: { locale?: string } }): void {
  if (ctx.locale) rec.priv.locale = ctx.locale;
}

/** The entry's version of the same choice. */
export function markPlatformMessages(ctx: OperationContext, rec: { priv: { platform_messages?: boolean } }): void {
  if (platformSendsMessages(ctx)) rec.priv.platform_messages = true;
}
