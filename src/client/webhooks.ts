/**
 * Receiving a business's webhooks as a platform must: the body's `Content-Digest` and the RFC 9421
 * signature are checked against the keys the business publishes in its profile (an unknown key id
 * makes the client read the profile again once: the business may have rotated its key), a stale
 * signature is refused, an event already handled is acknowledged and not handed on twice, and what
 * passes reaches the caller as a typed event. A refusal names its reason.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { verifyRequestSignature } from '../security/index.js';
import type { Booking } from '../domain/index.js';
import { profileUrlOf, type ProfileCache } from './discovery.js';
import { UspError, verificationError } from './errors.js';

/** A booking's lifecycle event (the official BookingEvent): `data` is the booking as it now stands. */
export interface BookingEvent {
  event: `booking.${string}`;
  event_id: string;
  booking_id: string;
  timestamp: string;
  order_id?: string;
  data?: Booking;
  [k: string]: unknown;
}

/** A waitlist entry's event (the official WaitlistEvent): an offer, a conversion, an expiry, a move. */
export interface WaitlistEvent {
  event: `waitlist.${string}`;
  event_id: string;
  entry_id: string;
  service_id: string;
  timestamp: string;
  data?: Record<string, unknown> & { id: string; status: string; revision?: string };
  [k: string]: unknown;
}

/** A catalog change under a feed subscription (the official CatalogEvent). */
export interface CatalogEvent {
  event: `service.${string}`;
  event_id: string;
  service_id: string;
  subscription_id: string;
  timestamp: string;
  data?: Record<string, unknown> & { id: string };
  [k: string]: unknown;
}

/** What a business's webhook carries; tell them apart by `event`'s prefix (`isBookingEvent`, ...). */
export type WebhookEvent = BookingEvent | WaitlistEvent | CatalogEvent;

export const isBookingEvent = (e: WebhookEvent): e is BookingEvent => e.event.startsWith('booking.');
export const isWaitlistEvent = (e: WebhookEvent): e is WaitlistEvent => e.event.startsWith('waitlist.');
export const isCatalogEvent = (e: WebhookEvent): e is CatalogEvent => e.event.startsWith('service.');

export interface WebhookRequest {
  method: string;
  /** The URL the business posted to (scheme, host and path as it signed them). */
  url: string;
  headers: Headers | Record<string, string>;
  body: Uint8Array | string;
}

export interface WebhookContext {
  /** The profile URL of the business whose key verified the webhook. */
  business: string;
  keyid: string;
}

/** Which event ids were handed on already (a database table in production; memory by default). */
export interface SeenEvents {
  has(eventId: string): boolean | Promise<boolean>;
  add(eventId: string): void | Promise<void>;
}

export function memorySeenEvents(limit = 10_000): SeenEvents {
  const seen = new Set<string>();
  return {
    has: (id) => seen.has(id),
    add: (id) => {
      seen.add(id);
      if (seen.size > limit) seen.delete(seen.values().next().value!);
    },
  };
}

export interface WebhookReceiverOptions {
  /** The businesses whose webhooks are accepted: their profile URLs (or base URLs). */
  businesses: () => readonly string[];
  profiles: ProfileCache;
  onEvent: (event: WebhookEvent, ctx: WebhookContext) => void | Promise<void>;
  seen?: SeenEvents;
  /** A signature older than this is refused (the business signs every attempt afresh). Default 300 s. */
  maxAgeSeconds?: number;
  now?: () => number;
}

export interface WebhookAnswer {
  /** What to answer the business: 200 handled (or a duplicate), 401/400 refused, 500 the handler failed (it will retry). */
  status: number;
  event?: WebhookEvent;
  duplicate?: boolean;
  error?: UspError;
}

const WEBHOOK_COMPONENTS = ['@method', '@authority', '@path', 'content-digest', 'content-type'];

export class WebhookReceiver {
  private readonly seen: SeenEvents;
  constructor(private readonly o: WebhookReceiverOptions) {
    this.seen = o.seen ?? memorySeenEvents();
  }

  /** Verify one delivery and hand its event on; never throws. */
  async receive(req: WebhookRequest): Promise<WebhookAnswer> {
    const body = typeof req.body === 'string' ? new TextEncoder().encode(req.body) : req.body;
    const headers =
      req.headers instanceof Headers
        ? Object.fromEntries(req.headers)
        : Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), v]));
    if (!headers['content-digest'])
      return { status: 400, error: verificationError('digest_missing', 'the webhook has no Content-Digest') };
    let verified: { business: string; keyid: string };
    try {
      verified = await this.verify({ ...req, headers, body });
    } catch (err) {
      if (err instanceof UspError) return { status: err.code === 'digest_mismatch' ? 400 : 401, error: err };
      const code =
        typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : 'signature_invalid';
      return {
        status: code === 'digest_mismatch' ? 400 : 401,
        error: verificationError(code, `the webhook was refused: ${(err as Error).message}`),
      };
    }
    let event: WebhookEvent;
    try {
      event = JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
    } catch {
      return { status: 400, error: verificationError('body_malformed', 'the webhook body is not JSON') };
    }
    if (!event || typeof event.event !== 'string' || typeof event.event_id !== 'string') {
      return { status: 400, error: verificationError('body_malformed', 'the webhook body has no event or event_id') };
    }
    if (await this.seen.has(event.event_id)) return { status: 200, event, duplicate: true };
    try {
      await this.o.onEvent(event, verified);
    } catch (err) {
      // Not marked seen: the business delivers it again.
      return {
        status: 500,
        event,
        error: new UspError('outcome', 'handler_failed', (err as Error).message, 'recoverable', 'retry'),
      };
    }
    await this.seen.add(event.event_id);
    return { status: 200, event };
  }

  /** The business whose published key `keyid` is; the profiles are read again once when no business lists it (rotation). */
  private async verify(
    req: WebhookRequest & { headers: Record<string, string>; body: Uint8Array },
  ): Promise<{ business: string; keyid: string }> {
    let business = '';
    const find = async (kid: string, force: boolean) => {
      for (const url of this.o.businesses().map(profileUrlOf)) {
        const entry = await this.o.profiles.get(url, { force }).catch(() => null);
        const key = [...(entry?.profile.keys ?? []), ...(entry?.profile.signing_keys ?? [])].find(
          (k) => (k as { kid?: string }).kid === kid,
        );
        if (key) {
          business = url;
          return key;
        }
      }
      return null;
    };
    const result = await verifyRequestSignature(
      req,
      async (kid) => (await find(kid, false)) ?? (await find(kid, true)),
      {
        now: (this.o.now ?? Date.now)(),
        maxAgeSeconds: this.o.maxAgeSeconds ?? 300,
        requiredComponents: () => WEBHOOK_COMPONENTS,
      },
    );
    return { business, keyid: result.keyid };
  }

  /**
   * A Node request listener for the webhook path. `origin` is the public origin the business posts
   * to (it signed that authority); by default the request's Host header.
   */
  listener(origin?: string): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= 1 << 20) chunks.push(c);
      });
      req.on('end', async () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        const url = `${origin ?? `http://${req.headers.host ?? 'localhost'}`}${req.url ?? '/'}`;
        const a =
          size > 1 << 20
            ? { status: 413 }
            : await this.receive({
                method: req.method ?? 'POST',
                url,
                headers,
                body: new Uint8Array(Buffer.concat(chunks)),
              });
        res
          .writeHead(a.status, { 'Content-Type': 'application/json' })
          .end(JSON.stringify(a.status === 200 ? {} : { error: (a as WebhookAnswer).error?.code ?? 'refused' }));
      });
    };
  }
}
