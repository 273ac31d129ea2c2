/**
 * The payment provider's reports in our own terms (what a provider adapter turns its events and
 * API answers into), validated at the edge like any operation input. Amounts are minor units.
 */
import { z } from 'zod';

const ref = z.string().min(1).max(255);
const amount = z.number().int().min(0);

export const PAYMENT_EVENT = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('checkout_created'),
    booking_id: ref,
    action_id: ref,
    session_id: ref,
    url: z.string().url().max(2048),
  }),
  z.object({
    type: z.literal('checkout_completed'),
    event_id: ref,
    booking_id: ref,
    action_id: ref,
    session_id: ref,
    /** False while an asynchronous payment method has not settled. */
    paid: z.boolean(),
    amount,
    currency: z.string().length(3),
    payment_ref: ref,
  }),
  z.object({ type: z.literal('checkout_expired'), event_id: ref, booking_id: ref, action_id: ref, session_id: ref }),
  z.object({
    type: z.literal('refund_result'),
    booking_id: ref,
    job_id: ref,
    payment_ref: ref,
    refund_id: ref.optional(),
    status: z.enum(['succeeded', 'pending', 'failed']),
  }),
  /** `amount_refunded`: everything refunded on that payment so far, as the provider counts it. */
  z.object({ type: z.literal('charge_refunded'), event_id: ref, payment_ref: ref, amount_refunded: amount }),
  z.object({
    type: z.literal('dispute_opened'),
    event_id: ref,
    payment_ref: ref,
    dispute_id: ref,
    reason: z.string().min(1).max(200),
    amount,
  }),
  z.object({
    type: z.literal('dispute_closed'),
    event_id: ref,
    payment_ref: ref,
    dispute_id: ref,
    reason: z.string().min(1).max(200),
    amount,
    /** Who the dispute was resolved for. */
    outcome: z.enum(['buyer', 'business']),
  }),
  z.object({ type: z.literal('ignored'), event_id: ref }),
]);

export type PaymentEvent = z.output<typeof PAYMENT_EVENT>;
