/**
 * The payment provider's webhook door (`POST /payments/stripe/webhook`): the raw body and its
 * signature go to the provider adapter, which verifies them and turns the event into ours; each is
 * then applied through the pipeline as the business (audited as the provider). A forged, unsigned
 * or stale delivery answers 400 and changes nothing; an applied or repeated one answers 200; a
 * database that is away answers 503 so that the provider delivers again later.
 */
import { Hono } from 'hono';
import {
  operationForPaymentEvents,
  type Caller,
  type PaymentEvent,
  type Pipeline,
  type ProtocolError,
  type ScopeResolver,
} from '../../operations/index.js';

export interface PaymentWebhookOptions {
  pipeline: Pipeline;
  /** The business a delivery is for. */
  scopeOf: ScopeResolver;
  /** The provider's name (`stripe`): the path is /payments/<name>/webhook. */
  provider: string;
  /** Verify and translate; `rejected` names why a delivery cannot be trusted (logged, never echoed). */
  parse(rawBody: string, signature: string | undefined): { events: PaymentEvent[] } | { rejected: string };
  /** The provider's signature header (Stripe-Signature). */
  signatureHeader: string;
  log: { warn(msg: string, fields?: Record<string, unknown>): void };
}

export const paymentWebhookPath = (provider: string): string => `/payments/${provider}/webhook`;

const json = (status: number, body: Record<string, unknown>) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
  });

export function createPaymentWebhook(o: PaymentWebhookOptions): Hono {
  const app = new Hono();
  const op = operationForPaymentEvents();
  const caller: Caller = { principal: null, profile: null, business: true, actor: `payment_provider:${o.provider}` };
  app.post(paymentWebhookPath(o.provider), async (c) => {
    const raw = await c.req.text();
    const parsed = o.parse(raw, c.req.header(o.signatureHeader));
    if ('rejected' in parsed) {
      o.log.warn('payment webhook refused', { provider: o.provider, reason: parsed.rejected });
      return json(400, { error: 'invalid_signature', message: 'The webhook signature could not be verified.' });
    }
    for (const event of parsed.events) {
      const res = await o.pipeline.execute(
        op,
        { input: { provider: o.provider, event }, trustedCaller: caller, door: 'payments' },
        o.scopeOf(c.req.raw),
      );
      if (!res.ok) return refusal(res.error);
    }
    return json(200, { received: true });
  });
  app.all('*', () =>
    json(405, { error: 'method_not_allowed', message: `POST signed events to ${paymentWebhookPath(o.provider)}.` }),
  );
  return app;
}

/** A call refused (by the pipeline, or the host with its own status): 503 (deliver again later) when the store is away, 400 for input, else 500. */
export function refusal(err: ProtocolError, hostStatus?: number): Response {
  const status = hostStatus ?? (err.code === 'service_unavailable' ? 503 : err.code === 'invalid_request' ? 400 : 500);
  return json(status, { error: err.code, message: err.message });
}
