/**
 * What the payment machinery keeps in the store: the durable jobs that call the payment provider
 * after a booking's transaction commits (create a checkout, close one, refund), the provider events already
 * applied (each applied once, whatever the delivery order or count), and the provider's ids that
 * lead back to a booking (a charge or payment intent names no booking of ours).
 */

/** `checkout`: create the provider's checkout for a payment action; `expire_checkout`: close one nobody may pay on any more; `refund`: refund an amount. */
export type PaymentJobKind = 'checkout' | 'expire_checkout' | 'refund';

export type PaymentJobStatus = 'pending' | 'done' | 'failed';

export interface PaymentJob {
  /** Derived from what the job is for (the action, the cancellation): also the provider's idempotency key. */
  id: string;
  kind: PaymentJobKind;
  booking_id: string;
  payload: Record<string, unknown>;
  status: PaymentJobStatus;
  attempts: number;
  next_attempt_ms: number;
  created_ms: number;
  last_error: string | null;
  /** What the provider answered, once done. */
  result: Record<string, unknown> | null;
}

export interface PaymentRepo {
  /** Add a job; a job with the same id already there is left as it is (a retried transaction adds none). */
  enqueue(job: {
    id: string;
    kind: PaymentJobKind;
    booking_id: string;
    payload: Record<string, unknown>;
    created_ms: number;
  }): Promise<void>;
  /** Lease due pending jobs no other worker holds, until `leaseUntilMs`. */
  claimDue(nowMs: number, limit: number, leaseUntilMs: number): Promise<PaymentJob[]>;
  /** Record an attempt's end: done, failed for good, or pending again at `next_attempt_ms` (clears the lease). */
  finish(
    id: string,
    next: Pick<PaymentJob, 'status' | 'attempts' | 'next_attempt_ms' | 'last_error' | 'result'>,
  ): Promise<void>;
  get(id: string): Promise<PaymentJob | null>;
  /** A booking's jobs, oldest first (the dashboard's money view). */
  forBooking(bookingId: string): Promise<PaymentJob[]>;
  /** Remember a provider event as applied; false when it already was (a repeated delivery). */
  recordEvent(provider: string, eventId: string, nowMs: number): Promise<boolean>;
  /** Tie a provider id (payment intent, charge) to a booking; an existing link is kept. */
  linkRef(provider: string, ref: string, bookingId: string): Promise<void>;
  bookingByRef(provider: string, ref: string): Promise<string | null>;
}
