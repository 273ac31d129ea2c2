/**
 * The payment mode chosen at start: the sandbox page (a sandbox only), a provider (its registered
 * adapter, the payment worker and the webhook door), an external checkout URL template, or none.
 * What cannot work is refused before the server starts; what is switched off for lack of a provider
 * is said. No provider is named here: each adapter declares its facts (`src/payments/adapters.ts`).
 */
import type { Hono } from 'hono';
import { createPaymentWebhook, paymentWebhookPath, paymentWebhookRefusal } from '../bindings/payments/index.js';
import type {
  Business,
  BusinessScope,
  Logger,
  PaymentProviderKind,
  Pipeline,
  ProtocolError,
  ScopeResolver,
} from '../operations/index.js';
import {
  PaymentWorker,
  WebhookRejected,
  paymentAdapter,
  paymentAdapters,
  paymentChoices,
  requiredFlagWords,
  type PaymentAdapter,
  type PaymentProvider,
} from '../payments/index.js';
import { underPaths, type Door } from './host.js';

export interface PaymentOptions {
  /** `sandbox`, `external`, `none`, or the name of a registered provider adapter. */
  provider: string;
  /** A provider to use instead of the one the named adapter creates (tests). */
  adapter?: PaymentProvider;
  /** The worker's poll interval (default 1 s). */
  pollMs?: number;
  /** False: the worker runs only when its `tick()` is called (tests that step it). Default true. */
  startWorker?: boolean;
  /** The adapter's own options, under its name (the CLI builds them from the adapter's flags). */
  [adapterOptions: string]: unknown;
}

const MODES = ['sandbox', 'external', 'none'] as const;

/** The payment choice the business is compiled with: a mode, or the named adapter's facts (undefined: the default). */
export function paymentChoice(o: PaymentOptions | undefined): PaymentProviderKind | undefined {
  if (!o) return undefined;
  if ((MODES as readonly string[]).includes(o.provider)) return o.provider as (typeof MODES)[number];
  return adapterOf(o).facts;
}

function adapterOf(o: PaymentOptions): PaymentAdapter {
  const a = paymentAdapter(o.provider);
  if (!a)
    throw new Error(`--payments must be one of ${paymentChoices().join(', ')}, got ${JSON.stringify(o.provider)}`);
  return a;
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
  if (o.provider === 'sandbox' && !sandbox)
    throw new Error('--payments sandbox takes no money and needs --sandbox (or --demo)');
  if ((MODES as readonly string[]).includes(o.provider)) return;
  const a = adapterOf(o);
  if (!o.adapter && a.incomplete(o[a.facts.name]))
    throw new Error(`--payments ${a.facts.name} needs ${requiredFlagWords(a, false)}`);
}

/** The services a business without a payment provider cannot take, by name (for the start-up warning). */
export function servicesNeedingPayment(biz: Business): string[] {
  return biz.def.services
    .filter(
      (s) => s.policies.requires_payment && s.policies.payment_timing !== 'at_service' && s.pricing.model !== 'free',
    )
    .map((s) => s.id);
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
          enable_with: [...paymentAdapters().map(enableWords), '--checkout-url TEMPLATE', '--sandbox'].join(', or '),
        }),
    };
  }
  if (kind !== 'provider' || !o) return {};
  const adapter = adapterOf(o);
  const provider = o.adapter ?? adapter.create(o[adapter.facts.name]);
  const worker = new PaymentWorker({
    store: deps.scope.store,
    scope: deps.scope,
    provider,
    pipeline: deps.pipeline,
    now: deps.now,
    log: deps.log,
    pollMs: o?.pollMs,
  });
  const app: Hono = createPaymentWebhook({
    pipeline: deps.pipeline,
    scopeOf: deps.scopeOf,
    provider: provider.name,
    signatureHeader: adapter.signatureHeader,
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
    ...(adapter.maxWebhookBytes ? { maxBodyBytes: adapter.maxWebhookBytes } : {}),
  };
  return { worker, door };
}

/** How to turn a provider on, for the warning: `--payments <name>` and its required flags. */
function enableWords(a: PaymentAdapter): string {
  return [`--payments ${a.facts.name}`, ...a.flags.filter((f) => f.required).map((f) => `--${f.name} ${f.value}`)].join(
    ' ',
  );
}
