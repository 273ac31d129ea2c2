/**
 * The deployment's one endpoint for a payment provider's connected accounts (Stripe Connect: `POST
 * /stripe/connect/webhook`, the adapter's `connect.webhookPath`), at any host name of the deployment:
 * the provider sends every connected account's events to one endpoint of the platform, each naming its
 * account. The event's signature is checked with the platform's options, then the event goes, as it
 * came (body and signature), to the own webhook door of the business whose account it names, opened if
 * it is not loaded, which checks and applies it exactly as when the provider posts to it directly. An
 * event of an account no business has (or of the platform itself) is acknowledged, so that the provider
 * stops sending it, and logged; a bad signature is refused (400). The router (hosting.ts) frames the
 * plain answers.
 */
import type { Logger } from '../operations/index.js';
import { paymentAdapter, type PaymentAdapter, type PaymentConnect } from '../payments/index.js';
import type { DeploymentDirectory, HostedBusiness } from '../store/index.js';

/** The platform's payment options, which every hosted business with an account is composed with on it. */
export interface ConnectPlatform {
  /** The adapter's name (`--payments` choice). */
  provider: string;
  /** The adapter's options, without an account. */
  options: unknown;
}

export interface ConnectDoorOptions {
  platform: ConnectPlatform;
  directory: Pick<DeploymentDirectory, 'byPaymentAccount'>;
  /** The business's own door: the request sent on to it (opened first if it is not loaded). */
  deliver(b: HostedBusiness, req: Request): Promise<Response>;
  /** A business's public origin (its first host name, the deployment's scheme and port). */
  originOf(b: HostedBusiness): string;
  now(): number;
  log: Logger;
}

/** A plain answer the router frames, or the business's own. */
export type ConnectAnswer = Response | { status: number; text: string; allow?: string };

/** The adapter of a platform that has connected accounts; an Error naming the provider otherwise. */
export function connectAdapter(provider: string): PaymentAdapter & { connect: PaymentConnect } {
  const a = paymentAdapter(provider);
  if (!a?.connect) throw new Error(`the payment provider ${JSON.stringify(provider)} has no connected accounts`);
  return a as PaymentAdapter & { connect: PaymentConnect };
}

/** The endpoint's handler: an answer for a request to the adapter's Connect path, undefined for any other. */
export function connectWebhookDoor(o: ConnectDoorOptions): (req: Request) => Promise<ConnectAnswer> | undefined {
  const adapter = connectAdapter(o.platform.provider);
  return (req) => {
    if (new URL(req.url).pathname !== adapter.connect.webhookPath) return undefined;
    if (req.method !== 'POST') return Promise.resolve({ status: 405, text: 'Method Not Allowed', allow: 'POST' });
    return handle(o, adapter, req);
  };
}

async function handle(
  o: ConnectDoorOptions,
  adapter: PaymentAdapter & { connect: PaymentConnect },
  req: Request,
): Promise<ConnectAnswer> {
  const max = adapter.maxWebhookBytes ?? 512 * 1024;
  const tooLarge = { status: 413, text: 'The event is too large.' };
  if (Number(req.headers.get('content-length') ?? 0) > max) return tooLarge;
  const raw = await req.text();
  if (Buffer.byteLength(raw) > max) return tooLarge;
  const signature = req.headers.get(adapter.signatureHeader) ?? undefined;
  let event: ReturnType<PaymentConnect['verify']>;
  try {
    event = adapter.connect.verify(o.platform.options, raw, signature, o.now());
  } catch (err) {
    o.log.warn('connected-account webhook refused', { provider: o.platform.provider, error: (err as Error).message });
    return { status: 400, text: 'The event could not be verified.' };
  }
  const b = event.account ? o.directory.byPaymentAccount(event.account) : undefined;
  if (!b) {
    // Acknowledged: the provider would otherwise retry for days an event nobody here can apply.
    o.log.warn('connected-account event of an account no hosted business has; acknowledged, not applied', {
      provider: o.platform.provider,
      event: event.id,
      type: event.type,
      account: event.account ?? '(the platform)',
    });
    return { status: 200, text: 'ok' };
  }
  const to = new URL(`/payments/${o.platform.provider}/webhook`, o.originOf(b));
  const headers = new Headers({ host: to.host, 'content-type': req.headers.get('content-type') ?? 'application/json' });
  if (signature) headers.set(adapter.signatureHeader, signature);
  return o.deliver(b, new Request(to, { method: 'POST', headers, body: raw }));
}

/** A business with an account, with the platform's options: the provider on its account, whatever else the deployment's default is. */
export function connectedPayments<P extends { provider: string } | undefined>(
  platform: ConnectPlatform | undefined,
  b: HostedBusiness,
  base: P,
): P | { provider: string; [options: string]: unknown } {
  if (!platform || !b.paymentAccount) return base;
  const adapter = connectAdapter(platform.provider);
  return {
    ...base,
    provider: platform.provider,
    [platform.provider]: adapter.connect.withAccount(platform.options, b.paymentAccount),
  };
}
