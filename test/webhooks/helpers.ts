/**
 * Webhook test support: a usp-server wired for loopback webhook delivery (platform profiles served
 * from a loopback profile server, `allowLoopbackProfiles`, a fast retry schedule), a clock that
 * either stands still (ManualClock) or runs from TEST_NOW, and an independent RFC 9421 verifier
 * built on the `http-message-signatures` library and node's crypto (ES256, raw r||s), checked
 * against the keys the business publishes at `/.well-known/usp`.
 */
import { createHash, createPublicKey, verify as cryptoVerify, type JsonWebKey } from 'node:crypto';
import { httpbis } from 'http-message-signatures';
import { parseDictionary, isInnerList, type Item } from 'structured-headers';
import type { BusinessDef } from '../../src/domain/business.js';
import { ManualClock, silentLogger } from '../../src/operations/index.js';
import { createUspServer, type UspServer } from '../../src/server/compose.js';
import type { RetryPolicy } from '../../src/webhooks/index.js';
import { ADMIN_KEY, BUYER, day, demoBusiness } from '../support/server.js';
import { TEST_NOW, waitFor } from '../support/time.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import type { ReceivedRequest } from '../support/webhook-receiver.js';

export { ADMIN_KEY, BUYER, TEST_NOW, day, demoBusiness, waitFor };

/** The five components a webhook signature must cover (spec 10.1.1), in the order the business signs them. */
export const REQUIRED_COMPONENTS = ['@method', '@authority', '@path', 'content-digest', 'content-type'];

/**
 * A ManualClock that also runs: now() is the set time plus the real time elapsed since, so retry
 * backoffs come due on their own while `advance()` can still jump ahead.
 */
export class RunningClock extends ManualClock {
  private readonly origin = performance.now();
  override now(): number {
    return super.now() + Math.floor(performance.now() - this.origin);
  }
  override set(ms: number): void {
    super.set(ms - Math.floor(performance.now() - this.origin));
  }
}

export interface WebhookServerOptions {
  /** Default: a RunningClock starting at TEST_NOW. */
  clock?: ManualClock;
  db?: string;
  business?: BusinessDef;
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
  pollMs?: number;
  signingKey?: { kid: string; pem: string };
  /** Share one profile server between servers (restarts); default: a new one, closed with the server. */
  profiles?: ProfileServer;
}

