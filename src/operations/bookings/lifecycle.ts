/**
 * The booking lifecycle shared by the booking and waitlist operations: making a booking out of a
 * validated slot, moving it through the state machine, expiring what waited too long, and freeing
 * its slot (which may offer the place to the waitlist).
 */
import {
  type ServiceDef,
  initialBookingStatus,
  amountDueAtBooking,
  bookingPrice,
  formatMoney,
  type Action,
  type Booking,
  type BookingRecord,
  type Buyer,
  type DeliveryAddress,
  type HoldRecord,
  type SlotCandidate,
  formatDuration,
  formatInstant,
  infoMessage,
  errorMessage,
  noShowFee,
  paymentDeadline,
} from '../../domain/index.js';
import { noShowCharge } from './policy-fees.js';
import { MissingResource, ProtocolError } from '../core/errors.js';
import { ok, requireBusiness, type OperationResult } from '../core/define.js';
import { iso, mayAct, newRevision, type OperationContext } from '../core/context.js';
import { claimRows, slotResources } from '../availability/slots.js';
import { enterHoldStatus } from '../waitlist/offers.js';
import { queueCheckouts, returnPageUrl, trackCheckout } from '../payments/checkouts.js';
import { markPlatformMessages, queueBookingWaiting, rememberLocale } from '../notifications/mail-messages.js';
import { enterInitialStatus, scheduleReminder, startsConfirmed, transition } from './effects.js';

export {
  emitBookingEvent,
  move,
  movePayment,
  remindIfInsideWindow,
  scheduleReminder,
  stateConflict,
  touch,
  transition,
} from './effects.js';

export interface NewBooking {
  service: ServiceDef;
  slot: SlotCandidate;
  buyer: Buyer;
  recipient?: Buyer;
  partySize: number;
  deliveryAddress?: DeliveryAddress;
  notes?: string;
  hold?: HoldRecord;
  postPaymentReturn?: { url: string; params?: Record<string, string> };
  waitlistEntryId?: string;
  /** Whose booking it is when not the caller's (a renewed booking keeps its platform, profile and linked buyer). */
  owner?: { principal: string | null; profile?: string | null; accountId?: string };
}

/** Create the booking and take (or inherit from the hold) its claims. Call only after checkSlot. */
export async function createBookingRecord(ctx: OperationContext, nb: NewBooking): Promise<BookingRecord> {
  const { service, slot } = nb;
  const now = ctx.now;
  const id = ctx.ids.next('bkg');
  const zone = ctx.biz.zone;
  const total = bookingPrice(service, nb.partySize, slot.durationMs);
  const dueNow = amountDueAtBooking(service, total);
  const settings = ctx.biz.def.settings;

  const booking: Booking = {
    id,
    service_id: service.id,
    service_name: service.name,
    slot: {
      id: slot.id,
      start: formatInstant(slot.startMs, zone),
      end: formatInstant(slot.endMs, zone),
      duration: formatDuration(slot.durationMs),
    },
    buyer: nb.buyer,
    party_size: nb.partySize,
    status: initialBookingStatus(dueNow > 0, service.policies.confirmation_mode === 'manual'),
    confirmation_mode: service.policies.confirmation_mode,
    created_at: iso(now),
    updated_at: iso(now),
    revision: newRevision(ctx),
  };
  if (nb.recipient) booking.recipient = nb.recipient;
  const resources = slotResources(ctx.biz, slot.resourceIds);
  if (resources.length > 0) booking.resources = resources;
  if (slot.locationId) {
    const loc = ctx.biz.def.business.locations.find((l) => l.id === slot.locationId);
    if (loc) booking.location = { id: loc.id, name: loc.name };
  }
  if (nb.deliveryAddress) booking.delivery_address = nb.deliveryAddress;
  if (nb.notes !== undefined) booking.notes = nb.notes;

  const rec: BookingRecord = {
    booking,
    priv: {
      principal: nb.owner?.principal ?? nb.hold?.priv.principal ?? ctx.caller.principal,
      profile: nb.owner ? nb.owner.profile : (nb.hold?.priv.profile ?? ctx.caller.profile),
      slot_key: slot.key,
      start_ms: slot.startMs,
      end_ms: slot.endMs,
      resource_ids: [...slot.resourceIds],
      hold_id: nb.hold?.hold.id,
      reschedule_count: 0,
      price_total: total,
      amount_paid: 0,
    },
  };
  if (nb.postPaymentReturn) rec.priv.post_payment_return_request = nb.postPaymentReturn;
  if (nb.waitlistEntryId) rec.priv.waitlist_entry_id = nb.waitlistEntryId;

  const pol = service.policies;
  if (pol.requires_payment) {
    booking.payment = {
      status: dueNow > 0 ? 'pending' : 'not_required',
      timing: pol.payment_timing ?? 'at_service',
      amount: total,
      currency: service.pricing.currency,
      amount_due: dueNow,
    };
    if (pol.payment_timing === 'deposit_required') booking.payment.deposit_amount = dueNow;
  }

  let expiresMs: number | undefined;
  if (dueNow > 0) {
    expiresMs = paymentDeadline(settings, now, slot.startMs);
    booking.actions = [paymentAction(ctx, rec, service, dueNow, expiresMs, 'booking')];
  } else if (pol.confirmation_mode === 'manual') {
    expiresMs = Math.min(now + settings.manual_confirmation_ttl_seconds * 1000, slot.startMs);
  }
  if (expiresMs !== undefined) {
    booking.expires_at = iso(expiresMs);
    rec.priv.expires_at_ms = expiresMs;
  }

  if (nb.hold) {
    await enterHoldStatus(ctx, nb.hold, 'convert', { bookingId: id, expiresMs: expiresMs ?? null });
  } else {
    await ctx.tx.claims.add(claimRows(service, slot, id, nb.partySize, false, expiresMs ?? null));
  }
  if (startsConfirmed(rec)) rec.priv.confirmed_once = true;
  // Made with a buyer-linked token: the booking belongs to the buyer as well as the platform.
  if (ctx.caller.account) rec.priv.account_id = ctx.caller.account.id;
  if (nb.owner?.accountId) rec.priv.account_id = nb.owner.accountId;
  markPlatformMessages(ctx, rec);
  rememberLocale(ctx, rec);
  await ctx.tx.bookings.insert(rec);
  ctx.created?.(id);
  if (rec.priv.account_id) await ctx.tx.accounts.linkBooking(rec.priv.account_id, id, now);
  await queueCheckouts(ctx, rec);
  enterInitialStatus(ctx, rec);
  // A booking that waits (for payment or for the business) tells the buyer so; a confirmed one is mailed from its event.
  if (booking.status !== 'confirmed') await queueBookingWaiting(ctx, rec);
  // After booking.confirmed: a booking made inside the reminder window is reminded at once.
  // A new booking has no reminder scheduled yet: nothing to cancel.
  await scheduleReminder(ctx, rec, { fresh: true });
  return rec;
}

