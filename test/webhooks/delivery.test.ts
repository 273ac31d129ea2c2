/**
 * Webhook delivery end to end (spec §5.4, §10.1.1; CONFORMANCE §5, decisions D5, D16): a real
 * usp-server delivers to loopback receivers that play platforms (the target is the `webhook_url`
 * of the platform profile presented as USP-Agent) and catalog feed subscribers. Every delivery is
 * checked by an independent RFC 9421 verifier against the keys published at `/.well-known/usp`;
 * payloads are validated against the official `webhook_event.json`; the booking and waitlist
 * lifecycles, retries, failure logging, isolation of a hanging endpoint, causal order per booking,
 * reminders on the injected clock and key rotation are exercised. No fixed sleeps: bounded polls.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { BusinessDef, ServiceDef } from '../../src/domain/business.js';
import { ManualClock, silentLogger } from '../../src/operations/index.js';
import { createUspServer } from '../../src/server/compose.js';
import { DEFAULT_KEY_OVERLAP_MS } from '../../src/webhooks/index.js';
import { runCli } from '../support/cli.js';
import { startProfileServer, type ProfileServer } from '../support/profile-server.js';
import { clockEnv } from '../support/time.js';
import { assertValid, describeConformance, validateSchemaDef } from '../support/spec.js';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../support/webhook-receiver.js';
import {
  REQUIRED_COMPONENTS,
  RunningClock,
  TEST_NOW,
  book,
  day,
  demoBusiness,
  firstSlot,
  publishedKeys,
  startWebhookServer,
  verifyDelivery,
  waitFor,
  type WebhookServerOptions,
  type WebhookTestServer,
} from './helpers.js';

// ---------------------------------------------------------------------------------------------
// Resources: everything started here is closed at the end (receivers first, so nothing hangs).
// ---------------------------------------------------------------------------------------------

/** Per-test resources (closed after each test that uses `closeAll`) and shared runs (closed at the end). */
const receivers: WebhookReceiver[] = [];
const servers: WebhookTestServer[] = [];
const sharedReceivers: WebhookReceiver[] = [];
const sharedServers: WebhookTestServer[] = [];
const profileServers: ProfileServer[] = [];
const tmpDirs: string[] = [];

async function receiver(shared = false): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver();
  (shared ? sharedReceivers : receivers).push(r);
  return r;
}

async function server(o: WebhookServerOptions = {}, shared = false): Promise<WebhookTestServer> {
  const s = await startWebhookServer(o);
  (shared ? sharedServers : servers).push(s);
  return s;
}

async function profiles(): Promise<ProfileServer> {
  const p = await startProfileServer();
  profileServers.push(p);
  return p;
}

function tmpDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'usp-webhooks-'));
  tmpDirs.push(dir);
  return join(dir, 'business.db');
}

/** Close the per-test receivers first (so no request hangs), then the servers. */
async function closeAll(): Promise<void> {
  for (const r of receivers.splice(0)) await r.close();
  for (const s of servers.splice(0)) await s.close();
}

