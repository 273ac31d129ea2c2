import { z } from 'zod';
import {
  errorMessage,
  warningMessage,
  bookingPrice,
  rescheduleTerms,
  formatDuration,
  formatInstant,
  formatMoney,
  parseDuration,
  sameSlotId,
  operationPermitted,
  paymentDeadline,
  type Message,
} from '../../domain/index.js';
import { feeAtService, spokenDuration } from './policy-fees.js';
import { defineOperation, ok, outcome } from '../core/define.js';
import { PLATFORM_BOOKING_CHANGE } from '../change-rows.js';
import { checkSlot, claimRows } from '../availability/slots.js';
import { iso } from '../core/context.js';
import { enterHoldStatus, freedSlotOf, offerFreedPlace } from '../waitlist/offers.js';
import { bookingCredentialExpiry, scheduleReminder, bookingNotFound } from './lifecycle.js';
import {
  checkRevision,
  emitBookingEvent,
  loadBooking,
  move,
  movePayment,
  paymentAction,
  stateConflict,
} from './lifecycle.js';
import { queueCheckouts } from '../payments/checkouts.js';
import { id, BOOKING_OUTPUT } from '../schemas.js';
import { holdView, loadHold } from '../availability/holds.js';
import { serviceUnavailable } from '../availability/slot-refusals.js';

