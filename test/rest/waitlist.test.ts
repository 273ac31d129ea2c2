/**
 * Waitlist extension over REST (spec §11.1; CONFORMANCE §6, decisions D3, D15): join a full group
 * class, see only your own entries, get offered a freed place, accept it (which books atomically),
 * decline or let the offer expire (the place moves down the line), leave, and conditional writes
 * on entries. Time only moves through the ManualClock.
 */
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

const SERVICE = 'svc_yoga_class';
const CAPACITY = 12;

async function yogaSlot(t: TestServer, slotId: string): Promise<any> {
  const r = await call(t, 'POST', '/availability/query', '/availability/query', {
    service_id: SERVICE,
    start_date: day(1),
    end_date: day(1),
    limit: 500,
  });
  expect(r.status).toBe(200);
  return r.body.slots.find((s: any) => s.id === slotId);
}

const buyer = (n: number) => ({ first_name: `Buyer${n}`, last_name: 'Waiting', email: `buyer${n}@example.com` });

interface FullClass {
  slot: any;
  /** The 1-spot booking whose cancellation frees a place. */
  single: any;
  /** The 11-spot booking. */
  group: any;
}

/** Books all 12 spots of the first yoga class tomorrow: a party of 11 and a party of 1. */
async function fillClass(t: TestServer): Promise<FullClass> {
  const q = await call(t, 'POST', '/availability/query', '/availability/query', {
    service_id: SERVICE,
    start_date: day(1),
    end_date: day(1),
  });
  const slot = q.body.slots[0];
  expect(slot.capacity.total).toBe(CAPACITY);
  const group = await call(t, 'POST', '/bookings', '/bookings', {
    service_id: SERVICE,
    slot_id: slot.id,
    buyer: BUYER,
    party_size: CAPACITY - 1,
  });
  expect(group.status).toBe(201);
  const single = await call(t, 'POST', '/bookings', '/bookings', {
    service_id: SERVICE,
    slot_id: slot.id,
    buyer: buyer(0),
  });
  expect(single.status).toBe(201);
  const full = await yogaSlot(t, slot.id);
  expect(full.state).toBe('waitlist');
  expect(full.capacity.remaining).toBe(0);
  return { slot, single: single.body.booking, group: group.body.booking };
}

async function join(
  t: TestServer,
  slotId: string,
  n: number,
  opts: Parameters<TestServer['call']>[3] = {},
): Promise<any> {
  const r = await call(
    t,
    'POST',
    '/waitlist',
    '/waitlist',
    { service_id: SERVICE, slot_id: slotId, buyer: buyer(n) },
    opts,
  );
  expect(r.status).toBe(201);
  return r.body.entry;
}

const getEntry = (t: TestServer, id: string, opts: Parameters<TestServer['call']>[3] = {}) =>
  call(t, 'GET', `/waitlist/${id}`, '/waitlist/{entry_id}', undefined, opts);
const accept = (t: TestServer, id: string, opts: Parameters<TestServer['call']>[3] = {}) =>
  call(t, 'POST', `/waitlist/${id}/accept`, '/waitlist/{entry_id}/accept', {}, opts);
const decline = (t: TestServer, id: string, opts: Parameters<TestServer['call']>[3] = {}) =>
  call(t, 'POST', `/waitlist/${id}/decline`, '/waitlist/{entry_id}/decline', {}, opts);
const cancelBooking = (t: TestServer, id: string) =>
  call(t, 'POST', `/bookings/${id}/cancel`, '/bookings/{booking_id}/cancel', {});

function errorCodes(body: any): string[] {
  return (body?.messages ?? []).filter((m: any) => m.type === 'error').map((m: any) => m.code);
}

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});