afterAll(async () => {
  await closeAll();
  for (const r of sharedReceivers.splice(0)) await r.close();
  for (const s of sharedServers.splice(0)) await s.close();
  for (const p of profileServers.splice(0)) await p.close();
  for (const d of tmpDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** The 2xx-answered deliveries of `path`, in arrival order. */
function delivered(rx: WebhookReceiver, path: string): ReceivedRequest[] {
  return rx.requests(path).filter((r) => r.answered !== null && r.answered >= 200 && r.answered < 300);
}

/** Received event bodies (first delivery of each event_id) for one resource id. */
function eventsFor(rx: WebhookReceiver, path: string, resourceId: string): any[] {
  const seen = new Set<string>();
  const out: any[] = [];
  for (const r of delivered(rx, path)) {
    const b = r.json;
    if ((b.booking_id ?? b.entry_id ?? b.service_id) !== resourceId || seen.has(b.event_id)) continue;
    seen.add(b.event_id);
    out.push(b);
  }
  return out;
}

const names = (bodies: any[]) => bodies.map((b) => b.event);

/** Waits (bounded) until `resourceId` has received at least the events named, and returns its events. */
async function expectEvents(
  rx: WebhookReceiver,
  path: string,
  resourceId: string,
  expected: string[],
  ms = 5000,
): Promise<any[]> {
  await rx.waitFor(
    () => eventsFor(rx, path, resourceId).length >= expected.length,
    ms,
    () => `events for ${resourceId}: ${names(eventsFor(rx, path, resourceId)).join(', ')}`,
  );
  const got = eventsFor(rx, path, resourceId);
  expect(names(got), `events for ${resourceId}`).toEqual(expected);
  return got;
}

/** Outbox events in creation order (the store lists newest first). */
async function outbox(t: WebhookTestServer) {
  return (await t.server.store.read((tx) => tx.outbox.recent(10_000))).reverse();
}

const paid = (amount: number) => ({
  status: 'paid',
  transaction_id: `txn_${amount}`,
  amount_paid: amount,
  currency: 'USD',
  provider: 'test',
});

// ---------------------------------------------------------------------------------------------
// The lifecycle run: one server, one platform, every booking and waitlist event (shared by the
// lifecycle, signature and schema tests; run once).
// ---------------------------------------------------------------------------------------------

interface LifecycleRun {
  t: WebhookTestServer;
  rx: WebhookReceiver;
  ids: Record<
    'rescheduled' | 'refunded' | 'expired' | 'completed' | 'noShow' | 'single' | 'entry' | 'fromWaitlist',
    string
  >;
}

let lifecycle: Promise<LifecycleRun> | undefined;

function lifecycleRun(): Promise<LifecycleRun> {
  lifecycle ??= (async () => {
    const rx = await receiver(true);
    // A one-hour reminder offset keeps reminders out of this run: with the default day, the yoga
    // class booked for tomorrow would be reminded at once (booked inside the window), and the
    // reminder rules have their own tests below.
    const t = await server(
      { business: demoBusiness({ reminder_offset_seconds: 3600, payment_ttl_seconds: 1800 }) },
      true,
    );
    const p = t.platform('life', rx.url('/life'));
    const ok = (r: { status: number; body: any }, label: string) => {
      expect(r.status, `${label}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
      expect(
        (r.body.messages ?? []).filter((m: any) => m.type === 'error'),
        label,
      ).toEqual([]);
      return r.body;
    };

    // Booked, moved, canceled (paid at the service: nothing to refund).
    const b1 = await book(t, p, 'svc_haircut', day(2));
    const moveTo = await firstSlot(t, 'svc_haircut', day(3), p);
    ok(await t.call('POST', `/bookings/${b1.id}/reschedule`, { slot_id: moveTo.id }, p), 'reschedule');
    ok(await t.call('POST', `/bookings/${b1.id}/cancel`, {}, p), 'cancel');

    // Paid at booking: confirmed by payment, canceled inside the free window: refunded.
    const b2 = await book(t, p, 'svc_massage_60', day(3));
    expect(b2.status).toBe('requires_action');
    ok(
      await t.call('POST', `/bookings/${b2.id}/confirm-payment`, { payment_result: paid(11000) }, p),
      'confirm-payment',
    );
    ok(await t.call('POST', `/bookings/${b2.id}/cancel`, {}, p), 'cancel paid');

    // Never paid: it expires (canceled by the system) once its payment window has passed.
    const b3 = await book(t, p, 'svc_massage_60', day(4));
    t.clock.advance(31 * 60_000);
    const read = ok(await t.call('GET', `/bookings/${b3.id}`, undefined, p), 'read expired');
    expect(read.booking.status).toBe('canceled');

    // The business runs the appointment; and marks a no-show on another.
    const b4 = await book(t, p, 'svc_haircut', day(5));
    ok(await t.admin('start', b4.id), 'start');
    ok(await t.admin('complete', b4.id), 'complete');
    const b5 = await book(t, p, 'svc_haircut', day(6));
    ok(await t.admin('no-show', b5.id), 'no-show');

    // The waitlist: fill the yoga class, join, a place frees, the offer is accepted.
    const slot = await firstSlot(t, 'svc_yoga_class', day(1), p);
    await book(t, p, 'svc_yoga_class', day(1), { slot_id: slot.id, party_size: 11 });
    const single = await book(t, p, 'svc_yoga_class', day(1), { slot_id: slot.id });
    const joined = ok(
      await t.call(
        'POST',
        '/waitlist',
        {
          service_id: 'svc_yoga_class',
          slot_id: slot.id,
          buyer: { first_name: 'Wait', last_name: 'Er', email: 'w@example.com' },
        },
        p,
      ),
      'join',
    );
    ok(await t.call('POST', `/bookings/${single.id}/cancel`, {}, p), 'cancel single');
    const accepted = ok(await t.call('POST', `/waitlist/${joined.entry.id}/accept`, {}, p), 'accept');
    expect(accepted.entry.status).toBe('accepted');

    const ids = {
      rescheduled: b1.id,
      refunded: b2.id,
      expired: b3.id,
      completed: b4.id,
      noShow: b5.id,
      single: single.id,
      entry: joined.entry.id,
      fromWaitlist: accepted.booking.id,
    };
    // Everything the outbox holds for this platform (reminders are not due yet) arrives.
    const due = (await outbox(t)).filter((e) => e.due_ms <= t.clock.now() && e.principal !== null);
    await rx.waitFor(
      () => new Set(delivered(rx, '/life').map((r) => r.json.event_id)).size >= due.length,
      8000,
      () => `${delivered(rx, '/life').length} of ${due.length} events delivered`,
    );
    return { t, rx, ids };
  })();
  return lifecycle;
}

// ---------------------------------------------------------------------------------------------
// The catalog run: feed subscriptions (inserted through the store; see the note below) and a
// business file that changed between two starts on the same database.
// ---------------------------------------------------------------------------------------------

interface CatalogRun {
  rx: WebhookReceiver;
  t: WebhookTestServer;
  subs: Record<'all' | 'deleted' | 'massage' | 'paused', string>;
}

let catalog: Promise<CatalogRun> | undefined;

function changedBusiness(): BusinessDef {
  const def = demoBusiness();
  const services: ServiceDef[] = [];
  for (const s of def.services) {
    if (s.id === 'svc_home_blowout') continue; // deleted
    if (s.id === 'svc_haircut')
      services.push({ ...s, name: 'Haircut & Style (new look)' }); // updated
    else if (s.id === 'svc_massage_60')
      services.push({ ...s, description: 'Now with hot stones.' }); // updated
    else if (s.id === 'svc_color_consult')
      services.push({ ...s, status: 'suspended' }); // suspended
    else services.push(s);
  }
  const haircut = def.services.find((s) => s.id === 'svc_haircut')!;
  services.push({ ...haircut, id: 'svc_kids_cut', name: 'Kids Cut' }); // created
  return { ...def, services };
}

function catalogRun(): Promise<CatalogRun> {
  catalog ??= (async () => {
    const rx = await receiver(true);
    const db = tmpDb();
    const first = await startWebhookServer({ db });
    // The first start announces every service (service.created) before anyone subscribed.
    await waitFor(
      async () => (await first.server.store.read((tx) => tx.outbox.due(first.clock.now(), 10))).length === 0,
    );
    // Gap: the subscribe operation accepts only https callback URLs, so loopback subscribers
    // are written straight into the store.
    const subs = { all: 'sub_all', deleted: 'sub_deleted', massage: 'sub_massage', paused: 'sub_paused' };
    await first.server.store.transaction(async (tx) => {
      const add = (id: string, extra: Record<string, unknown>, status: 'active' | 'paused' = 'active') =>
        tx.subscriptions.insert({
          subscription: {
            id,
            callback_url: rx.url(`/catalog/${id}`),
            status,
            created_at: '2026-12-01T17:00:00Z',
            ...extra,
          },
          priv: { principal: null },
        });
      await add(subs.all, {});
      await add(subs.deleted, { events: ['service.deleted'] });
      await add(subs.massage, { categories: ['cat_massage'] });
      await add(subs.paused, {}, 'paused');
    });
    await first.close();
    const t = await server({ db, business: changedBusiness(), clock: new RunningClock(TEST_NOW + 3_600_000) }, true);
    await rx.waitFor(
      () =>
        delivered(rx, `/catalog/${subs.all}`).length >= 5 &&
        delivered(rx, `/catalog/${subs.deleted}`).length >= 1 &&
        delivered(rx, `/catalog/${subs.massage}`).length >= 1,
      8000,
      'the catalog events at every subscriber',
    );
    return { rx, t, subs };
  })();
  return catalog;
}

// =============================================================================================

describe('signatures: every delivery verifies independently (RFC 9421, ES256 raw r||s)', () => {
  it('every lifecycle delivery verifies against the published keys, covering exactly the five components', async () => {
    const { t, rx } = await lifecycleRun();
    const keys = await publishedKeys(t.url);
    expect(keys.length).toBeGreaterThan(0);
    const all = rx.requests('/life');
    // 3 + 3 + 1 + 3 + 2 booking events, 1 + 2 + 1 in the yoga class, 2 waitlist events.
    expect(all.length).toBe(18);
    let lastCreated = Math.floor(TEST_NOW / 1000);
    for (const req of all) {
      const v = await verifyDelivery(req, keys, t.clock.now());
      expect(v, `${req.json?.event} ${v.reason ?? ''}`).toMatchObject({ ok: true, components: REQUIRED_COMPONENTS });
      expect(keys.map((k) => k.kid)).toContain(v.kid);
      // `created` is a parameter: the (test clock's) time of signing, never going backwards.
      expect(Number.isInteger(v.created)).toBe(true);
      expect(v.created!).toBeGreaterThanOrEqual(lastCreated);
      expect(v.created!).toBeLessThanOrEqual(t.clock.now() / 1000);
      lastCreated = v.created!;
      expect(req.headers['signature-input']).not.toContain('@created');
      expect(req.method).toBe('POST');
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['content-digest']).toMatch(/^sha-256=:[A-Za-z0-9+/]+=*:$/);
    }
  });

  it('catalog deliveries verify the same way', async () => {
    const { t, rx } = await catalogRun();
    const keys = await publishedKeys(t.url);
    const all = rx.requests().filter((r) => r.path.startsWith('/catalog/'));
    expect(all.length).toBeGreaterThanOrEqual(7);
    for (const req of all) expect(await verifyDelivery(req, keys, t.clock.now()), req.path).toMatchObject({ ok: true });
  });

  it('a body altered in transit fails: one flipped byte breaks the digest, a recomputed digest breaks the signature', async () => {
    const { t, rx } = await lifecycleRun();
    const keys = await publishedKeys(t.url);
    const [req] = rx.requests('/life');
    expect((await verifyDelivery(req, keys, t.clock.now())).ok).toBe(true);

    const body = Buffer.from(req.body);
    const at = body.indexOf('"booking_id"') + 20;
    body[at] ^= 0x01;
    const tampered = { ...req, body };
    expect(await verifyDelivery(tampered, keys, t.clock.now())).toMatchObject({ ok: false, reason: 'digest_mismatch' });

    const { createHash } = await import('node:crypto');
    const redigested = {
      ...tampered,
      headers: { ...req.headers, 'content-digest': `sha-256=:${createHash('sha256').update(body).digest('base64')}:` },
    };
    expect((await verifyDelivery(redigested, keys, t.clock.now())).ok).toBe(false);
  });

  it('the signature binds the endpoint and the signer: another path, another host or an unknown key fails', async () => {
    const { t, rx } = await lifecycleRun();
    const keys = await publishedKeys(t.url);
    const [req] = rx.requests('/life');
    expect((await verifyDelivery({ ...req, target: '/elsewhere' }, keys, t.clock.now())).ok).toBe(false);
    expect(
      (await verifyDelivery({ ...req, headers: { ...req.headers, host: 'evil.example' } }, keys, t.clock.now())).ok,
    ).toBe(false);
    expect((await verifyDelivery({ ...req, method: 'PUT' }, keys, t.clock.now())).ok).toBe(false);
    expect(await verifyDelivery(req, [], t.clock.now())).toMatchObject({ ok: false, reason: 'key_not_found' });
  });
});

describe('booking lifecycle events reach the owning platform', () => {
  it('booking.confirmed, booking.rescheduled, booking.canceled for a booking moved then canceled', async () => {
    const { rx, ids } = await lifecycleRun();
    const [confirmed, rescheduled, canceled] = await expectEvents(rx, '/life', ids.rescheduled, [
      'booking.confirmed',
      'booking.rescheduled',
      'booking.canceled',
    ]);
    expect(confirmed.data).toMatchObject({ id: ids.rescheduled, status: 'confirmed' });
    expect(rescheduled.data.status).toBe('confirmed');
    expect(rescheduled.data.slot.start).not.toBe(confirmed.data.slot.start);
    expect(canceled.data).toMatchObject({ status: 'canceled', cancellation: { canceled_by: 'buyer' } });
    for (const e of [confirmed, rescheduled, canceled]) {
      expect(e.booking_id).toBe(ids.rescheduled);
      expect(e.event_id).toMatch(/^evt_/);
      expect(e.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
    expect(new Set([confirmed, rescheduled, canceled].map((e) => e.event_id)).size).toBe(3);
  });

  it('booking.confirmed after confirm-payment; canceling in the free window: booking.canceled then booking.refund_issued', async () => {
    const { rx, ids } = await lifecycleRun();
    const [, canceled, refund] = await expectEvents(rx, '/life', ids.refunded, [
      'booking.confirmed',
      'booking.canceled',
      'booking.refund_issued',
    ]);
    expect(canceled.data.cancellation).toMatchObject({ fee: 0, refund_amount: 11000 });
    expect(refund.data.payment.status).toBe('refunded');
    expect(refund.data.cancellation.refund_amount).toBe(11000);
  });

  it('an unpaid booking that expires: booking.canceled (by the system, reason expired) and nothing before it', async () => {
    const { rx, ids } = await lifecycleRun();
    const [canceled] = await expectEvents(rx, '/life', ids.expired, ['booking.canceled']);
    expect(canceled.data.cancellation).toMatchObject({ reason: 'expired', canceled_by: 'system' });
  });

  it('the business moves a booking through the admin paths: service_started, completed; and no_show', async () => {
    const { rx, ids } = await lifecycleRun();
    const [, started, completed] = await expectEvents(rx, '/life', ids.completed, [
      'booking.confirmed',
      'booking.service_started',
      'booking.completed',
    ]);
    expect(started.data.status).toBe('in_progress');
    expect(completed.data.status).toBe('completed');
    const [, noShow] = await expectEvents(rx, '/life', ids.noShow, ['booking.confirmed', 'booking.no_show']);
    expect(noShow.data.status).toBe('no_show');
  });

  it('waitlist.spot_offered when a place frees in the full class, waitlist.converted on accept (and the new booking is confirmed)', async () => {
    const { rx, ids } = await lifecycleRun();
    await expectEvents(rx, '/life', ids.single, ['booking.confirmed', 'booking.canceled']);
    const [offered, converted] = await expectEvents(rx, '/life', ids.entry, [
      'waitlist.spot_offered',
      'waitlist.converted',
    ]);
    expect(offered).toMatchObject({ entry_id: ids.entry, service_id: 'svc_yoga_class', data: { status: 'offered' } });
    expect(converted).toMatchObject({
      entry_id: ids.entry,
      service_id: 'svc_yoga_class',
      data: { status: 'accepted' },
    });
    await expectEvents(rx, '/life', ids.fromWaitlist, ['booking.confirmed']);
  });

  it('per booking, the platform saw the events in the order they were created, each exactly once', async () => {
    const { t, rx } = await lifecycleRun();
    const created = (await outbox(t)).filter((e) => e.due_ms <= t.clock.now() && e.principal !== null);
    const byKey = new Map<string, string[]>();
    for (const e of created) byKey.set(e.order_key, [...(byKey.get(e.order_key) ?? []), e.event_id]);
    const got = new Map<string, string[]>();
    for (const r of delivered(rx, '/life')) {
      const key = r.json.booking_id ?? r.json.entry_id;
      got.set(key, [...(got.get(key) ?? []), r.json.event_id]);
    }
    expect(got).toEqual(byKey);
  });
});

describe('catalog events reach the matching feed subscriptions', () => {
  it('service.created, updated, suspended and deleted, each naming its subscription; filters by event and category; paused gets nothing', async () => {
    const { rx, t, subs } = await catalogRun();
    const all = delivered(rx, `/catalog/${subs.all}`).map((r) => r.json);
    const summary = all.map((b) => `${b.event} ${b.service_id}`).sort();
    expect(summary).toEqual(
      [
        'service.created svc_kids_cut',
        'service.deleted svc_home_blowout',
        'service.suspended svc_color_consult',
        'service.updated svc_haircut',
        'service.updated svc_massage_60',
      ].sort(),
    );
    for (const b of all) expect(b.subscription_id).toBe(subs.all);
    expect(all.find((b) => b.event === 'service.suspended').data.status).toBe('suspended');
    expect(all.find((b) => b.event === 'service.updated' && b.service_id === 'svc_haircut').data.name).toBe(
      'Haircut & Style (new look)',
    );

    expect(
      delivered(rx, `/catalog/${subs.deleted}`).map((r) => [r.json.event, r.json.service_id, r.json.subscription_id]),
    ).toEqual([['service.deleted', 'svc_home_blowout', subs.deleted]]);
    expect(delivered(rx, `/catalog/${subs.massage}`).map((r) => [r.json.event, r.json.service_id])).toEqual([
      ['service.updated', 'svc_massage_60'],
    ]);
    // The paused subscription never had a delivery row, let alone a request.
    const rows = await t.server.store.read((tx) => tx.webhooks.list({ limit: 100 }));
    expect(rows.filter((d) => d.subscription_id === subs.paused)).toEqual([]);
    expect(rx.requests(`/catalog/${subs.paused}`)).toEqual([]);
  });
});

// =============================================================================================

describe('retries: at least once, same event_id, on the configured schedule', () => {
  afterEach(() => closeAll());

  it('500, 500, then 200: three attempts of the same event with the same bytes, spaced by the backoff (50 ms, 100 ms)', async () => {
    const rx = await receiver();
    rx.script('/flaky', [500, 500]);
    const t = await server({ retry: { firstRetryMs: 50, maxRetries: 3 } });
    const p = t.platform('flaky', rx.url('/flaky'));
    const b = await book(t, p, 'svc_haircut', day(2));
    await rx.waitFor((r) => r.filter((x) => x.answered === 200).length >= 1, 5000);

    const reqs = rx.requests('/flaky');
    expect(reqs.map((r) => r.answered)).toEqual([500, 500, 200]);
    expect(new Set(reqs.map((r) => r.json.event_id)).size).toBe(1);
    expect(reqs[0].json).toMatchObject({ event: 'booking.confirmed', booking_id: b.id });
    expect(reqs[1].body.equals(reqs[0].body) && reqs[2].body.equals(reqs[0].body)).toBe(true);
    // Seen from the receiver (1 ms allowance for millisecond rounding of the server's clock).
    expect(reqs[1].mono - reqs[0].mono).toBeGreaterThanOrEqual(50 - 1);
    expect(reqs[2].mono - reqs[1].mono).toBeGreaterThanOrEqual(100 - 1);
    const keys = await publishedKeys(t.url);
    for (const r of reqs) expect((await verifyDelivery(r, keys, t.clock.now())).ok).toBe(true);

    // And as the business logged them.
    const [d] = await t.server.store.read((tx) => tx.webhooks.list({ limit: 10 }));
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, event_id: reqs[0].json.event_id, last_status: 200 });
    const attempts = await t.server.store.read((tx) => tx.webhooks.attempts(d.id));
    expect(attempts.map((a) => a.status_code)).toEqual([500, 500, 200]);
    expect(attempts[1].at_ms - attempts[0].at_ms).toBeGreaterThanOrEqual(50);
    expect(attempts[2].at_ms - attempts[1].at_ms).toBeGreaterThanOrEqual(100);
  });

  it('after maxRetries the delivery is failed, `webhooks list` shows every attempt with status and latency, and `webhooks retry` revives it', async () => {
    const rx = await receiver();
    rx.setDefault('/down', 500);
    const db = tmpDb();
    const t = await server({ db, retry: { firstRetryMs: 20, maxRetries: 2 } });
    const p = t.platform('down', rx.url('/down'));
    const b = await book(t, p, 'svc_haircut', day(2));
    await waitFor(
      async () => (await t.server.store.read((tx) => tx.webhooks.list({ status: 'failed', limit: 10 }))).length === 1,
      5000,
      'the delivery failed',
    );
    expect(rx.requests('/down').map((r) => r.answered)).toEqual([500, 500, 500]);
    const [d] = await t.server.store.read((tx) => tx.webhooks.list({ limit: 10 }));
    expect(d).toMatchObject({ status: 'failed', attempts: 3, last_status: 500 });
    const attempts = await t.server.store.read((tx) => tx.webhooks.attempts(d.id));
    expect(attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, 500, 'HTTP 500'],
      [2, 500, 'HTTP 500'],
      [3, 500, 'HTTP 500'],
    ]);
    for (const a of attempts) expect(a.latency_ms).toBeGreaterThanOrEqual(0);

    // The operator's view: the CLI, in its own process as an operator runs it, against the same
    // database file. (In this process its synchronous busy wait would block the server's event
    // loop, and with it the COMMIT it waits for.)
    const listed = await runCli(['webhooks', 'list', '--db', db]);
    expect(listed.code, listed.stderr).toBe(0);
    const text = listed.stdout;
    // Deliveries to a platform name its profile: the webhook_url is looked up on every attempt.
    expect(text).toMatch(
      new RegExp(
        `#${d.id}\\s+failed\\s+booking\\.confirmed\\s+${d.event_id}\\s+-> profile:\\S+\\s+attempts 3\\s+last HTTP 500`,
      ),
    );
    for (const n of [1, 2, 3])
      expect(text).toMatch(
        new RegExp(`attempt ${n} at \\d{4}-\\d\\d-\\d\\dT[^:]+:\\d\\d:\\d\\d\\.\\d+Z: 500 in \\d+ ms - HTTP 500`),
      );

    rx.setDefault('/down', 200);
    // On the server's clock, as every process in a test is: the retried delivery is due at once for it.
    const retried = await runCli(['webhooks', 'retry', '--failed', '--db', db], { env: clockEnv(t.clock.now()) });
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toMatch(/^1 delivery queued again/);
    await waitFor(
      async () =>
        (await t.server.store.read((tx) => tx.webhooks.list({ status: 'delivered', limit: 10 }))).length === 1,
      5000,
    );
    const last = rx.requests('/down').at(-1)!;
    expect(last).toMatchObject({ answered: 200, json: { event_id: d.event_id, booking_id: b.id } });
  });
});

describe('isolation: one dead endpoint never holds up another platform', () => {
  afterEach(() => closeAll());

  it('while platform A hangs (timeout 2 s), platform B gets its event promptly', async () => {
    const rxA = await receiver();
    const rxB = await receiver();
    rxA.setDefault('/hooks', 'hang');
    const t = await server({ timeoutMs: 2000 });
    const a = t.platform('hangs', rxA.url('/hooks'));
    const bp = t.platform('healthy', rxB.url('/hooks'));

    await book(t, a, 'svc_haircut', day(2));
    await rxA.waitFor((r) => r.length === 1, 1500);
    const started = performance.now();
    const bBooking = await book(t, bp, 'svc_haircut', day(3));
    await rxB.waitFor((r) => r.length === 1, 1500);
    // B arrived well inside A's timeout, while A's request is still open.
    expect(performance.now() - started).toBeLessThan(1500);
    expect(rxB.requests()[0]).toMatchObject({
      answered: 200,
      json: { event: 'booking.confirmed', booking_id: bBooking.id },
    });
    expect(rxA.requests().map((r) => r.answered)).toEqual([null]);
  });
});

describe('causal order per booking survives retries', () => {
  afterEach(() => closeAll());

  it('the first attempt of booking.confirmed fails: rescheduled and canceled wait until it is retried and delivered', async () => {
    const rx = await receiver();
    rx.script('/order', [500]);
    const t = await server({ retry: { firstRetryMs: 200, maxRetries: 3 } });
    const p = t.platform('order', rx.url('/order'));
    const b = await book(t, p, 'svc_haircut', day(2));
    await rx.waitFor((r) => r.length >= 1, 3000);
    // The later events are committed while the first one waits for its retry.
    const moveTo = await firstSlot(t, 'svc_haircut', day(3), p);
    expect((await t.call('POST', `/bookings/${b.id}/reschedule`, { slot_id: moveTo.id }, p)).status).toBe(200);
    expect((await t.call('POST', `/bookings/${b.id}/cancel`, {}, p)).status).toBe(200);
    await rx.waitFor((r) => r.filter((x) => x.answered === 200).length >= 3, 5000);

    const seen = rx.requests('/order').map((r) => `${r.json.event}:${r.answered}`);
    expect(seen).toEqual([
      'booking.confirmed:500',
      'booking.confirmed:200',
      'booking.rescheduled:200',
      'booking.canceled:200',
    ]);
    const created = (await outbox(t))
      .filter((e) => e.order_key === b.id && e.event !== 'booking.reminder')
      .map((e) => e.event_id);
    expect(delivered(rx, '/order').map((r) => r.json.event_id)).toEqual(created);
  });

  it('a failing event in the middle holds back the next one for the same booking, not another booking to the same platform', async () => {
    const rx = await receiver();
    let failing = false;
    rx.setResponder('/mid', (r) => (failing && r.json?.event === 'booking.rescheduled' ? 500 : undefined));
    const t = await server({ retry: { firstRetryMs: 50, maxRetries: 10, maxTotalMs: 60_000 } });
    const p = t.platform('mid', rx.url('/mid'));
    const a = await book(t, p, 'svc_haircut', day(2));
    await expectEvents(rx, '/mid', a.id, ['booking.confirmed']);

    failing = true;
    const moveTo = await firstSlot(t, 'svc_haircut', day(3), p);
    expect((await t.call('POST', `/bookings/${a.id}/reschedule`, { slot_id: moveTo.id }, p)).status).toBe(200);
    await rx.waitFor((r) => r.some((x) => x.answered === 500), 3000);
    expect((await t.call('POST', `/bookings/${a.id}/cancel`, {}, p)).status).toBe(200);
    // Another booking of the same platform goes through while A's reschedule keeps failing...
    const c = await book(t, p, 'svc_haircut', day(4));
    await expectEvents(rx, '/mid', c.id, ['booking.confirmed']);
    // ...but A's cancellation waits behind its reschedule.
    expect(names(eventsFor(rx, '/mid', a.id))).toEqual(['booking.confirmed']);

    failing = false;
    await expectEvents(rx, '/mid', a.id, ['booking.confirmed', 'booking.rescheduled', 'booking.canceled']);
    const seen = rx
      .requests('/mid')
      .filter((r) => r.json.booking_id === a.id)
      .map((r) => `${r.json.event}:${r.answered}`);
    const failures = seen.filter((x) => x === 'booking.rescheduled:500').length;
    expect(failures).toBeGreaterThanOrEqual(1);
    expect(seen).toEqual([
      'booking.confirmed:200',
      ...Array(failures).fill('booking.rescheduled:500'),
      'booking.rescheduled:200',
      'booking.canceled:200',
    ]);
    // Retries reuse the event id.
    expect(
      new Set(
        rx
          .requests('/mid')
          .filter((r) => r.json.event === 'booking.rescheduled')
          .map((r) => r.json.event_id),
      ).size,
    ).toBe(1);
  });
});

// =============================================================================================

describe('booking.reminder fires at its offset on the injected clock', () => {
  const OFFSET = 3600_000;
  let n = 0;

  async function reminderServer(): Promise<{
    t: WebhookTestServer;
    rx: WebhookReceiver;
    p: string;
    sentinel: () => Promise<void>;
  }> {
    const rx = await receiver();
    const t = await server({
      clock: new ManualClock(TEST_NOW),
      business: demoBusiness({ reminder_offset_seconds: OFFSET / 1000 }),
    });
    const p = t.platform('remind', rx.url('/remind'));
    /**
     * Proof that the dispatcher looked at the current clock: a new booking on a far day, whose
     * booking.confirmed goes to the same target. A reminder due at that moment precedes it
     * (it is older in the outbox, and one target gets one delivery at a time, oldest first).
     */
    const sentinel = async () => {
      const s = await book(t, p, 'svc_haircut', day(20 + n++));
      await rx.waitFor(() => eventsFor(rx, '/remind', s.id).length === 1, 5000, 'sentinel delivered');
    };
    return { t, rx, p, sentinel };
  }

  const reminders = (rx: WebhookReceiver, id: string) =>
    eventsFor(rx, '/remind', id).filter((e) => e.event === 'booking.reminder');

  afterEach(() => closeAll());

  it('nothing just before start - offset; exactly one booking.reminder once the clock passes it', async () => {
    const { t, rx, p, sentinel } = await reminderServer();
    const b = await book(t, p, 'svc_haircut', day(2));
    await expectEvents(rx, '/remind', b.id, ['booking.confirmed']);
    const start = Date.parse(b.slot.start);

    t.clock.set(start - OFFSET - 60_000);
    await sentinel();
    expect(reminders(rx, b.id)).toEqual([]);

    t.clock.set(start - OFFSET + 1000);
    t.server.dispatcher.nudge();
    await rx.waitFor(() => reminders(rx, b.id).length === 1, 5000);
    await sentinel();
    t.clock.advance(2 * OFFSET);
    await sentinel();
    const [reminder] = reminders(rx, b.id);
    expect(reminders(rx, b.id)).toHaveLength(1);
    expect(reminder).toMatchObject({ booking_id: b.id, event: 'booking.reminder' });
    // It says when it happened: the reminder time, not the booking time.
    expect(Date.parse(reminder.timestamp)).toBe(start - OFFSET);
    const req = rx.requests('/remind').find((r) => r.json.event_id === reminder.event_id)!;
    expect((await verifyDelivery(req, await publishedKeys(t.url), t.clock.now())).ok).toBe(true);
  });

  it("a canceled booking's reminder never fires", async () => {
    const { t, rx, p, sentinel } = await reminderServer();
    const b = await book(t, p, 'svc_haircut', day(2));
    expect((await t.call('POST', `/bookings/${b.id}/cancel`, {}, p)).status).toBe(200);
    await expectEvents(rx, '/remind', b.id, ['booking.confirmed', 'booking.canceled']);
    const start = Date.parse(b.slot.start);
    t.clock.set(start - OFFSET + 1000);
    await sentinel();
    t.clock.set(start + 86_400_000);
    await sentinel();
    expect(reminders(rx, b.id)).toEqual([]);
    expect(names(eventsFor(rx, '/remind', b.id))).toEqual(['booking.confirmed', 'booking.canceled']);
  });

  it('a rescheduled booking reminds at the new time only', async () => {
    const { t, rx, p, sentinel } = await reminderServer();
    const b = await book(t, p, 'svc_haircut', day(2));
    const newSlot = await firstSlot(t, 'svc_haircut', day(4), p);
    const moved = await t.call('POST', `/bookings/${b.id}/reschedule`, { slot_id: newSlot.id }, p);
    expect(moved.status).toBe(200);
    await expectEvents(rx, '/remind', b.id, ['booking.confirmed', 'booking.rescheduled']);
    const oldStart = Date.parse(b.slot.start);
    const newStart = Date.parse(moved.body.booking.slot.start);
    expect(newStart).toBeGreaterThan(oldStart + OFFSET);

    t.clock.set(oldStart - OFFSET + 1000);
    await sentinel();
    t.clock.set(newStart - OFFSET - 60_000);
    await sentinel();
    expect(reminders(rx, b.id)).toEqual([]);

    t.clock.set(newStart - OFFSET + 1000);
    t.server.dispatcher.nudge();
    await rx.waitFor(() => reminders(rx, b.id).length === 1, 5000);
    await sentinel();
    const [reminder] = reminders(rx, b.id);
    expect(reminders(rx, b.id)).toHaveLength(1);
    expect(reminder.data.slot.start).toBe(moved.body.booking.slot.start);
  });
});

// =============================================================================================

describe('a booking made inside the reminder window is reminded at once, unless less than an hour remains', () => {
  const OFFSET = 24 * 3600_000;

  async function lateServer(name: string) {
    const rx = await receiver();
    const t = await server({
      clock: new ManualClock(TEST_NOW),
      business: demoBusiness({ reminder_offset_seconds: OFFSET / 1000 }),
    });
    const p = t.platform(name, rx.url(`/${name}`));
    return { t, rx, p };
  }
  const reminders = (rx: WebhookReceiver, path: string, id: string) =>
    eventsFor(rx, path, id).filter((e) => e.event === 'booking.reminder');

  afterEach(() => closeAll());

  it('booked 5 h before the start with a 24 h offset: booking.confirmed, then booking.reminder at once, stamped with the booking time', async () => {
    const { t, rx, p } = await lateServer('late');
    const slot = await firstSlot(t, 'svc_haircut', day(2), p);
    t.clock.set(Date.parse(slot.start) - 5 * 3600_000);
    const b = await book(t, p, 'svc_haircut', day(2), { slot_id: slot.id });
    const got = await expectEvents(rx, '/late', b.id, ['booking.confirmed', 'booking.reminder']);
    expect(Date.parse(got[1].timestamp)).toBe(t.clock.now());
    expect(got[1].data.slot.start).toBe(b.slot.start);
    // Exactly one: the clock passing the (already passed) reminder time sends nothing more.
    t.clock.advance(3600_000);
    const s = await book(t, p, 'svc_haircut', day(9));
    await expectEvents(rx, '/late', s.id, ['booking.confirmed']);
    expect(reminders(rx, '/late', b.id)).toHaveLength(1);
  });

  it('paid (so confirmed) 55 min before the start: booking.confirmed only, never a reminder', async () => {
    const { t, rx, p } = await lateServer('tooLate');
    const slot = await firstSlot(t, 'svc_massage_60', day(2), p);
    // The booking window needs an hour's notice; the payment arrives ten minutes later.
    t.clock.set(Date.parse(slot.start) - 65 * 60_000);
    const b = await book(t, p, 'svc_massage_60', day(2), { slot_id: slot.id });
    t.clock.advance(10 * 60_000);
    const due = b.actions[0].payment_context;
    const r = await t.call(
      'POST',
      `/bookings/${b.id}/confirm-payment`,
      {
        payment_result: {
          status: 'paid',
          transaction_id: 'txn_55',
          amount_paid: due.amount_due,
          currency: due.currency,
        },
      },
      p,
    );
    expect(r.body.booking.status).toBe('confirmed');
    await expectEvents(rx, '/tooLate', b.id, ['booking.confirmed']);
    const s = await book(t, p, 'svc_haircut', day(9));
    await expectEvents(rx, '/tooLate', s.id, ['booking.confirmed']);
    expect(reminders(rx, '/tooLate', b.id)).toEqual([]);
    expect((await outbox(t)).filter((e) => e.order_key === b.id && e.event === 'booking.reminder')).toEqual([]);
  });

  it('a paid-at-booking service booked inside the window is reminded when the payment confirms it, not while it awaits payment', async () => {
    const { t, rx, p } = await lateServer('paid');
    const slot = await firstSlot(t, 'svc_massage_60', day(2), p);
    t.clock.set(Date.parse(slot.start) - 5 * 3600_000);
    const b = await book(t, p, 'svc_massage_60', day(2), { slot_id: slot.id });
    expect(b.status).toBe('requires_action');
    const due = b.actions[0].payment_context;
    const r = await t.call(
      'POST',
      `/bookings/${b.id}/confirm-payment`,
      {
        payment_result: {
          status: 'paid',
          transaction_id: 'txn_late',
          amount_paid: due.amount_due,
          currency: due.currency,
        },
      },
      p,
    );
    expect(r.body.booking.status).toBe('confirmed');
    await expectEvents(rx, '/paid', b.id, ['booking.confirmed', 'booking.reminder']);
  });
});

describe('signing key rotation (D5: retired keys stay published 7 days)', () => {
  afterEach(() => closeAll());

  it('after keyring.rotate a new server on the same database publishes both keys and signs with the new kid', async () => {
    const rx = await receiver();
    const shared = await profiles();
    const db = tmpDb();
    const first = await startWebhookServer({ db, profiles: shared, clock: new ManualClock(TEST_NOW) });
    const p = shared.addProfile('/platforms/rot.json', { webhook_url: rx.url('/rot') });
    await book(first, p, 'svc_haircut', day(2));
    await rx.waitFor((r) => r.length === 1);
    const oldKeys = await publishedKeys(first.url);
    expect(oldKeys).toHaveLength(1);
    const oldKid = oldKeys[0].kid!;
    expect((await verifyDelivery(rx.requests()[0], oldKeys, TEST_NOW)).kid).toBe(oldKid);

    const newKid = await first.server.keyring.rotate(first.clock.now());
    expect(newKid).not.toBe(oldKid);
    await first.close();

    // The next key signs once the overlap is over (published from the rotation on, tested below).
    const activation = TEST_NOW + DEFAULT_KEY_OVERLAP_MS;
    const clock = new ManualClock(activation + 60_000);
    const second = await server({ db, profiles: shared, clock });
    const res = await fetch(`${second.url}/.well-known/usp`);
    const profile = (await res.json()) as { keys: Array<{ kid: string }>; signing_keys?: Array<{ kid: string }> };
    expect(profile.keys.map((k) => k.kid).sort()).toEqual([oldKid, newKid].sort());
    if (profile.signing_keys) expect(profile.signing_keys).toEqual(profile.keys);

    await book(second, p, 'svc_haircut', day(3));
    await rx.waitFor((r) => r.length === 2);
    const req = rx.requests()[1];
    const keys = await publishedKeys(second.url);
    expect(await verifyDelivery(req, keys, clock.now())).toMatchObject({ ok: true, kid: newKid });
    // Only the new key verifies it.
    expect(
      (
        await verifyDelivery(
          req,
          keys.filter((k) => k.kid === oldKid),
          clock.now(),
        )
      ).ok,
    ).toBe(false);

    // The retired key is still published just before 7 days after it stopped signing, and gone after.
    clock.set(activation + 7 * 86_400_000 - 1);
    expect((second.server.profile().keys as Array<{ kid: string }>).map((k) => k.kid)).toContain(oldKid);
    clock.set(activation + 7 * 86_400_000 + 1);
    expect((second.server.profile().keys as Array<{ kid: string }>).map((k) => k.kid)).toEqual([newKid]);
  });

  it('a rotation publishes the next key at once and signs with it only after the overlap (at least the profile cache lifetime)', async () => {
    const rx = await receiver();
    const shared = await profiles();
    const clock = new ManualClock(TEST_NOW);
    const s = await startWebhookServer({ db: tmpDb(), profiles: shared, clock });
    const p = shared.addProfile('/platforms/staged.json', { webhook_url: rx.url('/staged') });
    const oldKid = (await publishedKeys(s.url))[0].kid!;
    const newKid = await s.server.keyring.rotate(clock.now());
    // Published before it signs: a platform that fetches the profile now holds the next key.
    expect((await publishedKeys(s.url)).map((k) => k.kid).sort()).toEqual([oldKid, newKid].sort());
    const cache = Number(
      /max-age=(\d+)/.exec((await fetch(`${s.url}/.well-known/usp`)).headers.get('cache-control') ?? '')?.[1],
    );
    expect(DEFAULT_KEY_OVERLAP_MS).toBeGreaterThanOrEqual(cache * 1000);

    clock.set(TEST_NOW + DEFAULT_KEY_OVERLAP_MS - 1000);
    await book(s, p, 'svc_haircut', day(2));
    await rx.waitFor((r) => r.length === 1);
    expect((await verifyDelivery(rx.requests()[0], await publishedKeys(s.url), clock.now())).kid).toBe(oldKid);

    clock.set(TEST_NOW + DEFAULT_KEY_OVERLAP_MS + 1000);
    await book(s, p, 'svc_haircut', day(3));
    await rx.waitFor((r) => r.length === 2);
    expect((await verifyDelivery(rx.requests()[1], await publishedKeys(s.url), clock.now())).kid).toBe(newKid);
    expect((await publishedKeys(s.url)).map((k) => k.kid)).toContain(oldKid);
  });

  it('an overlap shorter than the profile cache lifetime is refused', async () => {
    const start = createUspServer({
      business: demoBusiness(),
      db: ':memory:',
      sandbox: true,
      log: silentLogger,
      sweepIntervalMs: 0,
      webhooks: { enabled: false, keyOverlapMs: 60_000 },
    });
    await expect(start).rejects.toThrow(/cache lifetime/);
  });
});

// =============================================================================================

describeConformance('webhook payloads validate against the official webhook_event.json', () => {
  it('every booking event (BookingEvent, with the full Booking as data)', async () => {
    const { rx } = await lifecycleRun();
    const bodies = delivered(rx, '/life')
      .map((r) => r.json)
      .filter((b) => b.event.startsWith('booking.'));
    expect(new Set(bodies.map((b) => b.event))).toEqual(
      new Set([
        'booking.confirmed',
        'booking.rescheduled',
        'booking.canceled',
        'booking.refund_issued',
        'booking.service_started',
        'booking.completed',
        'booking.no_show',
      ]),
    );
    for (const b of bodies)
      assertValid(validateSchemaDef('webhook_event.json', 'BookingEvent', b), `${b.event} ${b.booking_id}`);
  });

  it('every waitlist event (WaitlistEvent)', async () => {
    const { rx } = await lifecycleRun();
    const bodies = delivered(rx, '/life')
      .map((r) => r.json)
      .filter((b) => b.event.startsWith('waitlist.'));
    expect(bodies.map((b) => b.event)).toEqual(['waitlist.spot_offered', 'waitlist.converted']);
    for (const b of bodies) assertValid(validateSchemaDef('webhook_event.json', 'WaitlistEvent', b), b.event);
  });

  it('every catalog event (CatalogEvent)', async () => {
    const { rx } = await catalogRun();
    const bodies = rx
      .requests()
      .filter((r) => r.path.startsWith('/catalog/'))
      .map((r) => r.json);
    expect(new Set(bodies.map((b) => b.event))).toEqual(
      new Set(['service.created', 'service.updated', 'service.suspended', 'service.deleted']),
    );
    for (const b of bodies)
      assertValid(validateSchemaDef('webhook_event.json', 'CatalogEvent', b), `${b.event} ${b.service_id}`);
  });

  it('booking.reminder (BookingEvent)', async () => {
    const rx = await receiver();
    const t = await server({
      clock: new ManualClock(TEST_NOW),
      business: demoBusiness({ reminder_offset_seconds: 3600 }),
    });
    const p = t.platform('schema-remind', rx.url('/r'));
    const b = await book(t, p, 'svc_haircut', day(2));
    t.clock.set(Date.parse(b.slot.start) - 3_599_000);
    t.server.dispatcher.nudge();
    await rx.waitFor((r) => r.some((x) => x.json.event === 'booking.reminder'), 5000);
    for (const r of rx.requests('/r'))
      assertValid(validateSchemaDef('webhook_event.json', 'BookingEvent', r.json), r.json.event);
  });
});
