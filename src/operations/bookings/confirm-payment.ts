import { z } from 'zod';
import { errorMessage, formatMoney, minorAmount } from '../../domain/index.js';
import { defineOperation, ok, outcome } from '../core/define.js';
import { PLATFORM_BOOKING_CHANGE } from '../change-rows.js';
import { checkRevision, loadBooking, stateConflict, bookingNotFound } from './lifecycle.js';
import { recordPayment } from '../payments/record-payment.js';
import { ProtocolError } from '../core/errors.js';
import { RefusedMove } from '../core/invalid-transition.js';
import { id, BOOKING_OUTPUT } from '../schemas.js';
import { checkoutSystems } from '../business.js';
import type { Booking } from '../../domain/index.js';

/**
 * A platform's word that it was paid is taken only where the business publishes `embedded`; else the
 * business's own checkout (the provider's session, an external checkout reporting with the
 * business's key) completes the action, and the booking is left as it is.
 */
const notAccepted = (b: Booking) =>
  outcome(
    errorMessage(
      'platform_payment_not_accepted',
      "This business takes payment on its own checkout (the payment action's continue_url) and confirms the booking when that checkout reports it; it does not accept a payment reported by a platform. The booking is unchanged: send the buyer to continue_url, and refund any charge you made.",
      '$.payment_result',
    ),
    { booking: b },
  );

/** The newer text's confirm-payment conflicts: not confirmed, what the platform does about the money. */
const AFTER_PAYMENT = (why: string) =>
  `The payment was not accepted: ${why}. The booking is not confirmed; do not tell the buyer it is. Reverse or refund the payment, and do not retry this request unchanged.`;

export const confirmPayment = defineOperation({
  name: 'confirm_payment',
  tool: 'usp_bookings_confirm_payment',
  rest: { method: 'POST', path: '/bookings/{booking_id}/confirm-payment', input: 'body' },
  ...PLATFORM_BOOKING_CHANGE,
  output: BOOKING_OUTPUT,
  summary: 'Report a completed payment for a booking that requires action; confirms it.',
  input: z.object({
    booking_id: id('The booking id.'),
    payment_result: z.object({
      status: z.enum(['paid', 'deposit_paid']),
      transaction_id: z.string().min(1).max(500),
      amount_paid: minorAmount(0).describe(
        'What was paid, in minor currency units: an integer, or a string of digits.',
      ),
      currency: z.string().min(3).max(3),
      provider: z.string().max(200).optional(),
      order_reference: z.string().max(500).optional(),
    }),
  }),
  async handle(inp, ctx) {
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) throw bookingNotFound(inp.booking_id);
    const b = rec.booking;
    if (
      b.status === 'canceled' &&
      b.cancellation?.canceled_by === 'system' &&
      b.actions?.some((a) => a.type === 'payment' && a.status === 'expired')
    ) {
      return outcome(
        errorMessage('payment_expired', 'The payment window closed and the booking was canceled; book again.'),
        { booking: b },
      );
    }
    const action = b.actions?.find((a) => a.type === 'payment' && a.status === 'pending');
    if (!action) {
      // Nothing to pay: confirm-payment is legal only while a payment is pending (spec 5.1.1).
      throw stateConflict(rec, 'paid (no payment is pending on it)');
    }
    checkRevision(ctx, b.revision);
    if (!ctx.caller.business && !checkoutSystems(ctx.biz).includes('embedded')) return notAccepted(b);
    const due = action.payment_context?.amount_due;
    // No price to check the payment against (spec-next 5.3.7): a 409, not payment_amount_mismatch.
    if (typeof due !== 'number')
      throw new ProtocolError(
        'payment_unverifiable',
        AFTER_PAYMENT('there is no price on this booking to check the payment against'),
      );
    const pr = inp.payment_result;
    const currency = action.payment_context!.currency;
    // No currency-specific code exists in spec 9.4: the mismatch code stays, the path names the field at fault.
    if (pr.currency.toUpperCase() !== currency) {
      return outcome(
        errorMessage(
          'payment_amount_mismatch',
          `The payment must be made in ${currency}; ${pr.currency} was reported. Report the payment of ${formatMoney(due, currency)}.`,
          '$.payment_result.currency',
        ),
        { booking: b },
      );
    }
    if (pr.amount_paid !== due) {
      return outcome(
        errorMessage(
          'payment_amount_mismatch',
          `The payment must be exactly ${formatMoney(due, action.payment_context!.currency)}; ${pr.amount_paid} ${pr.currency} was reported.`,
          '$.payment_result.amount_paid',
        ),
        { booking: b },
      );
    }
    try {
      await recordPayment(ctx, rec, action, pr);
    } catch (err) {
      // Paid, but the booking cannot reach its post-payment status (spec-next 5.3.7): nothing is kept.
      if (err instanceof RefusedMove)
        throw new ProtocolError(
          'confirmation_failed',
          AFTER_PAYMENT(`the booking is ${err.currentStatus} and cannot be confirmed`),
        );
      throw err;
    }
    return ok({ booking: b });
  },
});
