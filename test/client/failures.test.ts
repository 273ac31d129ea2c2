/**
 * Failure handled as a platform should, through the client library against a real usp-server
 * (in process, its clock running from TEST_NOW, webhooks delivered to the library's receiver over
 * loopback): a business that is down is a transport error to retry; an answer lost on the way is
 * retried with the same idempotency key and books once; an answer without the protocol envelope is
 * refused (the breaking proxy); a webhook whose body or signature does not
 * verify is refused (and one from a business publishing keys that do not sign its webhooks, the
 * conformance suite's breaking proxy), a delivery seen before is acknowledged and not handed on
 * twice, and a webhook signed by a key the business rotated to is accepted after the receiver reads
 * the profile again.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BusinessClient,
  PlatformIdentity,
  ProfileCache,
  UspError,
  WebhookReceiver,
  isBookingEvent,
  servePlatform,
  type PlatformServer,
  type WebhookEvent,
  type WebhookRequest,
} from '../../src/client/index.js';
import { startBrokenProxy, type BrokenProxy } from '../conformance/broken-proxy.js';
import { ADMIN_KEY, BUYER, day, startWebhookServer, waitFor, type WebhookTestServer } from '../webhooks/helpers.js';

let t: WebhookTestServer;
let platform: PlatformServer;
const identity = new PlatformIdentity();
const profiles = new ProfileCache();
const events: WebhookEvent[] = [];
const received: Array<WebhookRequest & { status: number; code?: string; keyid?: string }> = [];
let trusted: string[] = [];

beforeAll(async () => {
  t = await startWebhookServer();
  trusted = [t.url];
  const receiver = new WebhookReceiver({ businesses: () => trusted, profiles, now: () => t.clock.now(), onEvent: (e) => void events.push(e) });
  const receive = receiver.receive.bind(receiver);
  receiver.receive = async (req) => {
    const a = await receive(req);
    received.push({ ...req, status: a.status, ...(a.error ? { code: a.error.code } : {}) });
    return a;
  };
  platform = await servePlatform(identity, { receiver });
});
afterAll(async () => {
  await platform?.close();
  await t?.close();
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

async function bookFirst(biz: BusinessClient, service: string, date: string) {
  const q = await biz.call('query_availability', { service_id: service, start_date: date, end_date: date });
  const input = { service_id: service, slot_id: q.data.slots[0].id, buyer: BUYER };
  return { input, ...(await biz.call('create_booking', input)) };
}

/** A proxy in front of the business that forwards everything and loses the answer to the first POST /bookings (the business has acted). */
async function startLosingProxy(target: string): Promise<{ url: string; keys: string[]; close(): Promise<void> }> {
  const keys: string[] = [];
  let lost = false;
  let origin = '';
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const answer = await fetch(target + req.url, { method: req.method, headers, body });
    let text = await answer.text();
    if (req.url === '/.well-known/usp') text = text.split(target).join(origin);
    if (req.method === 'POST' && req.url === '/bookings') {
      keys.push(headers['idempotency-key'] ?? '');
      if (!lost) {
        lost = true;
        req.socket.destroy();
        return;
      }
    }
    res.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'application/json' }).end(text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    keys,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('a business that is down or loses an answer', () => {
  it('connecting to a business nobody answers for is a transport error whose next step is retry', async () => {
    const err = await BusinessClient.connect(`http://127.0.0.1:${await freePort()}`, { identity, profiles }).catch((e) => e);
    expect(err).toBeInstanceOf(UspError);
    expect(err).toMatchObject({ kind: 'transport', code: 'business_unreachable', next: 'retry', severity: 'recoverable' });
  });

  it('a business gone after discovery: the call is retried, then answered as unreachable with the attempts made', async () => {
    const proxy = await startLosingProxy(t.url);
    const biz = await BusinessClient.connect(proxy.url, { identity, profiles: new ProfileCache(), retries: 2 });
    await proxy.close();
    const a = await biz.call('list_services', {});
    expect(a.ok).toBe(false);
    expect(a.error).toMatchObject({ kind: 'transport', code: 'business_unreachable', next: 'retry' });
    expect(a.attempts).toBe(3);
  });

  it('a business too slow to answer within the deadline: each attempt times out, the answer says unreachable, retry', async () => {
    const proxy = await startLosingProxy(t.url);
    const biz = await BusinessClient.connect(proxy.url, { identity, profiles: new ProfileCache(), retries: 1, timeoutMs: 300 });
    await proxy.close();
    // Now the business's address accepts connections and never answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(Number(new URL(proxy.url).port), '127.0.0.1', r));
    try {
      const started = Date.now();
      const a = await biz.call('query_availability', { service_id: 'svc_haircut', start_date: day(4), end_date: day(4) });
      expect(a.error).toMatchObject({ kind: 'transport', code: 'business_unreachable', next: 'retry' });
      expect(a.attempts).toBe(2);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });

  it('an answer lost after the business booked is retried with the same idempotency key: one booking, the same one', async () => {
    const proxy = await startLosingProxy(t.url);
    try {
      const biz = await BusinessClient.connect(proxy.url, { identity, profiles: new ProfileCache() });
      const a = await bookFirst(biz, 'svc_haircut', day(4));
      expect(a.error).toBeNull();
      expect(a.attempts).toBe(2);
      expect(proxy.keys).toHaveLength(2);
      expect(proxy.keys[0]).toBe(a.idempotencyKey);
      expect(proxy.keys[1]).toBe(a.idempotencyKey);
      // The caller retrying by hand with the key it was given gets the same booking again.
      const again = await biz.call('create_booking', a.input, { idempotencyKey: a.idempotencyKey });
      expect(again.data.booking.id).toBe(a.data.booking.id);
      const listed = await t.call('GET', '/admin/bookings?view=all&buyer=lovelace', undefined, null, { apiKey: ADMIN_KEY });
      const mine = (listed.body.bookings ?? []).filter((b: any) => (b.booking ?? b).service_id === 'svc_haircut' && (b.booking ?? b).slot?.start === a.data.booking.slot.start);
      expect(listed.status).toBe(200);
      expect(mine).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});

describe('answers that are not USP answers are refused', () => {
  it('a business that drops the envelope (the breaking proxy): the answer is a verification error, its data unused', async () => {
    const proxy: BrokenProxy = await startBrokenProxy(t.url, 'drops-envelope');
    try {
      const biz = await BusinessClient.connect(proxy.url, { identity, profiles: new ProfileCache() });
      const a = await biz.call('list_services', {});
      expect(a.ok).toBe(false);
      expect(a.error).toMatchObject({ kind: 'verification', code: 'envelope_missing', next: 'give_up' });
      expect(a.data).toEqual({});
    } finally {
      await proxy.close();
    }
  });
});

describe('webhooks that do not verify are refused, and each event is handed on once', () => {
  it('a tampered body, a re-digested body with the old signature, and a replay: refused, refused, acknowledged once', async () => {
    const biz = await BusinessClient.connect(t.url, { identity, profiles });
    const made = await bookFirst(biz, 'svc_haircut', day(5));
    const id = made.data.booking.id;
    await waitFor(() => events.some((e) => isBookingEvent(e) && e.booking_id === id));
    const genuine = received.find((r) => r.status === 200 && String(r.body instanceof Uint8Array ? new TextDecoder().decode(r.body) : r.body).includes(id))!;
    const bodyText = new TextDecoder().decode(genuine.body as Uint8Array);
    const { 'content-length': _length, ...headers } = genuine.headers as Record<string, string>;
    const post = (body: string, h: Record<string, string>) => fetch(platform.webhookUrl, { method: 'POST', headers: h, body });
    const before = events.length;

    const tampered = bodyText.replace('"booking.confirmed"', '"booking.canceled"');
    expect(tampered).not.toBe(bodyText);
    const r1 = await post(tampered, headers);
    expect(r1.status).toBe(400);
    expect(await r1.json()).toEqual({ error: 'digest_mismatch' });

    const digest = `sha-256=:${createHash('sha256').update(tampered).digest('base64')}:`;
    const r2 = await post(tampered, { ...headers, 'content-digest': digest });
    expect(r2.status).toBe(401);
    expect(await r2.json()).toEqual({ error: 'signature_invalid' });

    const r3 = await post(bodyText, headers);
    expect(r3.status).toBe(200);
    expect(events.length).toBe(before);
    expect(events.filter((e) => e.event_id === JSON.parse(bodyText).event_id)).toHaveLength(1);
  });

  it('a business whose published key does not sign its webhooks (the breaking proxy): every webhook is refused, none handed on', async () => {
    const proxy: BrokenProxy = await startBrokenProxy(t.url, 'signs-webhooks-wrongly');
    try {
      trusted = [proxy.url];
      const biz = await BusinessClient.connect(proxy.url, { identity, profiles: new ProfileCache() });
      const from = received.length;
      const made = await bookFirst(biz, 'svc_haircut', day(6));
      expect(made.error).toBeNull();
      await waitFor(() => received.length > from);
      expect(received.slice(from).map((r) => [r.status, r.code])).toContainEqual([401, 'signature_invalid']);
      expect(events.some((e) => isBookingEvent(e) && e.booking_id === made.data.booking.id)).toBe(false);
    } finally {
      trusted = [t.url];
      await proxy.close();
    }
  });

  it('after the business rotates its signing key, a webhook by the new key is accepted once the receiver has read the profile again', async () => {
    const biz = await BusinessClient.connect(t.url, { identity, profiles });
    const before = await profiles.get(`${t.url}/.well-known/usp`);
    const oldKids = (before.profile.keys ?? []).map((k: any) => k.kid);
    const rotated = await t.call('POST', '/admin/signing-keys/rotate', undefined, null, { apiKey: ADMIN_KEY });
    expect(rotated.status).toBe(201);
    // The new key signs after the overlap; the receiver's copy of the profile is still fresh.
    t.clock.advance(3 * 3600_000);
    const requests = profiles.requests;
    const made = await bookFirst(biz, 'svc_haircut', day(7));
    const id = made.data.booking.id;
    await waitFor(() => events.some((e) => isBookingEvent(e) && e.booking_id === id));
    const delivery = received.find((r) => r.status === 200 && new TextDecoder().decode(r.body as Uint8Array).includes(id))!;
    const kid = /keyid="([^"]+)"/.exec((delivery.headers as Record<string, string>)['signature-input'])![1];
    expect(oldKids).not.toContain(kid);
    expect(profiles.requests).toBeGreaterThan(requests);
  });
});
