/**
 * Short slot ids end to end: availability answers 19-character ids; an id keeps naming the same
 * resources after the business reorders its file; long-form ids issued before still hold, book and
 * join a waitlist; an id whose resource left the service is a business outcome, never another slot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusinessDef } from '../../src/domain/business.js';
import { BUYER, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';

type Slot = { id: string; start: string; resources?: Array<{ id: string }> };

let t: TestServer;
let n = 0;
const platform = () => `https://slot-ids-${++n}.example/profile.json`;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

async function slots(server: TestServer, serviceId: string, date: string): Promise<Slot[]> {
  const res = await server.call(
    'POST',
    '/availability/query',
    { service_id: serviceId, start_date: date, end_date: date, limit: 500 },
    { profile: null },
  );
  expect(res.status).toBe(200);
  return res.body.slots;
}

/** The long form issued before short ids, for a slot as the availability answer presents it. */
function longId(serviceId: string, slot: Slot): string {
  const head = Buffer.alloc(6);
  head.writeUIntBE(Date.parse(slot.start), 0, 6);
  const json = JSON.stringify([serviceId, (slot.resources ?? []).map((r) => r.id)]);
  return 'slot_' + Buffer.concat([head, Buffer.from(json)]).toString('base64url');
}

const resourceIds = (s: { resources?: Array<{ id: string }> }) => (s.resources ?? []).map((r) => r.id);

function withBusiness(def: BusinessDef, fn: (server: TestServer) => Promise<void>): Promise<void> {
  return startTestServer({ business: def }).then(async (server) => {
    try {
      await fn(server);
    } finally {
      await server.close();
    }
  });
}

describe('availability answers short slot ids', () => {
  it('every slot id of a day of haircuts and of massages is 19 characters and unique', async () => {
    for (const service of ['svc_haircut', 'svc_massage_60']) {
      const list = await slots(t, service, day(3));
      expect(list.length).toBeGreaterThan(10);
      for (const s of list) expect(s.id).toMatch(/^slot_[\w-]{14}$/);
      expect(new Set(list.map((s) => s.id)).size).toBe(list.length);
    }
  });
});

describe('an id never comes to mean another slot when the business edits its file', () => {
  it('after services, resources and candidates are reordered, every id names the same resources and books them', async () => {
    const before = await slots(t, 'svc_massage_60', day(4));
    const def = demoBusiness();
    const reordered: BusinessDef = {
      ...def,
      resources: [...def.resources].reverse(),
      services: [...def.services].reverse().map((s) => ({
        ...s,
        requirements: s.requirements.map((r) => ({ ...r, resource_ids: [...r.resource_ids].reverse() })),
      })),
    };
    await withBusiness(reordered, async (other) => {
      const after = new Map((await slots(other, 'svc_massage_60', day(4))).map((s) => [s.id, s] as const));
      expect(after.size).toBe(before.length);
      for (const s of before) expect(resourceIds(after.get(s.id)!)).toEqual(resourceIds(s));
      const slot = before.find((s) => resourceIds(s).join() === 'res_therapist_eli,res_room_treatment_2')!;
      const b = await other.call(
        'POST',
        '/bookings',
        { service_id: 'svc_massage_60', slot_id: slot.id, buyer: BUYER },
        { profile: platform() },
      );
      expect(b.status).toBe(201);
      expect(resourceIds(b.body.booking)).toEqual(['res_therapist_eli', 'res_room_treatment_2']);
    });
  });

  it('an id of a stylist who left the service answers slot_unavailable on hold and booking, and stores nothing', async () => {
    const ben = (await slots(t, 'svc_haircut', day(5))).find((s) => resourceIds(s).join() === 'res_stylist_ben')!;
    const def = demoBusiness();
    const withoutBen: BusinessDef = {
      ...def,
      services: def.services.map((s) =>
        s.id === 'svc_haircut'
          ? { ...s, requirements: [{ ...s.requirements[0], resource_ids: ['res_stylist_ava', 'res_stylist_carla'] }] }
          : s,
      ),
    };
    await withBusiness(withoutBen, async (other) => {
      const h = await other.call(
        'POST',
        '/availability/holds',
        { service_id: 'svc_haircut', slot_id: ben.id },
        { profile: platform() },
      );
      expect(h.status).toBe(200);
      expect(h.body.messages[0].code).toBe('slot_unavailable');
      const b = await other.call(
        'POST',
        '/bookings',
        { service_id: 'svc_haircut', slot_id: ben.id, buyer: BUYER },
        { profile: platform() },
      );
      expect(b.status).toBe(200);
      expect(b.body.messages[0].code).toBe('slot_unavailable');
      const claims = await other.server.store.read((tx) =>
        tx.claims.active(['res_stylist_ben'], 0, Number.MAX_SAFE_INTEGER, 0),
      );
      expect(claims).toEqual([]);
    });
  });

  it('a slot id of another service answers validation_error on booking and takes nothing', async () => {
    const [slot] = await slots(t, 'svc_haircut', day(6));
    const b = await t.call(
      'POST',
      '/bookings',
      { service_id: 'svc_color_consult', slot_id: slot.id, buyer: BUYER },
      { profile: platform() },
    );
    expect(b.status).toBe(200);
    expect(b.body.messages[0]).toMatchObject({ code: 'validation_error', path: '$.slot_id' });
    expect((await slots(t, 'svc_haircut', day(6))).map((s) => s.id)).toContain(slot.id);
  });
});

