/**
 * The deployment's one Stripe Connect webhook endpoint (`POST /stripe/connect/webhook`, at any host
 * name of the deployment): Stripe sends every connected account's events to one endpoint of the
 * platform, each naming its account. The event's signature is checked with the platform's endpoint
 * secret, then the event goes, as it came (body and signature), to the own webhook door of the
 * business whose account it names, opened if it is not loaded, which checks and applies it exactly as
 * when Stripe posts to it directly. An event of an account no business has (or of the platform itself)
 * is acknowledged, so that Stripe stops sending it, and logged; a bad signature is refused (400).
 */
import type { Logger } from '../operations/index.js';
import { stripeAdapter, stripeEventVerifier, type StripeOptions } from '../payments/stripe.js';
import type { DeploymentDirectory, HostedBusiness } from '../store/index.js';

export const CONNECT_WEBHOOK_PATH = '/stripe/connect/webhook';
const MAX_BYTES = stripeAdapter.maxWebhookBytes ?? 512 * 1024;

/** The platform's Stripe keys, which every hosted business with a connected account is composed with. */
export type StripePlatform = Omit<StripeOptions, 'account'>;

export interface ConnectDoorOptions {
  platform: StripePlatform;
  directory: Pick<DeploymentDirectory, 'byStripeAccount'>;
  /** The business's own door: the request sent on to it (opened first if it is not loaded). */
  deliver(b: HostedBusiness, req: Request): Promise<Response>;
  /** A business's public origin (its first host name, the deployment's scheme and port). */
  originOf(b: HostedBusiness): string;
  now(): number;
  log: Logger;
}

const text = (status: number, body: string) => new Response(`${body}\n`, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' } });

/** The endpoint's handler: a response for a request to CONNECT_WEBHOOK_PATH, undefined for any other. */
export function connectWebhookDoor(o: ConnectDoorOptions): (req: Request) => Promise<Response> | undefined {
  const verify = stripeEventVerifier(o.platform);
  return (req) => {
    if (new URL(req.url).pathname !== CONNECT_WEBHOOK_PATH) return undefined;
    if (req.method !== 'POST') return Promise.resolve(new Response('Method Not Allowed\n', { status: 405, headers: { Allow: 'POST' } }));
    return handle(o, verify, req);
  };
}

async function handle(o: ConnectDoorOptions, verify: ReturnType<typeof stripeEventVerifier>, req: Request): Promise<Response> {
  const declared = Number(req.headers.get('content-length') ?? 0);
  if (declared > MAX_BYTES) return text(413, 'The event is too large.');
  const raw = await req.text();
  if (Buffer.byteLength(raw) > MAX_BYTES) return text(413, 'The event is too large.');
  const signature = req.headers.get('stripe-signature') ?? undefined;
  let event: ReturnType<typeof verify>;
  try {
    event = verify(raw, signature, o.now());
  } catch (err) {
    o.log.warn('Stripe Connect webhook refused', { error: (err as Error).message });
    return text(400, 'The event could not be verified.');
  }
  const b = event.account ? o.directory.byStripeAccount(event.account) : undefined;
  if (!b) {
    // Acknowledged: Stripe would otherwise retry for days an event nobody here can apply.
    o.log.warn('Stripe Connect event of an account no hosted business has; acknowledged, not applied', {
      event: event.id,
      type: event.type,
      account: event.account ?? '(the platform)',
    });
    return text(200, 'ok');
  }
  const to = new URL('/payments/stripe/webhook', o.originOf(b));
  const headers = new Headers({ host: to.host, 'content-type': req.headers.get('content-type') ?? 'application/json', 'stripe-signature': signature! });
  return o.deliver(b, new Request(to, { method: 'POST', headers, body: raw }));
}