export const rescheduleBooking = defineOperation({
  name: 'reschedule_booking',
  tool: 'usp_bookings_reschedule',
  view: 'booking_card',
  rest: { method: 'POST', path: '/bookings/{booking_id}/reschedule', input: 'body' },
  ...PLATFORM_BOOKING_CHANGE,
  dashboard: 'reschedule',
  page: 'booking_move',
  output: BOOKING_OUTPUT,
  summary: 'Move a booking to another slot of the same service; the booking keeps its id.',
  input: z.object({
    booking_id: id('The booking id.'),
    slot_id: id('The new slot, from usp_availability_query.'),
    hold_id: z.string().max(512).optional().describe('A hold on the new slot, if one was taken.'),
  }),
  async handle(inp, ctx) {
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) throw bookingNotFound(inp.booking_id);
    const b = rec.booking;
    if (!operationPermitted(b.status, 'reschedule')) throw stateConflict(rec, 'rescheduled');
    checkRevision(ctx, b.revision);
    const service = ctx.biz.services.get(b.service_id)!;
    // No move onto a new slot of a service that takes no booking now (suspended, archived), saying why.
    if (ctx.biz.published.get(service.id)?.status !== 'active')
      return outcome(serviceUnavailable(ctx, service.id), { booking: b });
    const terms = rescheduleTerms(service, rec.priv.start_ms, ctx.now, rec.priv.reschedule_count, parseDuration);
    if (!terms.allowed) {
      return terms.reason === 'limit_reached'
        ? outcome(
            errorMessage(
              'reschedule_limit_reached',
              `This booking was already rescheduled ${rec.priv.reschedule_count} time(s), the most this service allows.`,
            ),
            {
              booking: b,
            },
          )
        : outcome(
            errorMessage(
              'reschedule_not_allowed',
              'This service does not allow rescheduling; cancel and book again instead.',
            ),
            { booking: b },
          );
    }
    let hold;
    if (inp.hold_id) {
      hold = await loadHold(ctx, inp.hold_id);
      const view = hold ? holdView(hold, ctx.now) : null;
      if (!hold || !view)
        return outcome(
          errorMessage(
            'validation_error',
            `No hold ${JSON.stringify(inp.hold_id)} belongs to this platform.`,
            '$.hold_id',
          ),
        );
      if (view.status === 'expired')
        return outcome(errorMessage('hold_expired', 'The hold on the new slot expired; hold it again.', '$.hold_id'), {
          booking: b,
        });
      if (view.status !== 'active' || !sameSlotId(hold.hold.slot_id, inp.slot_id)) {
        return outcome(errorMessage('validation_error', 'The hold is not an active hold on that slot.', '$.hold_id'));
      }
    }
    const ignore = hold ? [b.id, hold.hold.id] : [b.id];
    const check = await checkSlot(ctx.tx, ctx.biz, service, inp.slot_id, b.party_size, ctx.now, ignore);
    if (!check.ok) {
      if (check.reason === 'window')
        return outcome(
          errorMessage('booking_window_violated', 'The new slot is outside the booking window.', '$.slot_id'),
          { booking: b },
        );
      if (check.reason === 'capacity')
        return outcome(
          errorMessage('capacity_exceeded', 'The new slot has too few spots for this party.', '$.slot_id'),
          { booking: b },
        );
      if (check.reason === 'malformed' || check.reason === 'wrong_service') {
        return outcome(errorMessage('validation_error', 'That slot id does not belong to this service.', '$.slot_id'), {
          booking: b,
        });
      }
      return outcome(
        errorMessage(
          'slot_unavailable',
          'The new slot is no longer available; query availability and pick another.',
          '$.slot_id',
        ),
        { booking: b },
      );
    }
    const old = freedSlotOf(rec.priv);
    // The credential issued for the old slot lives until a day after it (bookingCredentialExpiry).
    const credentialEnds = bookingCredentialExpiry(rec);
    const slot = check.slot;
    // Swap the claims: the booking's old claims go, new ones come (or the hold's are inherited).
    await ctx.tx.claims.removeOwner(b.id);
    if (hold) {
      await enterHoldStatus(ctx, hold, 'convert', { bookingId: b.id, expiresMs: rec.priv.expires_at_ms ?? null });
    } else {
      await ctx.tx.claims.add(claimRows(service, slot, b.id, b.party_size, false, rec.priv.expires_at_ms ?? null));
    }
    const zone = ctx.biz.zone;
    b.slot = {
      id: slot.id,
      start: formatInstant(slot.startMs, zone),
      end: formatInstant(slot.endMs, zone),
      duration: formatDuration(slot.durationMs),
    };
    rec.priv.slot_key = slot.key;
    rec.priv.start_ms = slot.startMs;
    rec.priv.end_ms = slot.endMs;
    rec.priv.resource_ids = [...slot.resourceIds];
    rec.priv.reschedule_count += 1;
    move(rec, 'reschedule', ctx);

    // A higher price or a reschedule fee is collected before the booking counts as confirmed again.
    const newTotal = bookingPrice(service, b.party_size, slot.durationMs);
    const collectsOnline =
      b.status === 'confirmed' && service.policies.requires_payment && service.policies.payment_timing !== 'at_service';
    const extra = Math.max(0, newTotal - rec.priv.price_total) + terms.fee;
    rec.priv.price_total = newTotal;
    if (b.payment) b.payment.amount = newTotal + (rec.priv.fees_at_service ?? 0);
    const messages: Message[] = [];
    const window = service.policies.rescheduling.free_reschedule_until
      ? `less than ${spokenDuration(parseDuration(service.policies.rescheduling.free_reschedule_until))} before the start`
      : 'late';
    if (terms.fee > 0 && !collectsOnline) messages.push(feeAtService(rec, service, terms.fee, window));
    else if (terms.fee > 0) {
      messages.push(
        warningMessage(
          'late_reschedule_fee',
          `A late-reschedule fee of ${formatMoney(terms.fee, service.pricing.currency)} applies (moved ${window}): it is collected by the payment link before the booking counts as confirmed again (booking.payment.amount_due).`,
          '$.booking.payment.amount_due',
        ),
      );
    }
    if (extra > 0 && collectsOnline) {
      const expiresMs = paymentDeadline(ctx.biz.def.settings, ctx.now, slot.startMs);
      move(rec, 'require_action', ctx);
      b.actions = [...(b.actions ?? []), paymentAction(ctx, rec, service, extra, expiresMs, 'reschedule')];
      b.expires_at = iso(expiresMs);
      rec.priv.expires_at_ms = expiresMs;
      if (b.payment) {
        movePayment(b, 'owe');
        b.payment.amount_due = extra;
      }
      await ctx.tx.claims.setExpiry(b.id, expiresMs);
    }
    await ctx.tx.bookings.update(rec);
    await queueCheckouts(ctx, rec);
    await offerFreedPlace(ctx, service, old);
    emitBookingEvent(ctx, 'booking.rescheduled', rec, {
      previous_slot: { start: formatInstant(old.startMs, zone), end: formatInstant(old.endMs, zone) },
    });
    await scheduleReminder(ctx, rec);
    // Spec-next 5.3.6: a credential that would lapse before the new slot is over is re-issued here, to
    // the same key, as on creation; the old one is left to expire on its own.
    const credential =
      credentialEnds < slot.endMs
        ? await ctx.issueCredential('booking', b.id, bookingCredentialExpiry(rec))
        : undefined;
    const data = { booking: b, ...(credential ? { booking_scoped_credential: credential } : {}) };
    return messages.length ? { data, messages, status: 200 } : ok(data);
  },
});