describe('long-form ids issued before short ones keep working', () => {
  it('a slot held with its long-form id: 201, the hold names the short id, and booking with the long id under that hold succeeds', async () => {
    const slot = (await slots(t, 'svc_massage_60', day(7)))[0];
    const long = longId('svc_massage_60', slot);
    expect(long.length).toBeGreaterThan(60);
    const profile = platform();
    const h = await t.call('POST', '/availability/holds', { service_id: 'svc_massage_60', slot_id: long }, { profile });
    expect(h.status).toBe(201);
    expect(h.body.hold.slot_id).toBe(slot.id);
    const b = await t.call(
      'POST',
      '/bookings',
      { service_id: 'svc_massage_60', slot_id: long, hold_id: h.body.hold.id, buyer: BUYER },
      { profile },
    );
    expect(b.status).toBe(201);
    expect(resourceIds(b.body.booking)).toEqual(resourceIds(slot));
    expect((await slots(t, 'svc_massage_60', day(7))).map((s) => s.id)).not.toContain(slot.id);
  });

  it('a hold taken with the short id accepts a booking that passes the long-form id', async () => {
    const slot = (await slots(t, 'svc_haircut', day(8)))[1];
    const profile = platform();
    const h = await t.call('POST', '/availability/holds', { service_id: 'svc_haircut', slot_id: slot.id }, { profile });
    expect(h.status).toBe(201);
    const b = await t.call(
      'POST',
      '/bookings',
      { service_id: 'svc_haircut', slot_id: longId('svc_haircut', slot), hold_id: h.body.hold.id, buyer: BUYER },
      { profile },
    );
    expect(b.status).toBe(201);
  });

  it('a hold on one slot still refuses a booking of another slot passed in long form', async () => {
    const [first, second] = await slots(t, 'svc_haircut', day(9));
    const profile = platform();
    const h = await t.call(
      'POST',
      '/availability/holds',
      { service_id: 'svc_haircut', slot_id: first.id },
      { profile },
    );
    expect(h.status).toBe(201);
    const b = await t.call(
      'POST',
      '/bookings',
      { service_id: 'svc_haircut', slot_id: longId('svc_haircut', second), hold_id: h.body.hold.id, buyer: BUYER },
      { profile },
    );
    expect(b.status).toBe(200);
    expect(b.body.messages[0]).toMatchObject({ code: 'validation_error', path: '$.slot_id' });
  });
});

describe('a waitlist entry that names a slot by its long-form id is offered that slot', () => {
  it('joining a full class with the long-form id, then a place frees: the entry is offered the slot, under its short id', async () => {
    const [slot] = await slots(t, 'svc_yoga_class', day(2));
    const profile = platform();
    const group = await t.call(
      'POST',
      '/bookings',
      { service_id: 'svc_yoga_class', slot_id: slot.id, buyer: BUYER, party_size: 11 },
      { profile },
    );
    const single = await t.call(
      'POST',
      '/bookings',
      { service_id: 'svc_yoga_class', slot_id: slot.id, buyer: BUYER },
      { profile },
    );
    expect([group.status, single.status]).toEqual([201, 201]);
    const long = longId('svc_yoga_class', slot);
    const joined = await t.call(
      'POST',
      '/waitlist',
      { service_id: 'svc_yoga_class', slot_id: long, buyer: BUYER },
      { profile },
    );
    expect(joined.status).toBe(201);
    expect(joined.body.entry.slot_id).toBe(long);
    const cancel = await t.call('POST', `/bookings/${single.body.booking.id}/cancel`, {}, { profile });
    expect(cancel.status).toBe(200);
    const entry = await t.call('GET', `/waitlist/${joined.body.entry.id}`, undefined, { profile });
    expect(entry.body.entry).toMatchObject({ status: 'offered', offered_slot: { slot_id: slot.id } });
  });

  it('joining with a slot id of another service is a validation_error and stores nothing', async () => {
    const [haircut] = await slots(t, 'svc_haircut', day(2));
    const r = await t.call(
      'POST',
      '/waitlist',
      { service_id: 'svc_yoga_class', slot_id: haircut.id, buyer: BUYER },
      { profile: platform() },
    );
    expect(r.status).toBe(200);
    expect(r.body.messages[0]).toMatchObject({ code: 'validation_error', path: '$.slot_id' });
    expect(r.body.entry).toBeUndefined();
  });
});
