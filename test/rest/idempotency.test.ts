/**
 * Idempotency and conditional writes over REST (spec §9.1.1, §5.6; CONFORMANCE §4, decision D1):
 * a replayed key returns the stored result without re-executing, a reused key with other
 * parameters is a 409 conflict, keys are scoped to the calling platform, a replay never re-checks
 * If-Match, a stale If-Match is a 412 that writes nothing, and the record survives a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUYER, OTHER_PLATFORM, day, startTestServer, type TestServer } from '../support/server.js';
import { conformRestResponse, describeConformance } from '../support/spec.js';

type Res = { status: number; body: any; headers: Headers };

let validated = 0;

/** Official-artifact validation; skipped (with the harness note below) when the spec folder is absent. */
function conform(method: string, path: string, res: Res): void {
  if (conformRestResponse(method, path, res)) validated++;
}

async function call(
  t: TestServer,
  method: string,
  path: string,
  template: string,
  body?: unknown,
  opts: Parameters<TestServer['call']>[3] = {},
): Promise<Res> {
  const r = await t.call(method, path, body, opts);
  conform(method, template, r);
  return r;
}

async function haircutSlots(t: TestServer, date: string): Promise<any[]> {
  const r = await call(t, 'POST', '/availability/query', '/availability/query', {
    service_id: 'svc_haircut',
    start_date: date,
    end_date: date,
    limit: 500,
  });
  expect(r.status).toBe(200);
  return r.body.slots;
}

async function freeIds(t: TestServer, date: string): Promise<Set<string>> {
  return new Set((await haircutSlots(t, date)).map((s) => s.id));
}

async function storedBookings(t: TestServer) {
  return t.server.store.read((tx) => tx.bookings.recent(1000));
}

const create = (
  t: TestServer,
  slotId: string,
  opts: Parameters<TestServer['call']>[3] = {},
  extra: Record<string, unknown> = {},
) =>
  call(
    t,
    'POST',
    '/bookings',
    '/bookings',
    { service_id: 'svc_haircut', slot_id: slotId, buyer: BUYER, ...extra },
    opts,
  );

const getBooking = (t: TestServer, id: string) => call(t, 'GET', `/bookings/${id}`, '/bookings/{booking_id}');

const KEY = '5f0c3c1e-8a4b-4d3e-9c2a-1b7e6f5d4c3b';
const THIRD_PLATFORM = 'https://third-platform.example/profile.json';
const KEY2 = '0d9a8b7c-6e5f-4a3b-8c2d-1e0f9a8b7c6d';

