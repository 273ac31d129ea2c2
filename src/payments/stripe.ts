/**
 * The Stripe adapter of the payment provider port, on the official `stripe` package: Checkout
 * Sessions for payment actions (expired when their booking ends), refunds, and the webhook events that concern a booking, verified
 * with the SDK's `constructEvent` (signature over the raw body, 300 s tolerance by default, in the past
 * and, checked here, in the future).
 * `apiUrl` points the SDK elsewhere (stripe-mock, the test emulator); keys never leave this file.
 */
import { createRequire } from 'node:module';
import type Stripe from 'stripe';
import type { PaymentEvent } from '../operations/index.js';
import {
  ProviderError,
  WebhookRejected,
  type CheckoutRequest,
  type CheckoutSession,
  type PaymentProvider,
  type RefundRequest,
  type RefundResult,
} from './port.js';
import type { PaymentAdapter } from './adapter.js';

export interface StripeOptions {
  secretKey: string;
  webhookSecret: string;
  /** Default Stripe's own API (https://api.stripe.com). */
  apiUrl?: string;
  /** Seconds a signed event stays acceptable (default the SDK's 300). */
  toleranceS?: number;
  timeoutMs?: number;
  /**
   * Stripe Connect: the business's connected account (`acct_...`). Every call is made on its behalf
   * (the `Stripe-Account` header), and an event of any other account is refused (a deployment's
   * businesses share the platform's webhook secret, never each other's payments).
   */
  account?: string;
}

/**
 * Stripe as the core and the CLI see it: Checkout Sessions live between 30 minutes and 24 hours,
 * events are signed in `Stripe-Signature`, and three flags (two of them required) configure it.
 */
export const stripeAdapter: PaymentAdapter<StripeOptions> = {
  facts: { name: 'stripe', label: 'Stripe', checkoutTtlMs: { min: 30 * 60_000, max: 24 * 3600_000 } },
  signatureHeader: 'stripe-signature',
  // Stripe's events are small, but a checkout session with its line items can pass the host's default.
  maxWebhookBytes: 512 * 1024,
  flags: [
    {
      name: 'stripe-secret-key',
      value: 'KEY',
      env: 'STRIPE_SECRET_KEY',
      required: true,
      help: ['Stripe secret key (or STRIPE_SECRET_KEY); never logged or published'],
    },
    {
      name: 'stripe-webhook-secret',
      value: 'SECRET',
      env: 'STRIPE_WEBHOOK_SECRET',
      required: true,
      help: [
        'signing secret of the webhook endpoint (or STRIPE_WEBHOOK_SECRET); Stripe posts',
        'events to <public URL>/payments/stripe/webhook',
      ],
    },
    {
      name: 'stripe-api-url',
      value: 'URL',
      url: true,
      help: ["Stripe's API (default https://api.stripe.com; stripe-mock or an emulator in tests)"],
    },
    {
      name: 'stripe-account',
      value: 'ACCT',
      help: [
        'Stripe Connect: take payments for this connected account (acct_...) with the',
        "platform's key; events of other accounts are refused",
      ],
    },
  ],
  options: (v) => ({
    secretKey: v['stripe-secret-key'] ?? '',
    webhookSecret: v['stripe-webhook-secret'] ?? '',
    ...(v['stripe-api-url'] ? { apiUrl: v['stripe-api-url'] } : {}),
    ...(v['stripe-account'] ? { account: v['stripe-account'] } : {}),
  }),
  incomplete: (o) => !o?.secretKey || !o.webhookSecret,
  create: (o) => stripeProvider(o),
  // Stripe Connect: the platform's endpoint receives every connected account's events, each with `account`.
  connect: {
    accountFlag: 'stripe-account',
    account: /^acct_[A-Za-z0-9]{1,64}$/,
    webhookPath: '/stripe/connect/webhook',
    verify: (o, rawBody, signature, nowMs) => {
      const { account: _own, ...platform } = o;
      const event = stripeEventVerifier(platform)(rawBody, signature, nowMs);
      return { id: event.id, type: event.type, ...(event.account ? { account: event.account } : {}) };
    },
    withAccount: (o, account) => ({ ...o, account }),
  },
};

