/**
 * The hold-conversion failure matrix of spec-next 4.2.1, row by row, over both doors (REST and
 * MCP): the code each hold state answers with, whether the slot is still bookable, what becomes
 * of the hold, and that no booking is made when conversion cannot proceed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdView } from '../../src/operations/availability/holds.js';
import { BUYER, OTHER_PLATFORM, day, startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorCodes, meta, type McpConn } from '../mcp/helpers.js';

interface Answer {
  codes: string[];
  hold?: any;
  booking?: any;
}

interface Door {
  name: string;
  hold(args: Record<string, unknown>): Promise<Answer>;
  release(holdId: string): Promise<void>;
  book(args: Record<string, unknown>): Promise<Answer>;
}

const codesOf = (body: any): string[] =>
  ((body?.messages ?? []) as any[]).filter((m) => m.type === 'error').map((m) => m.code);

function restDoor(t: TestServer): Door {
  return {
    name: 'REST',
    async hold(args) {
      const r = await t.call('POST', '/availability/holds', args);
      return { codes: codesOf(r.body), hold: r.body.hold };
    },
    async release(holdId) {
      expect((await t.call('DELETE', `/availability/holds/${holdId}`)).status).toBe(200);
    },
    async book(args) {
      const r = await t.call('POST', '/bookings', { buyer: BUYER, ...args });
      return { codes: codesOf(r.body), booking: r.body.booking };
    },
  };
}

function mcpDoor(conn: McpConn): Door {
  return {
    name: 'MCP',
    async hold(args) {
      const r = await conn.call('usp_availability_hold', { ...args, ...meta() });
      return { codes: errorCodes(r), hold: r.structuredContent?.hold };
    },
    async release(holdId) {
      expect(errorCodes(await conn.call('usp_availability_release', { hold_id: holdId, ...meta() }))).toEqual([]);
    },
    async book(args) {
      const r = await conn.call('usp_bookings_create', { buyer: BUYER, ...args, ...meta() });
      return { codes: errorCodes(r), booking: r.structuredContent?.booking };
    },
  };
}

/** Slots two hours apart (more than any buffer), so that each case has its own. */
function apart(slots: any[]): any[] {
  const out: any[] = [];
  for (const s of slots)
    if (out.length === 0 || Date.parse(s.start) >= Date.parse(out[out.length - 1].end) + 7_200_000) out.push(s);
  return out;
}

type Setup = 'active' | 'expired' | 'released' | 'converted' | 'active_small';

/** The matrix: hold state, whether the slot is taken by someone else meanwhile, expected code (null: success), hold status after. */
const MATRIX: Array<{ state: Setup; taken: boolean; code: string | null; after: string }> = [
  { state: 'active', taken: false, code: null, after: 'converted' },
  { state: 'expired', taken: false, code: 'hold_expired', after: 'expired' },
  { state: 'expired', taken: true, code: 'slot_unavailable', after: 'expired' },
  { state: 'released', taken: false, code: 'hold_expired', after: 'released' },
  { state: 'released', taken: true, code: 'slot_unavailable', after: 'released' },
  { state: 'converted', taken: false, code: null, after: 'converted' },
  { state: 'active_small', taken: false, code: 'capacity_exceeded', after: 'active' },
];

describe('hold conversion follows the failure matrix of spec-next 4.2.1 on both doors', () => {
  let t: TestServer;
  let conn: McpConn;
  let haircut: any[];
  let yoga: any[];
  let next = 0;
  beforeAll(async () => {
    t = await startTestServer();
    conn = await connectMcp('v2', 'memory', t);
    const slotsOf = async (service_id: string) => {
      const all: any[] = [];
      for (let d = 4; d <= 12; d++)
        all.push(
          ...(await t.call('POST', '/availability/query', { service_id, start_date: day(d), end_date: day(d) })).body
            .slots,
        );
      return apart(all);
    };
    haircut = await slotsOf('svc_haircut');
    yoga = await slotsOf('svc_yoga_class');
    expect(haircut.length).toBeGreaterThan(16);
    expect(yoga.length).toBeGreaterThan(2);
  });
  afterAll(async () => {
    await conn?.close();
    await t?.close();
  });

  const doors = () => [restDoor(t), mcpDoor(conn)];
  const holdStatus = async (id: string) =>
    holdView((await t.server.store.read((tx) => tx.holds.get(id)))!, t.clock.now()).status;
  const bookingsOn = async (slotId: string) =>
    (await t.server.store.read((tx) => tx.bookings.recent(1000))).filter(
      (b) => b.booking.slot.id === slotId && b.booking.status !== 'canceled',
    );

  for (const row of MATRIX) {
    for (const which of ['REST', 'MCP'] as const) {
      const label = `${which}: a ${row.state === 'active_small' ? 'active hold for fewer spots than the party' : `${row.state} hold`}${row.taken ? ' whose slot was taken since' : ''} -> ${row.code ?? 'booked'}, the hold ${row.after}`;
      it(label, async () => {
        const door = doors().find((d) => d.name === which)!;
        const capacity = row.state === 'active_small';
        const slot = capacity ? yoga[next++ % yoga.length] : haircut[next++];
        expect(slot, 'a free slot for this case').toBeDefined();
        const service_id = capacity ? 'svc_yoga_class' : 'svc_haircut';
        const h = await door.hold({ service_id, slot_id: slot.id });
        expect(h.codes).toEqual([]);
        const holdId = h.hold.id;
        let first: any;
        if (row.state === 'expired') t.clock.advance(601_000);
        if (row.state === 'released') await door.release(holdId);
        if (row.state === 'converted')
          first = (await door.book({ service_id, slot_id: slot.id, hold_id: holdId })).booking;
        if (row.taken) {
          const rival = await t.call(
            'POST',
            '/bookings',
            { service_id, slot_id: slot.id, buyer: BUYER },
            { profile: OTHER_PLATFORM },
          );
          expect(rival.body.booking?.status).toBe('confirmed');
        }
        const before = (await bookingsOn(slot.id)).length;
        const r = await door.book({
          service_id,
          slot_id: slot.id,
          hold_id: holdId,
          ...(capacity ? { party_size: 2 } : {}),
        });
        if (row.code === null) {
          expect(r.codes).toEqual([]);
          expect(r.booking.status).toBe('confirmed');
          if (first) expect(r.booking.id).toBe(first.id);
          expect((await bookingsOn(slot.id)).length).toBe(first ? before : before + 1);
        } else {
          expect(r.codes).toEqual([row.code]);
          expect(r.booking).toBeUndefined();
          expect((await bookingsOn(slot.id)).length).toBe(before);
        }
        expect(await holdStatus(holdId)).toBe(row.after);
        if (row.state === 'active_small') {
          // The hold stayed active: the platform retries with a party that fits.
          const fits = await door.book({ service_id, slot_id: slot.id, hold_id: holdId, party_size: 1 });
          expect([fits.codes, fits.booking?.status]).toEqual([[], 'confirmed']);
        }
      });
    }
  }

  it.each(['REST', 'MCP'])('%s: an unknown hold is validation_error, not hold_expired', async (which) => {
    const door = doors().find((d) => d.name === which)!;
    const r = await door.book({ service_id: 'svc_haircut', slot_id: haircut[next++].id, hold_id: 'hld_unknown' });
    expect(r.codes).toEqual(['validation_error']);
  });
});
