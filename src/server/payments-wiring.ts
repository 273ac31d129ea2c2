/**
 * The payment provider chosen at start: the sandbox page (a sandbox only), Stripe (its adapter, the
 * payment worker and the webhook door), an external checkout URL template, or none. What cannot
 * work is refused before the server starts; what is switched off for lack of a provider is said.
 */
import type { Hono } from 'hono';
import { createPaymentWebhook, paymentWebhookPath, paymentWebhookRefusal } from '../bindings/payments/index.js';
import type { Business, BusinessScope, Logger, PaymentProviderKind, Pipeline, ProtocolError, ScopeResolver } from '../operations/index.js';
import { PaymentWorker, WebhookRejected, stripeProvider, type PaymentProvider, type StripeOptions } from '../payments/index.js';
import { underPaths, type Door } from './host.js';

export interface PaymentOptions {
  provider: PaymentProviderKind;
  stripe?: StripeOptions;
  /** A provider adapter to use instead of the one `provider` names (tests). */
  adapter?: PaymentProvider;
  /** The worker's poll interval (default 1 s). */
  pollMs?: number;
  /** False: the worker runs only when its `tick()` is called (tests that step it). Default true. */
  startWorker?: boolean;
}

export interface PaymentWiring {
  worker?: PaymentWorker;
  door?: Door;
  /** Say what is switched off for lack of a provider (once the server is open). */
  announce?: () => void;
}

/** Refuse a provider choice that cannot work (before anything is opened). */
export function checkPaymentOptions(o: PaymentOptions | undefined, sandbox: boolean): void {
  if (!o) return;
  if (o.provider === 'sandbox' && !sandbox) throw new Error('--payments sandbox takes no money and needs --sandbox (or --demo)');
  if (o.provider === 'stripe' && !o.adapter && (!o.stripe?.secretKey || !o.stripe.webhookSecret)) {
    throw new Error('--payments stripe needs --stripe-secret-key (or STRIPE_SECRET_KEY) and --stripe-webhook-secret (or STRIPE_WEBHOOK_SECRET)');
  }
}

/** The services a business without a payment provider cannot take, by name (for the start-up warning). */
export function servicesNeedingPayment(biz: Business): string[] {
  return biz.def.services.filter((s) => s.policies.requires_payment && s.policies.payment_timing !== 'at_service' && s.pricing.model !== 'free').map((s) => s.id);
}

/** `scope`: the business whose jobs the worker runs; `scopeOf`: the business a webhook delivery is for. */
export function wirePayments(
  o: PaymentOptions | undefined,
  deps: { scope: BusinessScope; scopeOf: ScopeResolver; pipeline: Pipeline; now: () => number; log: Logger },
): PaymentWiring {
  const biz = deps.scope.business.current();
  const kind = biz.payments;
  if (kind === 'none') {
    const ids = servicesNeedingPayment(biz);
    if (ids.length === 0) return {};
    return {
      announce: () =>
        deps.log.warn('no payment provider: services paid when booking cannot be booked', {
          services: ids,
          enable_with: '--payments stripe --stripe-secret-key KEY --stripe-webhook-secret SECRET, or --checkout-url TEMPLATE, or --sandbox',
        }),
    };
  }
  if (kind !== 'stripe') return {};
  const provider = o?.adapter ?? stripeProvider(o!.stripe!);
  const worker = new PaymentWorker({ store: deps.scope.store, scope: deps.scope, provider, pipeline: deps.pipeline, now: deps.now, log: deps.log, pollMs: o?.pollMs });
  const app: Hono = createPaymentWebhook({
    pipeline: deps.pipeline,
    scopeOf: deps.scopeOf,
    provider: provider.name,
    signatureHeader: 'stripe-signature',
    log: deps.log,
    parse(raw, signature) {
      try {
        return { events: provider.parseWebhook(raw, signature, deps.now()) };
      } catch (err) {
        if (err instanceof WebhookRejected) return { rejected: err.message };
        throw err;
      }
    },
  });
  const door: Door = {
    name: 'payments',
    claims: underPaths(paymentWebhookPath(provider.name)),
    fetch: (req, env) => app.fetch(req, env),
    refuse: (_req, status, err: ProtocolError) => paymentWebhookRefusal(err, status),
    // Stripe's events are small, but a checkout session with its line items can pass the host's default.
    maxBodyBytes: 512 * 1024,
  };
  return { worker, door };
}