/**
 * The SDK (about 560 files), loaded when a Stripe provider or
 * verifier is made, not when this module is: a server taking no payments through Stripe never loads
 * it. A `require` of its CommonJS build, so that making a provider stays synchronous (composition and
 * the deployment's Connect door call in without awaiting); cached by Node after the first.
 */
function stripeSdk(): typeof Stripe {
  return createRequire(import.meta.url)('stripe') as typeof Stripe;
}

/** Stripe's dispute reasons in the spec's well-known words where one fits (spec 5.5.2); others pass through. */
const DISPUTE_REASONS: Record<string, string> = {
  fraudulent: 'unauthorized',
  unrecognized: 'unauthorized',
  duplicate: 'duplicate',
  product_not_received: 'service_not_provided',
  product_unacceptable: 'quality_issue',
};

type Obj = Record<string, unknown>;
/** The SDK's own default tolerance of a signed event, in seconds. */
const DEFAULT_TOLERANCE_S = 300;
const idOf = (v: unknown): string | undefined =>
  typeof v === 'string'
    ? v
    : v && typeof v === 'object' && typeof (v as Obj).id === 'string'
      ? ((v as Obj).id as string)
      : undefined;

export function stripeProvider(o: StripeOptions): PaymentProvider {
  const url = new URL(o.apiUrl ?? 'https://api.stripe.com');
  const stripe = new (stripeSdk())(o.secretKey, {
    host: url.hostname,
    port: url.port || (url.protocol === 'http:' ? 80 : 443),
    protocol: url.protocol === 'http:' ? 'http' : 'https',
    // Retries are the payment worker's, on its own schedule, with the same idempotency key.
    maxNetworkRetries: 0,
    timeout: o.timeoutMs ?? 20_000,
    telemetry: false,
    appInfo: { name: 'usp-server' },
    ...(o.account ? { stripeAccount: o.account } : {}),
  });

  const call = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      const e = err as { type?: string; statusCode?: number; message?: string };
      const status = e.statusCode;
      // Connection faults, 5xx, 429 and a concurrent use of the idempotency key are worth another try.
      const retryable =
        status === undefined || status >= 500 || status === 429 || status === 409 || e.type === 'StripeConnectionError';
      throw new ProviderError(
        `Stripe ${what} failed${status ? ` (HTTP ${status})` : ''}: ${e.message ?? String(err)}`,
        retryable,
        status,
      );
    }
  };

  const verifyEvent = stripeEventVerifier(o, stripe);

  const session = (s: Stripe.Checkout.Session): CheckoutSession => ({
    id: s.id,
    url: s.url ?? '',
    status: s.status === 'complete' ? 'complete' : s.status === 'expired' ? 'expired' : 'open',
    ...(idOf(s.payment_intent) ? { payment_ref: idOf(s.payment_intent) } : {}),
  });

  return {
    name: 'stripe',
    async createCheckout(req: CheckoutRequest) {
      const metadata = { booking_id: req.booking_id, action_id: req.action_id };
      const s = await call('checkout session create', () =>
        stripe.checkout.sessions.create(
          {
            mode: 'payment',
            line_items: [
              {
                quantity: 1,
                price_data: {
                  currency: req.currency.toLowerCase(),
                  unit_amount: req.amount,
                  product_data: { name: req.description },
                },
              },
            ],
            metadata,
            payment_intent_data: { metadata },
            client_reference_id: req.booking_id,
            expires_at: Math.floor(req.expires_ms / 1000),
            success_url: req.success_url,
            cancel_url: req.cancel_url,
          },
          { idempotencyKey: req.key },
        ),
      );
      return session(s);
    },
    async getCheckout(id) {
      return session(await call('checkout session retrieve', () => stripe.checkout.sessions.retrieve(id)));
    },
    async expireCheckout(req) {
      try {
        return session(
          await call('checkout session expire', () =>
            stripe.checkout.sessions.expire(req.id, {}, { idempotencyKey: req.key }),
          ),
        );
      } catch (err) {
        // Stripe expires only an open session: one paid or expired meanwhile is answered as it stands.
        if (!(err instanceof ProviderError) || err.retryable) throw err;
        const now = session(await call('checkout session retrieve', () => stripe.checkout.sessions.retrieve(req.id)));
        if (now.status === 'open') throw err;
        return now;
      }
    },
    async refund(req: RefundRequest): Promise<RefundResult> {
      const r = await call('refund', () =>
        stripe.refunds.create(
          { payment_intent: req.payment_ref, amount: req.amount, metadata: { booking_id: req.booking_id } },
          { idempotencyKey: req.key },
        ),
      );
      const status =
        r.status === 'succeeded'
          ? 'succeeded'
          : r.status === 'failed' || r.status === 'canceled'
            ? 'failed'
            : 'pending';
      return { id: r.id, status };
    },
    parseWebhook(rawBody, signature, nowMs) {
      const event = verifyEvent(rawBody, signature, nowMs);
      // Connect: the platform's endpoint secret signs every connected account's events; only this business's count here.
      if (o.account && event.account !== o.account)
        throw new WebhookRejected('the event is of another connected account');
      return toEvents(event);
    },
  };
}