describe('joining the waitlist of a full class queues the buyer in order', () => {
  it('the first entry is waiting at position 1, the second at position 2', async () => {
    const { slot } = await fillClass(t);
    const first = await join(t, slot.id, 1);
    expect(first).toMatchObject({ service_id: SERVICE, status: 'waiting', position: 1, slot_id: slot.id });
    expect(typeof first.revision).toBe('string');
    const second = await join(t, slot.id, 2);
    expect(second).toMatchObject({ status: 'waiting', position: 2 });
    expect(second.id).not.toBe(first.id);

    const read = await getEntry(t, second.id);
    expect(read.status).toBe(200);
    expect(read.body.entry).toMatchObject({ id: second.id, status: 'waiting', position: 2 });
  });

  it('entries joined at the same instant keep their join order (positions 1..n, first offered first)', async () => {
    const { slot, single } = await fillClass(t);
    const entries = [];
    for (let n = 1; n <= 6; n++) entries.push(await join(t, slot.id, n));
    expect(entries.map((e) => e.position)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const [i, e] of entries.entries()) expect((await getEntry(t, e.id)).body.entry.position).toBe(i + 1);

    await cancelBooking(t, single.id);
    const statuses = [];
    for (const e of entries) statuses.push((await getEntry(t, e.id)).body.entry.status);
    expect(statuses).toEqual(['offered', 'waiting', 'waiting', 'waiting', 'waiting', 'waiting']);
  });

  it('joining a service without a waitlist is an error message (HTTP 200) and stores nothing', async () => {
    const q = await call(t, 'POST', '/availability/query', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(1),
      end_date: day(1),
    });
    const r = await call(t, 'POST', '/waitlist', '/waitlist', {
      service_id: 'svc_haircut',
      slot_id: q.body.slots[0].id,
      buyer: buyer(1),
    });
    expect(r.status).toBe(200);
    expect(r.body.entry).toBeUndefined();
    expect(errorCodes(r.body)).toHaveLength(1);
    expect(r.body.messages[0].path).toBe('$.service_id');
    const stored = await t.server.store.read((tx) => tx.waitlist.byService('svc_haircut', ['waiting', 'offered']));
    expect(stored).toEqual([]);
  });
});

describe('a platform lists and reads only the entries it created (D15, D3)', () => {
  it('list shows the caller its own entries only; another platform sees none of them', async () => {
    const { slot } = await fillClass(t);
    const e1 = await join(t, slot.id, 1);
    const e2 = await join(t, slot.id, 2);

    const mine = await call(t, 'POST', '/waitlist/list', '/waitlist/list', {});
    expect(mine.status).toBe(200);
    expect(mine.body.entries.map((e: any) => e.id)).toEqual([e1.id, e2.id]);
    expect(mine.body.pagination.has_more).toBe(false);

    const page1 = await call(t, 'POST', '/waitlist/list', '/waitlist/list', { pagination: { limit: 1 } });
    expect(page1.body.entries).toHaveLength(1);
    expect(page1.body.pagination.has_more).toBe(true);
    expect(typeof page1.body.pagination.next_cursor).toBe('string');
    const page2 = await call(t, 'POST', '/waitlist/list', '/waitlist/list', {
      pagination: { limit: 1, cursor: page1.body.pagination.next_cursor },
    });
    expect(page2.body.entries).toHaveLength(1);
    expect(page2.body.pagination.has_more).toBe(false);
    expect(page2.body.pagination.next_cursor).toBeUndefined();
    expect([page1.body.entries[0].id, page2.body.entries[0].id]).toEqual([e1.id, e2.id]);

    const theirs = await call(t, 'POST', '/waitlist/list', '/waitlist/list', {}, { profile: OTHER_PLATFORM });
    expect(theirs.status).toBe(200);
    expect(theirs.body.entries).toEqual([]);

    const e3 = await join(t, slot.id, 3, { profile: OTHER_PLATFORM });
    expect(e3.position).toBe(3);
    const theirsNow = await call(
      t,
      'POST',
      '/waitlist/list',
      '/waitlist/list',
      { service_id: SERVICE },
      { profile: OTHER_PLATFORM },
    );
    expect(theirsNow.body.entries.map((e: any) => e.id)).toEqual([e3.id]);
    const mineNow = await call(t, 'POST', '/waitlist/list', '/waitlist/list', { service_id: SERVICE });
    expect(mineNow.body.entries.map((e: any) => e.id)).toEqual([e1.id, e2.id]);
  });

  it("another platform's entry is 404 entry-not-found on get, accept, decline and leave, and stays untouched", async () => {
    const { slot, single } = await fillClass(t);
    const e1 = await join(t, slot.id, 1);
    await cancelBooking(t, single.id);
    const offered = (await getEntry(t, e1.id)).body.entry;
    expect(offered.status).toBe('offered');

    for (const r of [
      await getEntry(t, e1.id, { profile: OTHER_PLATFORM }),
      await accept(t, e1.id, { profile: OTHER_PLATFORM }),
      await decline(t, e1.id, { profile: OTHER_PLATFORM }),
      await call(t, 'DELETE', `/waitlist/${e1.id}`, '/waitlist/{entry_id}', undefined, { profile: OTHER_PLATFORM }),
    ]) {
      expect([r.status, r.body.type, r.body.code]).toEqual([
        404,
        'https://usp-protocol.dev/errors/entry-not-found',
        'entry_not_found',
      ]);
      expect(r.body.entry).toBeUndefined();
    }
    const after = (await getEntry(t, e1.id)).body.entry;
    expect(after.status).toBe('offered');
    expect(after.revision).toBe(offered.revision);
  });
});

