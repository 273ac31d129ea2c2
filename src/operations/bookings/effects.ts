/**
 * The booking state machine applied: a move is checked against the transition map, and entering a
 * status does what the domain's entry-effects table says (events, expiry, pending actions, the
 * slot, reminders), in one place whichever operation made the move. Payment status moves go
 * through the payment map the same way.
 */
import {
  BOOKING_ENTRY_EFFECTS,
  allowedMoves,
  nextPaymentStatus,
  nextStatus,
  type Booking,
  type BookingMove,
  type BookingRecord,
  type PaymentMove,
} from '../../domain/index.js';
import { invalidTransition, type RefusedMove } from '../core/invalid-transition.js';
import { iso, newRevision, type OperationContext } from '../core/context.js';
import { freedSlotOf, offerFreedPlace } from '../waitlist/offers.js';
import { closeCheckouts } from '../payments/checkouts.js';

const PARTICIPLE: Record<BookingMove, string> = {
  confirm: 'confirmed',
  complete_actions: 'confirmed',
  await_confirmation: 'confirmed',
  require_action: 'changed',
  cancel: 'canceled',
  expire: 'expired',
  reschedule: 'rescheduled',
  start: 'started',
  complete: 'completed',
  no_show: 'marked as a no-show',
};

/** Apply a state-machine move (the record only) or refuse it with invalid_transition naming what is allowed. */
export function move(rec: BookingRecord, m: BookingMove, ctx: OperationContext): void {
  const to = nextStatus(rec.booking.status, m);
  if (!to) throw stateConflict(rec, PARTICIPLE[m]);
  rec.booking.status = to;
  touch(rec, ctx);
}

/** Refuse an operation the booking's status does not permit, naming the status and what is allowed. */
export function stateConflict(rec: BookingRecord, participle: string): RefusedMove {
  const wayOn = 'for another time, make a new booking (query availability, then book).';
  return invalidTransition(
    'booking',
    rec.booking.status,
    allowedMoves(rec.booking.status),
    participle,
    { booking: rec.booking },
    wayOn,
  );
}

export function touch(rec: BookingRecord, ctx: OperationContext): void {
  rec.booking.updated_at = iso(ctx.now);
  rec.booking.revision = newRevision(ctx);
}

/**
 * Make move `m` and apply what entering the new status does: the record's changes, `settle` (the
 * operation's own changes, e.g. a cancellation's payment block), the write, the freed slot, the
 * event and the reminder. A move that keeps the status enters nothing (only the write).
 */
export async function transition(
  ctx: OperationContext,
  rec: BookingRecord,
  m: BookingMove,
  settle?: (b: Booking) => void,
): Promise<void> {
  const from = rec.booking.status;
  move(rec, m, ctx);
  const b = rec.booking;
  if (b.status === from) {
    settle?.(b);
    await ctx.tx.bookings.update(rec);
    return;
  }
  const fx = BOOKING_ENTRY_EFFECTS[b.status];
  if (fx.confirmedOnce) rec.priv.confirmed_once = true;
  if (fx.pendingActions === 'expire') {
    for (const a of b.actions ?? []) if (a.status === 'pending') a.status = 'expired';
    // Nobody may pay on those actions' checkouts any more: they are closed at the provider.
    await closeCheckouts(ctx, rec);
  }
  if (fx.amountDue === 'zero' && b.payment && b.payment.status === 'pending') b.payment.amount_due = 0;
  settle?.(b);
  if (fx.expiry === 'clear') {
    delete b.expires_at;
    rec.priv.expires_at_ms = undefined;
    if (fx.slot === 'keep') await ctx.tx.claims.setExpiry(b.id, null);
  } else if (fx.expiry === 'manual_window') {
    const until = Math.min(ctx.now + ctx.biz.def.settings.manual_confirmation_ttl_seconds * 1000, rec.priv.start_ms);
    rec.priv.expires_at_ms = until;
    b.expires_at = iso(until);
    await ctx.tx.claims.setExpiry(b.id, until);
  }
  await ctx.tx.bookings.update(rec);
  if (fx.reminder === 'cancel') await ctx.tx.outbox.cancelScheduled(b.id, 'booking.reminder');
  if (fx.slot === 'free') await freeSlot(ctx, rec);
  if (fx.event) emitBookingEvent(ctx, fx.event, rec);
  if (fx.reminder === 'inside_window') remindIfInsideWindow(ctx, rec);
}

