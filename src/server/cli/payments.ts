/** `serve`'s payment provider flags: which provider takes online payments, and Stripe's keys (flags or environment). */
import type { PaymentOptions } from '../payments-wiring.js';
import { UsageError, type Flags } from './common.js';

export const PAYMENTS_HELP = `Payments (who takes the buyer's money for services paid when booking):
  --payments sandbox|stripe|external|none   default: external with --checkout-url, sandbox with --sandbox/--demo, else none
                                        (none: services paid when booking cannot be booked; the start-up log names them)
  --stripe-secret-key KEY               Stripe secret key (or STRIPE_SECRET_KEY); never logged or published
  --stripe-webhook-secret SECRET        signing secret of the webhook endpoint (or STRIPE_WEBHOOK_SECRET); Stripe posts
                                        events to <public URL>/payments/stripe/webhook
  --stripe-api-url URL                  Stripe's API (default https://api.stripe.com; stripe-mock or an emulator in tests)
  --checkout-url TEMPLATE               an external checkout page: {booking_id}, {action_id}, {amount}, {currency} and
                                        {return_url} (our page that returns the buyer to the platform) are filled in`;

const KINDS = ['sandbox', 'stripe', 'external', 'none'] as const;

/** The payment options of `serve`, or undefined for the default choice. */
export function paymentOptions(flags: Flags, env: NodeJS.ProcessEnv = process.env): PaymentOptions | undefined {
  const kind = flags.payments;
  if (kind === undefined) return undefined;
  if (!(KINDS as readonly string[]).includes(kind)) throw new UsageError(`--payments must be one of ${KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
  if (kind === 'external' && !flags['checkout-url']) throw new UsageError('--payments external needs --checkout-url TEMPLATE');
  if (kind !== 'stripe') return { provider: kind as PaymentOptions['provider'] };
  const secretKey = flags['stripe-secret-key'] ?? env.STRIPE_SECRET_KEY;
  const webhookSecret = flags['stripe-webhook-secret'] ?? env.STRIPE_WEBHOOK_SECRET;
  if (!secretKey) throw new UsageError('--payments stripe needs --stripe-secret-key KEY (or STRIPE_SECRET_KEY)');
  if (!webhookSecret) throw new UsageError('--payments stripe needs --stripe-webhook-secret SECRET (or STRIPE_WEBHOOK_SECRET)');
  const apiUrl = flags['stripe-api-url'];
  if (apiUrl !== undefined && !/^https?:\/\/[^/]/.test(apiUrl)) throw new UsageError(`--stripe-api-url must be an http(s) URL, got ${JSON.stringify(apiUrl)}`);
  return { provider: 'stripe', stripe: { secretKey, webhookSecret, ...(apiUrl ? { apiUrl } : {}) } };
}