describe('a freed place is offered to the first waiting entry, and accepting it books atomically', () => {
  it('cancel -> first entry offered; accept -> entry accepted with a booking for that slot; accept again -> offer_already_accepted', async () => {
    const { slot, single } = await fillClass(t);
    const e1 = await join(t, slot.id, 1);
    const e2 = await join(t, slot.id, 2);

    await cancelBooking(t, single.id);
    const o = (await getEntry(t, e1.id)).body.entry;
    expect(o.status).toBe('offered');
    expect(o.offered_slot.slot_id).toBe(slot.id);
    expect(o.offered_slot.start).toBe(slot.start);
    expect(o.offered_slot.end).toBe(slot.end);
    expect(typeof o.offer_expires_at).toBe('string');
    expect(o.revision).not.toBe(e1.revision);
    expect((await getEntry(t, e2.id)).body.entry).toMatchObject({ status: 'waiting', position: 2 });
    // The offered place is held for the entry: the class still shows no open spot.
    expect((await yogaSlot(t, slot.id)).capacity.remaining).toBe(0);

    const r = await accept(t, e1.id);
    expect(r.status).toBe(200);
    expect(r.body.messages ?? []).toEqual([]);
    expect(r.body.entry).toMatchObject({ id: e1.id, status: 'accepted' });
    const booking = r.body.booking;
    expect(typeof booking.id).toBe('string');
    expect(['confirmed', 'requires_action']).toContain(booking.status);
    expect(booking.slot.id).toBe(slot.id);
    expect(booking.service_id).toBe(SERVICE);
    expect(booking.buyer).toMatchObject(buyer(1));

    const read = await call(t, 'GET', `/bookings/${booking.id}`, '/bookings/{booking_id}');
    expect(read.body.booking.status).toBe(booking.status);
    const full = await yogaSlot(t, slot.id);
    expect(full.capacity.remaining).toBe(0);
    expect(full.capacity.held).toBe(0);

    const again = await accept(t, e1.id);
    expect(again.status).toBe(200);
    expect(errorCodes(again.body)).toEqual(['offer_already_accepted']);
    expect(again.body.booking).toBeUndefined();
    const bookings = await t.server.store.read((tx) => tx.bookings.recent(100));
    expect(bookings.filter((b) => b.booking.id !== single.id && b.booking.status !== 'canceled')).toHaveLength(2);
    expect((await getEntry(t, e2.id)).body.entry.status).toBe('waiting');
  });

  it('declining passes the place to the next entry', async () => {
    const { slot, single } = await fillClass(t);
    const e1 = await join(t, slot.id, 1);
    const e2 = await join(t, slot.id, 2);
    await cancelBooking(t, single.id);
    expect((await getEntry(t, e1.id)).body.entry.status).toBe('offered');

    const d = await decline(t, e1.id);
    expect(d.status).toBe(200);
    expect(['declined', 'waiting', 'removed']).toContain(d.body.entry.status);
    expect(d.body.entry.offer_expires_at).toBeUndefined();

    const next = (await getEntry(t, e2.id)).body.entry;
    expect(next.status).toBe('offered');
    expect(next.offered_slot.slot_id).toBe(slot.id);
    const r = await accept(t, e2.id);
    expect(r.body.entry.status).toBe('accepted');
    expect(r.body.booking.slot.id).toBe(slot.id);
  });

  it('an offer that passes offer_expires_at reads as expired and the place goes to the next waiting entry', async () => {
    const { slot, single } = await fillClass(t);
    const e1 = await join(t, slot.id, 1);
    const e2 = await join(t, slot.id, 2);
    await cancelBooking(t, single.id);
    const offer = (await getEntry(t, e1.id)).body.entry;
    expect(offer.status).toBe('offered');

    t.clock.set(Date.parse(offer.offer_expires_at) - 1000);
    expect((await getEntry(t, e1.id)).body.entry.status).toBe('offered');

    t.clock.set(Date.parse(offer.offer_expires_at) + 1000);
    const expired = await getEntry(t, e1.id);
    expect(expired.body.entry.status).toBe('expired');
    expect(expired.body.entry.offer_expires_at).toBeUndefined();
    const next = (await getEntry(t, e2.id)).body.entry;
    expect(next.status).toBe('offered');
    expect(next.offered_slot.slot_id).toBe(slot.id);
    expect(Date.parse(next.offer_expires_at)).toBeGreaterThan(Date.parse(offer.offer_expires_at));

    const late = await accept(t, e1.id);
    expect(late.status).toBe(200);
    expect(errorCodes(late.body)).toEqual(['offer_expired']);
    expect(late.body.booking).toBeUndefined();
  });
});