/**
 * The effects of the status a new booking starts in, once it is stored: the event, and that it
 * counts as confirmed once. (Its expiry and reminder are set as it is made.)
 */
export function enterInitialStatus(ctx: OperationContext, rec: BookingRecord): void {
  const fx = BOOKING_ENTRY_EFFECTS[rec.booking.status];
  if (fx.event) emitBookingEvent(ctx, fx.event, rec);
}

/** Whether the status a new booking starts in counts as confirmed (set before it is stored). */
export function startsConfirmed(rec: BookingRecord): boolean {
  return BOOKING_ENTRY_EFFECTS[rec.booking.status].confirmedOnce;
}

/** Move the payment block's status through the payment map; a move the map forbids is a fault. */
export function movePayment(b: Booking, m: PaymentMove): void {
  if (!b.payment) return;
  const to = nextPaymentStatus(b.payment.status, m);
  if (!to) throw new Error(`payment of booking ${b.id} is ${b.payment.status}; it cannot take the move ${m}`);
  b.payment.status = to;
}

/** Remove a booking's claims and credentials, and offer the freed place to the waitlist. */
export async function freeSlot(ctx: OperationContext, rec: BookingRecord): Promise<void> {
  await ctx.tx.claims.removeOwner(rec.booking.id);
  // Terminal state: the booking's credentials stop working (spec 10.1.6).
  await ctx.tx.security.revokeCredentials(rec.booking.id);
  const service = ctx.biz.services.get(rec.booking.service_id);
  if (service) await offerFreedPlace(ctx, service, freedSlotOf(rec.priv));
}

/** A booking confirmed inside the reminder window is reminded at once only if at least this long remains. */
const REMINDER_MIN_LEAD_MS = 3_600_000;

/**
 * Schedule `booking.reminder` ahead of the start (spec 5.4.1), replacing any earlier one. A
 * booking made (or moved) inside the reminder window is reminded at once when it is confirmed and
 * at least REMINDER_MIN_LEAD_MS remain before its start; with less, no reminder is sent.
 */
export async function scheduleReminder(
  ctx: OperationContext,
  rec: BookingRecord,
  opts: { fresh?: boolean } = {},
): Promise<void> {
  if (!opts.fresh) await ctx.tx.outbox.cancelScheduled(rec.booking.id, 'booking.reminder');
  const offset = ctx.biz.def.settings.reminder_offset_seconds * 1000;
  if (offset <= 0) return;
  const due = rec.priv.start_ms - offset;
  if (due <= ctx.now) {
    remindIfInsideWindow(ctx, rec);
    return;
  }
  emitReminder(ctx, rec, due);
}

/**
 * The reminder a booking gets when it becomes confirmed inside the reminder window (booked late,
 * or paid or approved late): at once, if at least REMINDER_MIN_LEAD_MS remain. A booking whose
 * reminder time is still ahead keeps its scheduled one.
 */
export function remindIfInsideWindow(ctx: OperationContext, rec: BookingRecord): void {
  const offset = ctx.biz.def.settings.reminder_offset_seconds * 1000;
  if (offset <= 0 || rec.booking.status !== 'confirmed') return;
  if (rec.priv.start_ms - offset > ctx.now) return;
  if (rec.priv.start_ms - ctx.now < REMINDER_MIN_LEAD_MS) return;
  emitReminder(ctx, rec);
}

function emitReminder(ctx: OperationContext, rec: BookingRecord, dueMs?: number): void {
  ctx.emit({
    event: 'booking.reminder',
    orderKey: rec.booking.id,
    principal: rec.priv.principal,
    profile: rec.priv.profile ?? null,
    payload: { booking_id: rec.booking.id, data: structuredClone(rec.booking) },
    ...(dueMs === undefined ? {} : { dueMs }),
  });
}

export function emitBookingEvent(
  ctx: OperationContext,
  event: string,
  rec: BookingRecord,
  extra: Record<string, unknown> = {},
): void {
  ctx.emit({
    event,
    orderKey: rec.booking.id,
    principal: rec.priv.principal,
    profile: rec.priv.profile ?? null,
    payload: { booking_id: rec.booking.id, ...extra, data: structuredClone(rec.booking) },
  });
}