/**
 * A hosted checkout link for a pending payment (spec 8.5.4): https in production, no secrets in the
 * query. Our own page unless an external checkout's template is set, whose placeholders are filled
 * with the booking, the action, the amount and currency, and our page that returns the buyer.
 */
export function checkoutUrl(
  ctx: OperationContext,
  bookingId: string,
  fill?: { actionId: string; amount: number; currency: string },
): string {
  const own = `${ctx.biz.publicUrl}/checkout/{booking_id}`;
  const template = ctx.biz.payments === 'external' ? (ctx.biz.def.settings.checkout_url_template ?? own) : own;
  const values: Record<string, string> = {
    booking_id: bookingId,
    action_id: fill?.actionId ?? '',
    amount: fill ? String(fill.amount) : '',
    currency: fill?.currency ?? '',
    return_url: returnPageUrl(ctx, bookingId),
  };
  return template.replace(/\{(booking_id|action_id|amount|currency|return_url)\}/g, (_, k: string) =>
    encodeURIComponent(values[k]),
  );
}

export function paymentAction(
  ctx: OperationContext,
  rec: BookingRecord,
  service: ServiceDef,
  amountDue: number,
  expiresMs: number,
  what: 'booking' | 'reschedule',
): Action {
  const currency = service.pricing.currency;
  const b = rec.booking;
  // A provider's checkout is keyed by the action: the id is allocated (and kept privately) only when one is made.
  const actionId =
    ctx.biz.payments === 'provider' || ctx.biz.payments === 'external'
      ? trackCheckout(ctx, rec, amountDue, currency)
      : '';
  const label =
    what === 'booking'
      ? service.policies.payment_timing === 'deposit_required'
        ? `Deposit for ${service.name}`
        : service.name
      : `Reschedule of ${service.name}`;
  return {
    type: 'payment',
    status: 'pending',
    continue_url: checkoutUrl(ctx, b.id, { actionId, amount: amountDue, currency }),
    expires_at: iso(expiresMs),
    message: {
      type: 'info',
      code: 'payment_required',
      content: `Pay ${formatMoney(amountDue, currency)} before ${formatInstant(expiresMs, ctx.biz.zone)} to confirm this booking.`,
      severity: 'requires_buyer_input',
    },
    payment_context: {
      amount_due: amountDue,
      currency,
      description: `${label}, ${b.slot.start}`,
      line_items: [{ label, amount: amountDue, quantity: 1, item_id: service.id }],
      metadata: { booking_id: b.id, service_id: service.id, service_type: service.type, slot_start: b.slot.start },
    },
  };
}