describe('leaving the waitlist removes the entry', () => {
  it('DELETE -> removed; the entry stays readable as removed and is no longer offered anything', async () => {
    const { slot, single } = await fillClass(t);
    const e1 = await join(t, slot.id, 1);
    const e2 = await join(t, slot.id, 2);

    const r = await call(t, 'DELETE', `/waitlist/${e1.id}`, '/waitlist/{entry_id}');
    expect(r.status).toBe(200);
    expect(errorCodes(r.body)).toEqual([]);
    const read = (await getEntry(t, e1.id)).body.entry;
    expect(read.status).toBe('removed');
    expect((await getEntry(t, e2.id)).body.entry.position).toBe(1);

    await cancelBooking(t, single.id);
    expect((await getEntry(t, e1.id)).body.entry.status).toBe('removed');
    expect((await getEntry(t, e2.id)).body.entry.status).toBe('offered');
  });
});

describe('conditional writes on entries: a stale If-Match is 412 and writes nothing', () => {
  it('accept with the revision from before the offer -> 412 revision-mismatch; with the current one -> accepted', async () => {
    const { slot, single } = await fillClass(t);
    const e1 = await join(t, slot.id, 1);
    await cancelBooking(t, single.id);
    const offered = (await getEntry(t, e1.id)).body.entry;
    expect(offered.revision).not.toBe(e1.revision);

    const stale = await accept(t, e1.id, { ifMatch: `"${e1.revision}"` });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('content-type')).toContain('application/problem+json');
    expect(stale.body.type).toMatch(/\/revision-mismatch$/);
    const after = (await getEntry(t, e1.id)).body.entry;
    expect(after.status).toBe('offered');
    expect(after.revision).toBe(offered.revision);
    const bookings = await t.server.store.read((tx) => tx.bookings.recent(100));
    expect(bookings).toHaveLength(2);

    const ok = await accept(t, e1.id, { ifMatch: `"${offered.revision}"` });
    expect(ok.status).toBe(200);
    expect(ok.body.entry.status).toBe('accepted');
  });
});

describeConformance('waitlist: response bodies match the official OpenAPI document', () => {
  it('validated the bodies received above', () => {
    expect(validated).toBeGreaterThan(0);
  });
});
