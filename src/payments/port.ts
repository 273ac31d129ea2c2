/**
 * The payment provider port: what the business asks of whoever takes the buyer's money online
 * (create a checkout for a payment action, look one up, refund), and the turning of the provider's
 * signed events into our payment events. Chosen once at start (`--payments`); the sandbox page and
 * an external checkout URL template need no adapter (no call leaves the process for them).
 */
import type { PaymentEvent } from '../operations/index.js';

export interface CheckoutRequest {
  /** The provider's idempotency key: a retried create makes no second checkout. */
  key: string;
  booking_id: string;
  action_id: string;
  /** Minor units, exactly the action's `amount_due`. */
  amount: number;
  currency: string;
  description: string;
  expires_ms: number;
  success_url: string;
  cancel_url: string;
}

export interface CheckoutSession {
  id: string;
  url: string;
  status: 'open' | 'complete' | 'expired';
  /** The provider's payment, once there is one. */
  payment_ref?: string;
}

export interface RefundRequest {
  key: string;
  booking_id: string;
  payment_ref: string;
  amount: number;
}

export interface RefundResult {
  id: string;
  status: 'succeeded' | 'pending' | 'failed';
}

/** The provider refused or could not be reached. `retryable`: the same call may succeed later. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** A webhook that is not the provider's: unsigned, badly signed or stale. Nothing is applied. */
export class WebhookRejected extends Error {
  override readonly name = 'WebhookRejected';
}

export interface PaymentProvider {
  /** The provider's name, as its ids and events are stored under. */
  readonly name: string;
  createCheckout(req: CheckoutRequest): Promise<CheckoutSession>;
  getCheckout(id: string): Promise<CheckoutSession>;
  /**
   * Close an open checkout so that nobody pays on it any more (its booking ended). A checkout that
   * is no longer open (paid, or expired already) is answered as it is, not as an error.
   */
  expireCheckout(req: { key: string; id: string }): Promise<CheckoutSession>;
  refund(req: RefundRequest): Promise<RefundResult>;
  /**
   * Verify a webhook over its raw body and turn it into our events (empty when the event does not
   * concern us). Throws WebhookRejected when it cannot be trusted.
   */
  parseWebhook(rawBody: string, signature: string | undefined, nowMs: number): PaymentEvent[];
}
