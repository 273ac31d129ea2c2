/**
 * The front desk: walk-in and phone bookings made by the business for people with no platform (on
 * a free slot, or over the normal rules when the business chooses, never double-booking), a
 * client's history and private note, and a buyer's data exported and erased. Only the business may
 * do any of it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitlistEntry } from '../support/records.js';
import { PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from '../pg/helpers.js';
import { ADMIN_KEY, BUYER, PLATFORM, day, startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
let schema: string | undefined;
/** Every case runs on SQLite and, with a PostgreSQL URL, on PostgreSQL (a fresh schema each). */
const ENGINES = PG_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
if (!PG_URL) noteSkipped('front desk on PostgreSQL');
const admin = (method: string, path: string, body?: unknown) =>
  t.call(method, path, body, { apiKey: ADMIN_KEY, profile: null });
const WALK_IN = {
  first_name: 'Zelda',
  last_name: 'Quinton',
  email: 'zelda.quinton@example.org',
  phone_number: '+1 555 010 7788',
};

async function freeSlots(serviceId: string, date: string) {
  const q = await t.call('POST', '/availability/query', { service_id: serviceId, start_date: date, end_date: date });
  return q.body.slots as any[];
}

describe.each(ENGINES)('the front desk on %s', (engine) => {
  beforeEach(async () => {
    schema = engine === 'postgres' ? schemaName('usp_frontdesk') : undefined;
    t = await startTestServer({ db: schema ? urlWithSchema(schema) : ':memory:' });
  });
  afterEach(async () => {
    await t.close();
    if (schema) await dropSchema(schema);
  });

  describe('walk-in and phone bookings', () => {
    it('a walk-in on a free slot is a confirmed booking of the business: its slot is taken, its events carry no platform, the audit log has it', async () => {
      const [slot] = await freeSlots('svc_haircut', day(1));
      const r = await admin('POST', '/admin/bookings', {
        service_id: 'svc_haircut',
        slot_id: slot.id,
        buyer: WALK_IN,
        notes: 'Walked in',
      });
      expect(r.status).toBe(201);
      expect(r.body.booking).toMatchObject({
        status: 'confirmed',
        buyer: WALK_IN,
        notes: 'Walked in',
        slot: { start: slot.start },
      });
      expect((await freeSlots('svc_haircut', day(1))).some((s) => s.id === slot.id)).toBe(false);
      // No platform owns it: a platform asking for it finds nothing.
      expect((await t.call('GET', `/bookings/${r.body.booking.id}`)).body.code).toBe('booking_not_found');
      const events = await t.server.store.read((tx) => tx.outbox.recent(20));
      const own = events.filter((e) => e.order_key === r.body.booking.id);
      expect(own.map((e) => e.event)).toEqual(expect.arrayContaining(['booking.confirmed', 'booking.reminder']));
      expect(own.every((e) => e.profile === null && e.principal === 'business')).toBe(true);
      const audit = (await admin('GET', '/admin/audit')).body.entries;
      expect(audit[0]).toMatchObject({ action: 'create_walk_in_booking', outcome: 'ok' });
    });

    it('a phone booking needs only a name and a phone number, and the client is found by that phone', async () => {
      const [slot] = await freeSlots('svc_haircut', day(2));
      const r = await admin('POST', '/admin/bookings', {
        service_id: 'svc_haircut',
        slot_id: slot.id,
        buyer: { first_name: 'Otto', phone_number: '(555) 010-4242' },
      });
      expect(r.status).toBe(201);
      expect(r.body.booking.buyer).toMatchObject({
        first_name: 'Otto',
        last_name: '-',
        phone_number: '(555) 010-4242',
      });
      expect(r.body.booking.buyer.email).toMatch(/@walk-in\.invalid$/);
      const client = await admin('GET', `/admin/clients?phone=${encodeURIComponent('555-010-4242')}`);
      expect(client.body.bookings.map((x: any) => x.booking.id)).toEqual([r.body.booking.id]);
    });

    it('a client booked through a platform is found by their phone typed in any common format, and no other number is', async () => {
      const [slot] = await freeSlots('svc_haircut', day(2));
      const b = await t.call('POST', '/bookings', {
        service_id: 'svc_haircut',
        slot_id: slot.id,
        buyer: { ...BUYER, phone_number: '+1 212 555 0134' },
      });
      expect(b.status, JSON.stringify(b.body)).toBe(201);
      for (const typed of ['2125550134', '(212) 555-0134', '212.555.0134', '+12125550134', '1-212-555-0134']) {
        const client = await admin('GET', `/admin/clients?phone=${encodeURIComponent(typed)}`);
        expect(
          client.body.bookings.map((x: any) => x.booking.id),
          typed,
        ).toEqual([b.body.booking.id]);
      }
      // Another number that only ends the same way is someone else.
      const other = await admin('GET', `/admin/clients?phone=${encodeURIComponent('312 555 0134')}`);
      expect(other.body.bookings).toEqual([]);
    });

    it('a walk-in with neither email nor phone is refused naming the field, and nothing is booked', async () => {
      const [slot] = await freeSlots('svc_haircut', day(1));
      const r = await admin('POST', '/admin/bookings', {
        service_id: 'svc_haircut',
        slot_id: slot.id,
        buyer: { first_name: 'Nobody' },
      });
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body)).toContain('email');
      expect((await freeSlots('svc_haircut', day(1))).some((s) => s.id === slot.id)).toBe(true);
    });

    it('outside opening hours or inside the notice period needs override_rules; with it the booking is made at that time', async () => {
      const late = `${day(1)}T21:30`;
      const refused = await admin('POST', '/admin/bookings', {
        service_id: 'svc_haircut',
        start: late,
        resource_id: 'res_stylist_ava',
        buyer: WALK_IN,
      });
      expect(refused.body.messages[0].code).toBe('validation_error');
      const made = await admin('POST', '/admin/bookings', {
        service_id: 'svc_haircut',
        start: late,
        resource_id: 'res_stylist_ava',
        buyer: WALK_IN,
        override_rules: true,
      });
      expect(made.status).toBe(201);
      expect(made.body.booking.slot.start).toBe(`${day(1)}T21:30:00-05:00`);
      expect(made.body.booking.resources.map((r: any) => r.id)).toEqual(['res_stylist_ava']);
      // Thirty minutes from now is inside the one-hour notice: a free slot id there answers booking_window_violated, the override books it.
      const soon = new Date(t.clock.now() + 30 * 60_000).toISOString().replace('.000Z', 'Z');
      const over = await admin('POST', '/admin/bookings', {
        service_id: 'svc_haircut',
        start: soon,
        resource_id: 'res_stylist_ben',
        buyer: WALK_IN,
        override_rules: true,
      });
      expect(over.status).toBe(201);
    });

    it('override_rules never double-books a resource: a start overlapping another booking on that stylist is slot_unavailable', async () => {
      const [slot] = await freeSlots('svc_haircut', day(3));
      const first = await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER });
      const stylist = first.body.booking.resources[0].id;
      const overlapping = new Date(Date.parse(slot.start) + 15 * 60_000).toISOString().replace('.000Z', 'Z');
      for (const start of [slot.start, overlapping]) {
        const r = await admin('POST', '/admin/bookings', {
          service_id: 'svc_haircut',
          start,
          resource_id: stylist,
          buyer: WALK_IN,
          override_rules: true,
        });
        expect(r.body.messages[0].code).toBe('slot_unavailable');
      }
      const walkIns = (await admin('GET', `/admin/clients?email=${WALK_IN.email}`)).body.bookings;
      expect(walkIns).toEqual([]);
    });

    it('a platform cannot make walk-in bookings, read clients, write notes or export or erase buyers', async () => {
      const [slot] = await freeSlots('svc_haircut', day(1));
      const created = await admin('POST', '/admin/api-keys', { label: 'Salon app' });
      const calls: Array<[string, string, unknown]> = [
        ['POST', '/admin/bookings', { service_id: 'svc_haircut', slot_id: slot.id, buyer: WALK_IN }],
        ['GET', `/admin/clients?email=${BUYER.email}`, undefined],
        ['PUT', '/admin/clients/note', { email: BUYER.email, note: 'x' }],
        ['POST', '/admin/buyers/export', { email: BUYER.email }],
        ['POST', '/admin/buyers/erase', { email: BUYER.email }],
      ];
      for (const [m, p, b] of calls) {
        expect((await t.call(m, p, b, { profile: PLATFORM })).status).toBe(401);
        expect((await t.call(m, p, b, { apiKey: created.body.secret, profile: PLATFORM })).status).toBe(401);
      }
    });
  });

  describe('clients: history and the private note', () => {
    it("a client's bookings from platforms and the desk are listed newest first, with the note, which is audited and removable", async () => {
      const [a] = await freeSlots('svc_haircut', day(1));
      const [b] = await freeSlots('svc_haircut', day(4));
      const viaPlatform = await t.call('POST', '/bookings', {
        service_id: 'svc_haircut',
        slot_id: a.id,
        buyer: { ...BUYER, email: 'ADA@example.com' },
      });
      const atDesk = await admin('POST', '/admin/bookings', { service_id: 'svc_haircut', slot_id: b.id, buyer: BUYER });
      expect(
        (await admin('PUT', '/admin/clients/note', { email: 'ada@example.com', note: 'Prefers Ben. Sensitive scalp.' }))
          .status,
      ).toBe(200);
      const c = await admin('GET', '/admin/clients?email=Ada@Example.com');
      expect(c.body.bookings.map((x: any) => x.booking.id)).toEqual([
        atDesk.body.booking.id,
        viaPlatform.body.booking.id,
      ]);
      expect(c.body.note).toMatchObject({ note: 'Prefers Ben. Sensitive scalp.', updated_by: 'admin_api_key' });
      const audit = (await admin('GET', '/admin/audit')).body.entries;
      expect(audit[0]).toMatchObject({ action: 'set_client_note', outcome: 'ok', target: null });
      await admin('PUT', '/admin/clients/note', { email: 'ada@example.com', note: '  ' });
      expect((await admin('GET', '/admin/clients?email=ada@example.com')).body.note).toBeNull();
    });

    it('asking for a client with neither email nor phone is invalid_request naming email', async () => {
      const r = await admin('GET', '/admin/clients');
      expect(r.status).toBe(400);
      expect(r.body.errors?.[0]?.field ?? r.body.detail).toContain('email');
    });
  });

  describe("a buyer's data (spec 10.1.3)", () => {
    async function seed() {
      const [a] = await freeSlots('svc_haircut', day(1));
      const booked = await t.call('POST', '/bookings', {
        service_id: 'svc_haircut',
        slot_id: a.id,
        buyer: {
          first_name: 'Zelda',
          last_name: 'Quinton',
          email: 'zelda.quinton@example.org',
          phone_number: '+15550107788',
        },
        notes: 'Zelda likes it short',
      });
      const other = await t.call('POST', '/bookings', {
        service_id: 'svc_haircut',
        slot_id: (await freeSlots('svc_haircut', day(2)))[0].id,
        buyer: BUYER,
      });
      await admin('PUT', '/admin/clients/note', { email: WALK_IN.email, note: 'Quinton family, pays cash' });
      await t.server.store.transaction(async (tx) => {
        const entry = waitlistEntry('wl_zq', { serviceId: 'svc_yoga_class' });
        entry.entry.buyer = { ...WALK_IN };
        await tx.waitlist.insert(entry);
        await tx.accounts.create({
          id: 'acc_zq',
          email: WALK_IN.email,
          password_hash: 'scrypt$x',
          name: 'Zelda Quinton',
          phone: '+15550107788',
          created_ms: t.clock.now(),
        });
        await tx.accounts.linkBooking('acc_zq', booked.body.booking.id, t.clock.now());
      });
      return { booking: booked.body.booking, other: other.body.booking };
    }

    it('export answers the bookings, waitlist entries, account, note and events naming the person, and nobody else', async () => {
      const { booking, other } = await seed();
      const r = await admin('POST', '/admin/buyers/export', { email: 'Zelda.Quinton@example.org' });
      expect(r.status).toBe(200);
      const x = r.body.export;
      expect(x.bookings.map((b: any) => b.booking.id)).toEqual([booking.id]);
      expect(x.waitlist_entries.length).toBe(1);
      expect(x.account[0]).toMatchObject({ id: 'acc_zq', name: 'Zelda Quinton', booking_ids: [booking.id] });
      expect(JSON.stringify(x.account)).not.toContain('scrypt');
      expect(x.client_notes[0].note).toBe('Quinton family, pays cash');
      expect(x.outbox_events.some((e: any) => e.booking_id === booking.id)).toBe(true);
      expect(JSON.stringify(x)).not.toContain(other.id);
    });

    it('erase replaces the person everywhere, keeps times and money, ends the account, leaves others alone and audits no personal data', async () => {
      const { booking, other } = await seed();
      const r = await admin('POST', '/admin/buyers/erase', { email: WALK_IN.email });
      expect(r.status).toBe(200);
      expect(r.body.erased.bookings).toBe(1);
      expect(r.body.erased.account).toBeGreaterThan(0);
      const after = (await admin('GET', `/admin/bookings/${booking.id}`)).body.booking;
      expect(after.buyer).toEqual({ first_name: 'Erased', last_name: 'Erased', email: 'erased@erased.invalid' });
      expect(after.notes).toBeUndefined();
      expect(after.slot).toEqual(booking.slot);
      expect(after.payment).toEqual(booking.payment);
      expect((await admin('GET', `/admin/bookings/${other.id}`)).body.booking.buyer).toEqual(BUYER);
      expect(await t.server.store.read((tx) => tx.accounts.byEmail(WALK_IN.email))).toBeNull();
      const x = (await admin('POST', '/admin/buyers/export', { email: WALK_IN.email })).body.export;
      for (const k of [
        'bookings',
        'waitlist_entries',
        'holds',
        'outbox_events',
        'webhook_deliveries',
        'stored_responses',
        'client_notes',
        'account',
      ])
        expect(x[k]).toEqual([]);
      const audit = (await admin('GET', '/admin/audit')).body.entries;
      expect(audit[0]).toMatchObject({ action: 'erase_buyer_data', target: null, outcome: 'ok' });
      expect(JSON.stringify(audit)).not.toContain('zelda');
      // The reminder not yet sent still goes, without the person in it.
      const pending = (await t.server.store.read((tx) => tx.outbox.recent(50))).filter(
        (e) => e.order_key === booking.id && e.event === 'booking.reminder',
      );
      expect(pending.length).toBe(1);
      expect(JSON.stringify(pending[0].payload)).not.toContain('Zelda');
    });

    it('erasing the same person twice changes nothing the second time', async () => {
      await seed();
      await admin('POST', '/admin/buyers/erase', { email: WALK_IN.email });
      const again = await admin('POST', '/admin/buyers/erase', { email: WALK_IN.email });
      expect(Object.values(again.body.erased).every((n) => n === 0)).toBe(true);
    });
  });
});