export interface WebhookTestServer {
  url: string;
  server: UspServer;
  clock: ManualClock;
  profiles: ProfileServer;
  /** Serve a platform profile whose webhook_url is `webhookUrl`; returns the profile URI (USP-Agent). */
  platform(name: string, webhookUrl: string): string;
  /** REST call presenting `profile` as USP-Agent (null: none). */
  call(
    method: string,
    path: string,
    body: unknown,
    profile: string | null,
    opts?: { apiKey?: string; ifMatch?: string },
  ): Promise<{ status: number; body: any }>;
  /** The business's own move on a booking (`start`, `complete`, `no-show`) with the admin key. */
  admin(move: 'start' | 'complete' | 'no-show', bookingId: string): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startWebhookServer(o: WebhookServerOptions = {}): Promise<WebhookTestServer> {
  const clock = o.clock ?? new RunningClock(TEST_NOW);
  const ownProfiles = !o.profiles;
  const profiles = o.profiles ?? (await startProfileServer());
  const server = await createUspServer({
    business: o.business ?? demoBusiness(),
    db: o.db ?? ':memory:',
    sandbox: true,
    clock,
    log: silentLogger,
    adminKeys: [ADMIN_KEY],
    sweepIntervalMs: 0,
    security: { allowLoopbackProfiles: true },
    webhooks: {
      retry: { firstRetryMs: 50, maxRetries: 3, maxTotalMs: 60_000, ...(o.retry ?? {}) },
      timeoutMs: o.timeoutMs ?? 5000,
      pollMs: o.pollMs ?? 25,
      signingKey: o.signingKey,
    },
  });
  const url = await server.listen(0, '127.0.0.1');
  const call: WebhookTestServer['call'] = async (method, path, body, profile, opts = {}) => {
    const headers: Record<string, string> = {};
    if (profile !== null) headers['USP-Agent'] = `profile="${profile}"`;
    if (opts.apiKey) headers.Authorization = `Bearer ${opts.apiKey}`;
    if (opts.ifMatch) headers['If-Match'] = opts.ifMatch;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(url + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* keep the text */
    }
    return { status: res.status, body: parsed };
  };
  return {
    url,
    server,
    clock,
    profiles,
    platform: (name, webhookUrl) => profiles.addProfile(`/platforms/${name}.json`, { webhook_url: webhookUrl }),
    call,
    admin: (move, bookingId) =>
      call('POST', `/admin/bookings/${bookingId}/${move}`, undefined, null, { apiKey: ADMIN_KEY }),
    async close() {
      await server.close();
      if (ownProfiles) await profiles.close();
    },
  };
}

/** The first bookable slot of `serviceId` on `date`. */
export async function firstSlot(
  t: WebhookTestServer,
  serviceId: string,
  date: string,
  profile: string | null = null,
): Promise<any> {
  const r = await t.call(
    'POST',
    '/availability/query',
    { service_id: serviceId, start_date: date, end_date: date },
    profile,
  );
  if (r.status !== 200 || !r.body.slots?.length)
    throw new Error(`no slot for ${serviceId} on ${date}: ${JSON.stringify(r.body)}`);
  return r.body.slots[0];
}

/** Book `serviceId` at its first slot on `date` as `profile`; returns the booking. */
export async function book(
  t: WebhookTestServer,
  profile: string,
  serviceId: string,
  date: string,
  extra: Record<string, unknown> = {},
): Promise<any> {
  const slot = extra.slot_id ? { id: extra.slot_id } : await firstSlot(t, serviceId, date, profile);
  const r = await t.call(
    'POST',
    '/bookings',
    { service_id: serviceId, slot_id: slot.id, buyer: BUYER, ...extra },
    profile,
  );
  if (r.status !== 201) throw new Error(`booking failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.booking;
}

/** The business's published webhook keys (`keys`, else `signing_keys`), fetched over HTTP. */
export async function publishedKeys(baseUrl: string): Promise<JsonWebKey[]> {
  const res = await fetch(`${baseUrl}/.well-known/usp`);
  const profile = (await res.json()) as { keys?: JsonWebKey[]; signing_keys?: JsonWebKey[] };
  return profile.keys ?? profile.signing_keys ?? [];
}

export interface Verification {
  ok: boolean;
  /** Why it failed (absent when ok). */
  reason?: string;
  kid?: string;
  created?: number;
  components?: string[];
}

/** `Signature-Input` of a delivery, parsed independently: covered components and parameters. */
export function signatureInput(headers: ReceivedRequest['headers']): {
  label: string;
  components: string[];
  params: Map<string, unknown>;
} {
  const raw = headers['signature-input'];
  if (typeof raw !== 'string') throw new Error('no Signature-Input header');
  const dict = parseDictionary(raw);
  if (dict.size !== 1) throw new Error(`expected one signature, got ${dict.size}`);
  const [[label, member]] = [...dict.entries()];
  if (!isInnerList(member)) throw new Error('Signature-Input member is not an inner list');
  const [items, params] = member;
  return { label, components: items.map((i: Item) => String(i[0])), params: params as Map<string, unknown> };
}

/**
 * Verify one delivery as a platform would (spec 10.1.1), independently of the server's code:
 * Content-Digest over the raw bytes, then the RFC 9421 signature with `http-message-signatures`,
 * ES256 raw r||s through node's crypto, the key looked up by `keyid` in `keys`. The signature base
 * is rebuilt from what the receiver saw: its Host header and request target.
 */
export async function verifyDelivery(
  req: Pick<ReceivedRequest, 'method' | 'target' | 'headers' | 'body'>,
  keys: readonly JsonWebKey[],
  nowMs: number,
): Promise<Verification> {
  const digest = req.headers['content-digest'];
  if (typeof digest !== 'string') return { ok: false, reason: 'no Content-Digest' };
  const m = /(?:^|,\s*)sha-256=:([A-Za-z0-9+/=]+):/.exec(digest);
  if (!m) return { ok: false, reason: `Content-Digest without sha-256: ${digest}` };
  const actual = createHash('sha256').update(req.body).digest('base64');
  if (m[1] !== actual) return { ok: false, reason: 'digest_mismatch' };

  let input: ReturnType<typeof signatureInput>;
  try {
    input = signatureInput(req.headers);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  const kid = input.params.get('keyid');
  const created = input.params.get('created');
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = v;
  let usedKid: string | undefined;
  try {
    const result = await httpbis.verifyMessage(
      {
        requiredFields: REQUIRED_COMPONENTS,
        requiredParams: ['keyid', 'created'],
        // The business may run on a test clock ahead of the wall clock: judge freshness on it.
        notAfter: Math.floor(nowMs / 1000) + 5,
        keyLookup: async (params) => {
          const jwk = keys.find((k) => (k as { kid?: string }).kid === params.keyid);
          if (!jwk) return null;
          usedKid = params.keyid;
          const publicKey = createPublicKey({ key: jwk, format: 'jwk' });
          return {
            id: params.keyid,
            algs: ['ecdsa-p256-sha256'],
            verify: async (data: Buffer, signature: Buffer) =>
              signature.length === 64 &&
              cryptoVerify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature),
          };
        },
      },
      { method: req.method, url: `http://${req.headers.host}${req.target}`, headers },
    );
    if (result !== true)
      return { ok: false, reason: result === null ? 'key_not_found' : 'signature_invalid', kid: String(kid) };
  } catch (err) {
    return { ok: false, reason: `${(err as Error).name}: ${(err as Error).message}`, kid: String(kid) };
  }
  return { ok: true, kid: usedKid, created: Number(created), components: input.components };
}