/**
 * A Stripe event's signature checked with the endpoint's secret (the SDK's check of its age, and here
 * of a date ahead of the tolerance): the event, or WebhookRejected. The deployment's Connect endpoint
 * (server/hosted-connect.ts) checks with the platform's secret before it routes an event by its account.
 */
export function stripeEventVerifier(
  o: Pick<StripeOptions, 'secretKey' | 'webhookSecret' | 'toleranceS'>,
  stripe: Stripe = new (stripeSdk())(o.secretKey, { telemetry: false }),
): (rawBody: string, signature: string | undefined, nowMs: number) => Stripe.Event {
  return (rawBody, signature, nowMs) => {
    if (!signature) throw new WebhookRejected('no Stripe-Signature header');
    // The SDK bounds only the age of a signature; one dated ahead of the tolerance is refused too.
    const signedS = Number(/(?:^|,)\s*t=(\d+)/.exec(signature)?.[1]);
    if (signedS > nowMs / 1000 + (o.toleranceS ?? DEFAULT_TOLERANCE_S))
      throw new WebhookRejected('signature timestamp is in the future, beyond the tolerance');
    try {
      return stripe.webhooks.constructEvent(rawBody, signature, o.webhookSecret, o.toleranceS, undefined, nowMs);
    } catch (err) {
      throw new WebhookRejected(String((err as Error).message ?? err));
    }
  };
}

/** One Stripe event in our terms: the booking's checkout, its charge's refunds, its disputes; the rest is ignored. */
export function toEvents(event: Stripe.Event): PaymentEvent[] {
  const obj = event.data.object as unknown as Obj;
  const event_id = event.id;
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
    case 'checkout.session.expired': {
      const md = (obj.metadata ?? {}) as Record<string, string>;
      if (!md.booking_id || !md.action_id) return [{ type: 'ignored', event_id }];
      const base = { event_id, booking_id: md.booking_id, action_id: md.action_id, session_id: String(obj.id) };
      if (event.type === 'checkout.session.expired') return [{ type: 'checkout_expired', ...base }];
      return [
        {
          type: 'checkout_completed',
          ...base,
          paid: obj.payment_status === 'paid',
          amount: Number(obj.amount_total ?? 0),
          currency: String(obj.currency ?? '').toUpperCase(),
          payment_ref: idOf(obj.payment_intent) ?? String(obj.id),
        },
      ];
    }
    case 'charge.refunded': {
      const ref = idOf(obj.payment_intent) ?? String(obj.id);
      return [
        { type: 'charge_refunded', event_id, payment_ref: ref, amount_refunded: Number(obj.amount_refunded ?? 0) },
      ];
    }
    case 'charge.dispute.created':
    case 'charge.dispute.closed': {
      const ref = idOf(obj.payment_intent) ?? idOf(obj.charge) ?? '';
      if (!ref) return [{ type: 'ignored', event_id }];
      const raw = String(obj.reason ?? 'general');
      const base = {
        event_id,
        payment_ref: ref,
        dispute_id: String(obj.id),
        reason: DISPUTE_REASONS[raw] ?? raw,
        amount: Number(obj.amount ?? 0),
      };
      if (event.type === 'charge.dispute.created') return [{ type: 'dispute_opened', ...base }];
      // `lost`: the money went back to the buyer; `won` and a closed inquiry (`warning_closed`) keep it with the business.
      return [{ type: 'dispute_closed', ...base, outcome: obj.status === 'lost' ? 'buyer' : 'business' }];
    }
    default:
      return [{ type: 'ignored', event_id }];
  }
}