describe('same Idempotency-Key + same parameters replays the stored result without re-executing', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(async () => {
    await t.close();
  });

  it('POST /bookings twice with one key: same booking, 201 both times, one booking stored, one slot taken', async () => {
    const slots = await haircutSlots(t, day(2));
    const [a, b] = [slots[0], slots[slots.length - 1]];
    const first = await create(t, a.id, { idempotencyKey: KEY });
    expect(first.status).toBe(201);
    const second = await create(t, a.id, { idempotencyKey: KEY });
    expect(second.status).toBe(201);
    expect(second.body.booking.id).toBe(first.body.booking.id);
    expect(second.body).toEqual(first.body);

    const stored = await storedBookings(t);
    expect(stored.map((r) => r.booking.id)).toEqual([first.body.booking.id]);
    const free = await freeIds(t, day(2));
    expect(free.has(a.id)).toBe(false);
    expect(free.has(b.id)).toBe(true);
  });

  it('member order of the body does not make it a different request', async () => {
    const [slot] = await haircutSlots(t, day(2));
    const first = await create(t, slot.id, { idempotencyKey: KEY });
    const reordered = await call(
      t,
      'POST',
      '/bookings',
      '/bookings',
      {
        buyer: { email: BUYER.email, last_name: BUYER.last_name, first_name: BUYER.first_name },
        slot_id: slot.id,
        service_id: 'svc_haircut',
      },
      { idempotencyKey: KEY },
    );
    expect(reordered.status).toBe(201);
    expect(reordered.body.booking.id).toBe(first.body.booking.id);
  });

  it('same key + different parameters -> 409 idempotency-conflict and nothing new is stored', async () => {
    const slots = await haircutSlots(t, day(2));
    const first = await create(t, slots[0].id, { idempotencyKey: KEY });
    expect(first.status).toBe(201);
    const other = slots[slots.length - 1];
    const r = await create(t, other.id, { idempotencyKey: KEY });
    expect(r.status).toBe(409);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.type).toMatch(/\/idempotency-conflict$/);
    expect(r.body.status).toBe(409);
    expect((await storedBookings(t)).length).toBe(1);
    expect((await freeIds(t, day(2))).has(other.id)).toBe(true);
  });

  it('keys are scoped per platform: the same key from another platform is a new request', async () => {
    const slots = await haircutSlots(t, day(2));
    const [a, b] = [slots[0], slots[slots.length - 1]];
    const mine = await create(t, a.id, { idempotencyKey: KEY });
    expect(mine.status).toBe(201);

    // Same key and same body from another platform: executed afresh (the slot is taken), never
    // answered with the first platform's booking.
    const same = await create(t, a.id, { idempotencyKey: KEY, profile: OTHER_PLATFORM });
    expect(same.status).toBe(200);
    expect(same.body.booking).toBeUndefined();
    expect(same.body.messages.map((m: any) => m.code)).toEqual(['slot_unavailable']);

    // Same key, different body from a third platform: a new booking, not a 409 against the first
    // platform's record.
    const theirs = await create(t, b.id, { idempotencyKey: KEY, profile: THIRD_PLATFORM });
    expect(theirs.status).toBe(201);
    expect(theirs.body.booking.id).not.toBe(mine.body.booking.id);
    expect(theirs.body.booking.slot.id).toBe(b.id);

    // Each platform's replay still answers with its own booking.
    expect((await create(t, a.id, { idempotencyKey: KEY })).body.booking.id).toBe(mine.body.booking.id);
    expect((await create(t, b.id, { idempotencyKey: KEY, profile: THIRD_PLATFORM })).body.booking.id).toBe(
      theirs.body.booking.id,
    );
    expect((await storedBookings(t)).length).toBe(2);
  });
});

