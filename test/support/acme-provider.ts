/**
 * The adapter of "Acme Pay" (test/support/acme-emulator.ts), written only under test/: it plugs in
 * with `registerPaymentAdapter` and touches no file of src/. Its own facts (name, label, a checkout
 * life of 45 minutes to 6 hours), its own signature header and scheme (an HMAC, not Stripe's), its
 * own flags and environment variables.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PaymentEvent } from '../../src/operations/index.js';
import {
  ProviderError,
  WebhookRejected,
  registerPaymentAdapter,
  type CheckoutSession,
  type PaymentAdapter,
  type PaymentProvider,
} from '../../src/payments/index.js';
import { ACME_MAX_TTL_MS, ACME_MIN_TTL_MS } from './acme-emulator.js';

export interface AcmeOptions {
  apiKey: string;
  webhookSecret: string;
  apiUrl: string;
}

const TOLERANCE_MS = 300_000;

export function acmeProvider(o: AcmeOptions): PaymentProvider {
  const call = async (method: string, path: string, body?: object, key?: string): Promise<Record<string, any>> => {
    let res: Response;
    try {
      res = await fetch(`${o.apiUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${o.apiKey}`,
          'Content-Type': 'application/json',
          ...(key ? { 'Acme-Idempotency': key } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      throw new ProviderError(`Acme ${method} ${path} failed: ${String(err)}`, true);
    }
    const out = (await res.json()) as Record<string, any>;
    if (!res.ok)
      throw new ProviderError(
        `Acme ${method} ${path} failed (HTTP ${res.status}): ${out.reason}`,
        res.status >= 500 || res.status === 429,
        res.status,
      );
    return out;
  };
  const session = (c: Record<string, any>): CheckoutSession => ({
    id: c.id,
    url: c.pay_url,
    status: c.state === 'paid' ? 'complete' : c.state === 'closed' ? 'expired' : 'open',
    ...(c.payment ? { payment_ref: c.payment } : {}),
  });
  return {
    name: 'acme',
    async createCheckout(req) {
      const body = {
        reference: req.booking_id,
        action: req.action_id,
        amount: req.amount,
        currency: req.currency,
        title: req.description,
        expires_at: req.expires_ms,
        return_ok: req.success_url,
        return_cancel: req.cancel_url,
      };
      return session(await call('POST', '/checkouts', body, req.key));
    },
    getCheckout: async (id) => session(await call('GET', `/checkouts/${encodeURIComponent(id)}`)),
    async expireCheckout(req) {
      try {
        return session(await call('POST', `/checkouts/${encodeURIComponent(req.id)}/close`, {}, req.key));
      } catch (err) {
        if (!(err instanceof ProviderError) || err.status !== 409) throw err;
        return session(await call('GET', `/checkouts/${encodeURIComponent(req.id)}`));
      }
    },
    async refund(req) {
      const r = await call(
        'POST',
        '/refunds',
        { payment: req.payment_ref, amount: req.amount, reference: req.booking_id },
        req.key,
      );
      return { id: r.id, status: r.done ? 'succeeded' : 'pending' };
    },
    parseWebhook(rawBody, signature, nowMs) {
      const m = /^t=(\d+);mac=([0-9a-f]{64})$/.exec(signature ?? '');
      if (!m) throw new WebhookRejected('no Acme-Signature');
      const expected = createHmac('sha256', o.webhookSecret).update(`${m[1]}.${rawBody}`).digest();
      if (!timingSafeEqual(expected, Buffer.from(m[2], 'hex')))
        throw new WebhookRejected('Acme-Signature does not match');
      if (Math.abs(nowMs - Number(m[1])) > TOLERANCE_MS)
        throw new WebhookRejected('Acme-Signature is outside the tolerance');
      const ev = JSON.parse(rawBody) as { id: string; kind: string; data: Record<string, any> };
      const d = ev.data;
      if (ev.kind === 'checkout.paid') {
        return [
          {
            type: 'checkout_completed',
            event_id: ev.id,
            booking_id: d.reference,
            action_id: d.action,
            session_id: d.checkout,
            paid: true,
            amount: d.amount,
            currency: d.currency,
            payment_ref: d.payment,
          },
        ] satisfies PaymentEvent[];
      }
      if (ev.kind === 'checkout.closed')
        return [
          {
            type: 'checkout_expired',
            event_id: ev.id,
            booking_id: d.reference,
            action_id: d.action,
            session_id: d.checkout,
          },
        ];
      return [{ type: 'ignored', event_id: ev.id }];
    },
  };
}

export const acmeAdapter: PaymentAdapter<AcmeOptions> = {
  facts: { name: 'acme', label: 'Acme Pay', checkoutTtlMs: { min: ACME_MIN_TTL_MS, max: ACME_MAX_TTL_MS } },
  signatureHeader: 'acme-signature',
  flags: [
    {
      name: 'acme-api-key',
      value: 'KEY',
      env: 'ACME_API_KEY',
      required: true,
      help: ['Acme Pay API key (or ACME_API_KEY)'],
    },
    {
      name: 'acme-webhook-secret',
      value: 'SECRET',
      env: 'ACME_WEBHOOK_SECRET',
      required: true,
      help: ['HMAC secret of Acme-Signature (or ACME_WEBHOOK_SECRET)'],
    },
    { name: 'acme-api-url', value: 'URL', url: true, help: ["Acme Pay's API"] },
  ],
  options: (v) => ({
    apiKey: v['acme-api-key'] ?? '',
    webhookSecret: v['acme-webhook-secret'] ?? '',
    apiUrl: v['acme-api-url'] ?? 'https://api.acme.invalid',
  }),
  incomplete: (o) => !o?.apiKey || !o.webhookSecret,
  create: acmeProvider,
};

/** Register Acme (once per module graph; registering the same adapter again is allowed). */
export function registerAcme(): void {
  registerPaymentAdapter(acmeAdapter);
}
