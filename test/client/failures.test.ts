/**
 * Failure handled as a platform should, through the client library against a real usp-server
 * (in process, its clock running from TEST_NOW, webhooks delivered to the library's receiver over
 * loopback): a business that is down is a transport error to retry; an answer lost on the way is
 * retried with the same idempotency key and books once; an answer without the protocol envelope is
 * refused (the breaking proxy); a booking whose credential the business revoked (it canceled it) is
 * read again without the credential, on the platform's own authority; a business that moved its
 * endpoint (the client's profile stale) is found again by reading the profile once more; a business
 * somebody else named is refused at a private or loopback address or over plain http; a webhook
 * whose body or signature does not verify is refused (and one from a business publishing keys that do not sign its webhooks, the
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
  pinnedFetch,
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
  const receiver = new WebhookReceiver({
    businesses: () => trusted,
    profiles,
    now: () => t.clock.now(),
    onEvent: (e) => void events.push(e),
  });
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
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
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
    res
      .writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'application/json' })
      .end(text);
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
    const err = await BusinessClient.connect(`http://127.0.0.1:${await freePort()}`, { identity, profiles }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(UspError);
    expect(err).toMatchObject({
      kind: 'transport',
      code: 'business_unreachable',
      next: 'retry',
      severity: 'recoverable',
    });
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
    const biz = await BusinessClient.connect(proxy.url, {
      identity,
      profiles: new ProfileCache(),
      retries: 1,
      timeoutMs: 300,
    });
    await proxy.close();
    // Now the business's address accepts connections and never answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(Number(new URL(proxy.url).port), '127.0.0.1', r));
    try {
      const started = Date.now();
      const a = await biz.call('query_availability', {
        service_id: 'svc_haircut',
        start_date: day(4),
        end_date: day(4),
      });
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
      const listed = await t.call('GET', '/admin/bookings?view=all&buyer=lovelace', undefined, null, {
        apiKey: ADMIN_KEY,
      });
      const mine = (listed.body.bookings ?? []).filter(
        (b: any) =>
          (b.booking ?? b).service_id === 'svc_haircut' && (b.booking ?? b).slot?.start === a.data.booking.slot.start,
      );
      expect(listed.status).toBe(200);
      expect(mine).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});

/** A proxy serving the business under a path prefix its profile names; `move` changes the prefix (the old one answers a plain 404). */
async function startMovingProxy(target: string) {
  let prefix = '/v1';
  let origin = '';
  const seen: Array<{ path: string; key?: string; status: number }> = [];
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = req.url ?? '/';
    const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : undefined;
    if (url === '/.well-known/usp') {
      const answer = await fetch(`${target}${url}`);
      const text = (await answer.text()).split(target).join(`${origin}${prefix}`);
      res
        .writeHead(answer.status, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' })
        .end(text);
      return;
    }
    if (!url.startsWith(`${prefix}/`)) {
      seen.push({ path: url, ...(key ? { key } : {}), status: 404 });
      res.writeHead(404, { 'Content-Type': 'text/html' }).end('<h1>Not Found</h1>');
      return;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
    const answer = await fetch(target + url.slice(prefix.length), {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    seen.push({ path: url, ...(key ? { key } : {}), status: answer.status });
    res
      .writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'application/json' })
      .end(await answer.text());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    seen,
    move: (p: string) => void (prefix = p),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('a profile gone stale', () => {
  it('the business moved its endpoint: a 404 no USP business wrote makes the client read the profile again and send the call there, with the same idempotency key', async () => {
    const proxy = await startMovingProxy(t.url);
    try {
      const cache = new ProfileCache();
      const biz = await BusinessClient.connect(proxy.url, { identity, profiles: cache });
      const q = await biz.call('query_availability', {
        service_id: 'svc_haircut',
        start_date: day(9),
        end_date: day(9),
      });
      expect(q.ok).toBe(true);
      const reads = cache.requests;
      proxy.move('/v2');
      const made = await biz.call('create_booking', {
        service_id: 'svc_haircut',
        slot_id: q.data.slots[0].id,
        buyer: BUYER,
      });
      expect(made.error).toBeNull();
      expect(made.data.booking.status).toBe('confirmed');
      expect(made.attempts).toBe(1);
      expect(cache.requests).toBe(reads + 1);
      const posts = proxy.seen.filter((r) => r.path.endsWith('/bookings'));
      expect(posts.map((r) => [r.path, r.status, r.key])).toEqual([
        ['/v1/bookings', 404, made.idempotencyKey],
        ['/v2/bookings', 201, made.idempotencyKey],
      ]);
      // A 404 a USP business wrote (no such booking) is its answer: the profile is not read again.
      const missing = await biz.call('get_booking', { booking_id: 'bkg_nope' });
      expect(missing.error?.code).toBe('booking_not_found');
      expect(cache.requests).toBe(reads + 1);
    } finally {
      await proxy.close();
    }
  });
});

describe('a business somebody else named, reached through pinnedFetch', () => {
  it('a name resolving to a private address, a plain-http URL and a loopback one are refused before any connection, each saying why', async () => {
    const lookups: string[] = [];
    const fetcher = pinnedFetch({ allowLoopback: false, lookup: async (host) => (lookups.push(host), ['10.1.2.3']) });
    const privateName = await BusinessClient.connect('https://salon.example', {
      identity,
      profiles: new ProfileCache({ fetch: fetcher }),
    }).catch((e) => e);
    expect(privateName).toBeInstanceOf(UspError);
    expect(privateName).toMatchObject({ kind: 'verification', code: 'address_refused', next: 'give_up' });
    expect(privateName.message).toContain('10.1.2.3 is a special-use address');
    expect(lookups).toEqual(['salon.example']);
    const plain = await BusinessClient.connect('http://salon.example', { identity, fetch: fetcher }).catch((e) => e);
    expect(plain).toMatchObject({ code: 'address_refused' });
    expect(plain.message).toContain('must use https');
    const loopback = await BusinessClient.connect(t.url, {
      identity,
      fetch: pinnedFetch({ allowLoopback: false }),
    }).catch((e) => e);
    expect(loopback).toMatchObject({ code: 'address_refused' });
    // In development the same business is reached through it.
    const allowed = await BusinessClient.connect(t.url, { identity, fetch: pinnedFetch({ allowLoopback: true }) });
    expect((await allowed.call('list_services', {})).ok).toBe(true);
  });
});

describe('a credential the business no longer honours', () => {
  it("a booking the business canceled (its credential revoked) is read again without it, on the platform's own authority", async () => {
    const biz = await BusinessClient.connect(t.url, { identity, profiles: new ProfileCache() });
    const made = await bookFirst(biz, 'svc_haircut', day(8));
    const id = made.data.booking.id;
    const canceled = await t.call('POST', `/bookings/${id}/cancel`, { reason: 'The stylist is ill.' }, null, {
      apiKey: ADMIN_KEY,
    });
    expect(canceled.status).toBe(200);
    const read = await biz.call('get_booking', { booking_id: id });
    expect(read.error).toBeNull();
    expect(read.data.booking).toMatchObject({ id, status: 'canceled' });
    expect(read.attempts).toBe(1);
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
    const genuine = received.find(
      (r) =>
        r.status === 200 &&
        String(r.body instanceof Uint8Array ? new TextDecoder().decode(r.body) : r.body).includes(id),
    )!;
    const bodyText = new TextDecoder().decode(genuine.body as Uint8Array);
    const { 'content-length': _length, ...headers } = genuine.headers as Record<string, string>;
    const post = (body: string, h: Record<string, string>) =>
      fetch(platform.webhookUrl, { method: 'POST', headers: h, body });
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
    const delivery = received.find(
      (r) => r.status === 200 && new TextDecoder().decode(r.body as Uint8Array).includes(id),
    )!;
    const kid = /keyid="([^"]+)"/.exec((delivery.headers as Record<string, string>)['signature-input'])![1];
    expect(oldKids).not.toContain(kid);
    expect(profiles.requests).toBeGreaterThan(requests);
  });
});