/** Reject a stale precondition (spec 5.6): compared before any write. */
export function checkRevision(ctx: OperationContext, current: string): void {
  if (ctx.ifMatch !== undefined && ctx.ifMatch !== current) {
    throw new ProtocolError(
      'revision_mismatch',
      'The resource changed since it was read; read it again and retry with the new revision.',
      {
        extra: { current_revision: current },
      },
    );
  }
}

/** Load a booking the caller may see, applying expiry first. Null when unknown or not the caller's. */
export async function loadBooking(ctx: OperationContext, id: string): Promise<BookingRecord | null> {
  const rec = await ctx.tx.bookings.get(id);
  if (!rec) return null;
  if (!mayAct(ctx.caller, rec.priv.principal, rec.booking.id) && !(await buyerMayAct(ctx, rec))) return null;
  await expireIfDue(ctx, rec);
  return rec;
}

/** A buyer-linked token with usp:history acts on the buyer's bookings, whichever platform made them (spec 10.2.4). */
async function buyerMayAct(ctx: OperationContext, rec: BookingRecord): Promise<boolean> {
  const account = ctx.caller.account;
  if (!account || !account.scopes.includes('usp:history')) return false;
  return rec.priv.account_id === account.id && (await ctx.tx.accounts.owns(account.id, rec.booking.id));
}

/** Pending and requires_action bookings whose `expires_at` passed become canceled (spec 5.1). */
export async function expireIfDue(ctx: OperationContext, rec: BookingRecord): Promise<boolean> {
  const b = rec.booking;
  if ((b.status !== 'pending' && b.status !== 'requires_action') || rec.priv.expires_at_ms === undefined) return false;
  if (rec.priv.expires_at_ms > ctx.now) return false;
  await endBooking(ctx, rec, 'expire', {
    reason: 'expired',
    canceled_by: 'system',
    fee: 0,
    refund_amount: rec.priv.amount_paid,
    canceled_at: iso(rec.priv.expires_at_ms),
  });
  return true;
}

/**
 * The one path that ends a booking as canceled, by a cancel or by expiry: the state machine's move
 * with the cancellation record; entering `canceled` does the rest (see BOOKING_ENTRY_EFFECTS);
 * `settle` says what is still owed or refunded on the payment block.
 */
export async function endBooking(
  ctx: OperationContext,
  rec: BookingRecord,
  m: 'cancel' | 'expire',
  cancellation: NonNullable<Booking['cancellation']>,
  settle?: (b: Booking) => void,
): Promise<void> {
  await transition(ctx, rec, m, (b) => {
    b.cancellation = cancellation;
    settle?.(b);
  });
}

/** A booking's credential stays usable until a day after the service ends (its actionable window). */
export function bookingCredentialExpiry(rec: BookingRecord): number {
  return rec.priv.end_ms + 86_400_000;
}

export function alreadyMessage(content: string) {
  return infoMessage('already_in_state', content);
}

/** An unknown booking id in the path (or another platform's booking): thrown, a 404 `booking_not_found` (spec-next 9.4.1). */
export const bookingNotFound = (bookingId: string) =>
  new MissingResource(
    errorMessage(
      'booking_not_found',
      `No booking ${JSON.stringify(bookingId)} belongs to this platform.`,
      '$.booking_id',
    ),
  );

/**
 * The business's own moves on a booking after it is confirmed (spec 5.1, 5.5.3): started,
 * completed or a no-show. Completed and no-show end the booking and free its slot.
 */
export async function applyBusinessMove(
  ctx: OperationContext,
  bookingId: string,
  m: 'start' | 'complete' | 'no_show',
): Promise<OperationResult> {
  requireBusiness(ctx);
  const rec = await loadBooking(ctx, bookingId);
  if (!rec) throw bookingNotFound(bookingId);
  checkRevision(ctx, rec.booking.revision);
  const service = ctx.biz.services.get(rec.booking.service_id);
  const fee = m === 'no_show' && service ? noShowFee(service, rec.priv.price_total) : 0;
  // A store error here fails the whole operation (and rolls it back): nothing is swallowed.
  await transition(ctx, rec, m);
  const messages = fee > 0 && service ? [noShowCharge(rec, service, fee)] : [];
  return messages.length ? { data: { booking: rec.booking }, messages, status: 200 } : ok({ booking: rec.booking });
}
