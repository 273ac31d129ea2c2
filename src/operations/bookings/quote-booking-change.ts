import { z } from 'zod';
import { cancellationTerms, nextStatus, parseDuration, rescheduleTerms, formatMoney } from '../../domain/index.js';
import { PLATFORM_BOOKING_READ } from '../change-rows.js';
import { defineOperation, ok } from '../core/define.js';
import { bookingNotFound, loadBooking } from './lifecycle.js';
import { iso } from '../core/context.js';
import { id, Out } from '../schemas.js';

/**
 * What cancelling or rescheduling a booking would cost now, without doing it: the same terms
 * functions cancel_booking and reschedule_booking apply, read-only. Ours (not in the official
 * OpenRPC or OpenAPI documents), under our own tool prefix and path: an assistant asks before it
 * acts once a free window has passed, and a host may run a read-only tool without asking the person.
 */
export const quoteBookingChange = defineOperation({
  name: 'quote_booking_change',
  tool: 'uspserver_bookings_quote',
  rest: { method: 'GET', path: '/ext/usp-server/bookings/{booking_id}/quote', input: 'query' },
  extension: 'dev.usp-server.services.bookings',
  ...PLATFORM_BOOKING_READ,
  page: 'booking_quote',
  output: { quote: Out.object },
  summary:
    'What cancelling or rescheduling a booking would cost now (fee, refund, what is due and when), without changing it.',
  input: z.object({
    booking_id: id('The booking id.'),
    change: z.enum(['cancel', 'reschedule']).describe('The change to price: cancel or reschedule.'),
  }),
  async handle(inp, ctx) {
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) throw bookingNotFound(inp.booking_id);
    const b = rec.booking;
    const service = ctx.biz.services.get(b.service_id)!;
    const currency = service.pricing.currency;
    const money = (n: number) => formatMoney(n, currency);
    const paid = rec.priv.amount_paid;
    const base = { booking_id: b.id, change: inp.change, currency, quoted_at: iso(ctx.now) };
    if (inp.change === 'cancel') {
      if (!nextStatus(b.status, 'cancel'))
        return ok({
          quote: {
            ...base,
            allowed: false,
            reason: 'state',
            fee: 0,
            refund: 0,
            amount_due: 0,
            summary: `A ${b.status} booking cannot be canceled.`,
          },
        });
      const t = cancellationTerms(
        service,
        rec.priv.start_ms,
        ctx.now,
        paid,
        ctx.caller.business,
        parseDuration,
        rec.priv.price_total,
      );
      if (!t.allowed) {
        const why =
          t.reason === 'not_allowed'
            ? 'This service does not allow cancellation.'
            : 'It is too close to the start to cancel.';
        return ok({
          quote: { ...base, allowed: false, reason: t.reason, fee: 0, refund: 0, amount_due: 0, summary: why },
        });
      }
      const owed = t.fee - Math.min(t.fee, paid);
      // The instants the terms turn on, so a page or an assistant can say "free until ..." in the business's zone.
      const c = service.policies.cancellation;
      const freeUntil = c.free_cancellation_until
        ? rec.priv.start_ms - parseDuration(c.free_cancellation_until)
        : undefined;
      const deadlines = {
        ...(freeUntil !== undefined && freeUntil > ctx.now ? { free_until: iso(freeUntil) } : {}),
        ...(c.no_cancellation_after
          ? { closes_at: iso(rec.priv.start_ms - parseDuration(c.no_cancellation_after)) }
          : {}),
      };
      const summary =
        t.fee === 0
          ? `Cancelling now is free${t.refund > 0 ? `; ${money(t.refund)} is refunded` : ''}.`
          : `Cancelling now costs a ${money(t.fee)} late-cancellation fee${owed > 0 ? `, ${money(owed)} due from the person` : ', kept from the payment'}${t.refund > 0 ? `; ${money(t.refund)} is refunded` : ''}.`;
      return ok({
        quote: { ...base, allowed: true, fee: t.fee, refund: t.refund, amount_due: owed, ...deadlines, summary },
      });
    }
    if (b.status !== 'confirmed' && b.status !== 'pending' && b.status !== 'requires_action') {
      return ok({
        quote: {
          ...base,
          allowed: false,
          reason: 'state',
          fee: 0,
          amount_due: 0,
          summary: `A ${b.status} booking cannot be rescheduled.`,
        },
      });
    }
    // A service that takes no booking now (the business suspended, no online payment, archived) takes no move either: said with why.
    const status = ctx.biz.published.get(service.id)?.status ?? 'suspended';
    if (status !== 'active') {
      const why = ctx.biz.suspendedWhy.get(service.id) ?? `The service is ${status}: it takes no booking now.`;
      return ok({
        quote: { ...base, allowed: false, reason: 'service_unavailable', fee: 0, amount_due: 0, summary: why },
      });
    }
    const t = rescheduleTerms(service, rec.priv.start_ms, ctx.now, rec.priv.reschedule_count, parseDuration);
    if (!t.allowed) {
      const why =
        t.reason === 'limit_reached'
          ? `Already rescheduled ${rec.priv.reschedule_count} time(s), the most this service allows.`
          : 'This service does not allow rescheduling.';
      return ok({ quote: { ...base, allowed: false, reason: t.reason, fee: 0, amount_due: 0, summary: why } });
    }
    const freeMoveUntil = service.policies.rescheduling.free_reschedule_until
      ? rec.priv.start_ms - parseDuration(service.policies.rescheduling.free_reschedule_until)
      : undefined;
    const online =
      b.status === 'confirmed' && service.policies.requires_payment && service.policies.payment_timing !== 'at_service';
    const summary =
      t.fee === 0
        ? 'Rescheduling now is free (a slot at a higher price would cost the difference).'
        : online
          ? `Rescheduling now costs a ${money(t.fee)} late-reschedule fee, paid by a payment link before the booking counts as confirmed again.`
          : `Rescheduling now costs a ${money(t.fee)} late-reschedule fee, added to what is paid at the appointment.`;
    return ok({
      quote: {
        ...base,
        allowed: true,
        fee: t.fee,
        amount_due: online ? t.fee : 0,
        collected_at_appointment: online ? 0 : t.fee,
        ...(freeMoveUntil !== undefined && freeMoveUntil > ctx.now ? { free_until: iso(freeMoveUntil) } : {}),
        reschedules_left:
          service.policies.rescheduling.max_reschedules === undefined
            ? null
            : service.policies.rescheduling.max_reschedules - rec.priv.reschedule_count,
        summary,
      },
    });
  },
});