describe('If-Match: a stale precondition is 412 and writes nothing; a replay never re-checks it', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(async () => {
    await t.close();
  });

  it('cancel with the current revision + key K -> 200; replaying K with the now stale If-Match returns the same 200 body', async () => {
    const [slot] = await haircutSlots(t, day(3));
    const booking = (await create(t, slot.id)).body.booking;
    const rev = booking.revision;

    const first = await call(
      t,
      'POST',
      `/bookings/${booking.id}/cancel`,
      '/bookings/{booking_id}/cancel',
      { reason: 'x' },
      { idempotencyKey: KEY, ifMatch: `"${rev}"` },
    );
    expect(first.status).toBe(200);
    expect(first.body.booking.status).toBe('canceled');
    expect(first.body.booking.revision).not.toBe(rev);

    const replay = await call(
      t,
      'POST',
      `/bookings/${booking.id}/cancel`,
      '/bookings/{booking_id}/cancel',
      { reason: 'x' },
      { idempotencyKey: KEY, ifMatch: `"${rev}"` },
    );
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);

    const read = await getBooking(t, booking.id);
    expect(read.body.booking.revision).toBe(first.body.booking.revision);
  });

  it('a stale If-Match without replay -> 412 revision-mismatch, and the booking is unchanged', async () => {
    const [slot] = await haircutSlots(t, day(3));
    const booking = (await create(t, slot.id)).body.booking;
    const stale = booking.revision;
    const upd = await call(
      t,
      'PUT',
      `/bookings/${booking.id}`,
      '/bookings/{booking_id}',
      { notes: 'first' },
      { ifMatch: `"${stale}"` },
    );
    expect(upd.status).toBe(200);
    const current = upd.body.booking.revision;
    expect(current).not.toBe(stale);

    const put = await call(
      t,
      'PUT',
      `/bookings/${booking.id}`,
      '/bookings/{booking_id}',
      { notes: 'second' },
      { ifMatch: `"${stale}"` },
    );
    expect(put.status).toBe(412);
    expect(put.headers.get('content-type')).toContain('application/problem+json');
    expect(put.body.type).toMatch(/\/revision-mismatch$/);

    const cancel = await call(
      t,
      'POST',
      `/bookings/${booking.id}/cancel`,
      '/bookings/{booking_id}/cancel',
      {},
      { ifMatch: `"${stale}"`, idempotencyKey: KEY2 },
    );
    expect(cancel.status).toBe(412);
    expect(cancel.body.type).toMatch(/\/revision-mismatch$/);

    const read = await getBooking(t, booking.id);
    expect(read.body.booking.status).toBe('confirmed');
    expect(read.body.booking.notes).toBe('first');
    expect(read.body.booking.revision).toBe(current);
    expect((await freeIds(t, day(3))).has(slot.id)).toBe(false);

    // The refused request stored no idempotency record: the same key now executes.
    const retry = await call(
      t,
      'POST',
      `/bookings/${booking.id}/cancel`,
      '/bookings/{booking_id}/cancel',
      {},
      { ifMatch: `"${current}"`, idempotencyKey: KEY2 },
    );
    expect(retry.status).toBe(200);
    expect(retry.body.booking.status).toBe('canceled');
  });

  it('If-Match is accepted quoted, weak (W/"...") and bare', async () => {
    const [slot] = await haircutSlots(t, day(3));
    const booking = (await create(t, slot.id)).body.booking;

    const quoted = await call(
      t,
      'PUT',
      `/bookings/${booking.id}`,
      '/bookings/{booking_id}',
      { notes: 'quoted' },
      { ifMatch: `"${booking.revision}"` },
    );
    expect(quoted.status).toBe(200);
    const weak = await call(
      t,
      'PUT',
      `/bookings/${booking.id}`,
      '/bookings/{booking_id}',
      { notes: 'weak' },
      { ifMatch: `W/"${quoted.body.booking.revision}"` },
    );
    expect(weak.status).toBe(200);
    const bare = await call(
      t,
      'PUT',
      `/bookings/${booking.id}`,
      '/bookings/{booking_id}',
      { notes: 'bare' },
      { ifMatch: weak.body.booking.revision },
    );
    expect(bare.status).toBe(200);
    const weakStale = await call(
      t,
      'PUT',
      `/bookings/${booking.id}`,
      '/bookings/{booking_id}',
      { notes: 'no' },
      { ifMatch: `W/"${booking.revision}"` },
    );
    expect(weakStale.status).toBe(412);
    expect((await getBooking(t, booking.id)).body.booking.notes).toBe('bare');
  });
});

describe('the idempotency record survives a restart', () => {
  let dir: string;
  let t: TestServer | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'usp-idem-'));
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('a key used before a restart replays the same booking after it', async () => {
    const db = join(dir, 'usp.sqlite');
    t = await startTestServer({ db });
    const [slot] = await haircutSlots(t, day(2));
    const first = await create(t, slot.id, { idempotencyKey: KEY });
    expect(first.status).toBe(201);
    await t.close();
    t = undefined;

    t = await startTestServer({ db });
    const replay = await create(t, slot.id, { idempotencyKey: KEY });
    expect(replay.status).toBe(201);
    expect(replay.body.booking.id).toBe(first.body.booking.id);
    expect((await storedBookings(t)).map((r) => r.booking.id)).toEqual([first.body.booking.id]);
    const conflict = await create(t, (await haircutSlots(t, day(2)))[0].id, { idempotencyKey: KEY });
    expect(conflict.status).toBe(409);
  });
});

describeConformance('idempotency: response bodies match the official OpenAPI document', () => {
  it('validated the bodies received above', () => {
    expect(validated).toBeGreaterThan(0);
  });
});
