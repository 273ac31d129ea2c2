/**
 * Erased data is absent: after a buyer's erasure, the whole database (the SQLite file, a dump of
 * the PostgreSQL schema) holds neither their email, nor their name, nor their phone, wherever the
 * business had kept them (bookings, notes of a booking, a waitlist entry, the client note, the
 * account, outbox events, stored idempotent responses). And retention erases the people of old
 * bookings by the same path, leaving newer bookings alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { erasePastBookings } from '../../src/operations/retention.js';
import { PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from '../pg/helpers.js';
import { waitlistEntry } from '../support/records.js';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';

const PERSON = {
  first_name: 'Zelda',
  last_name: 'Quinton',
  email: 'zelda.quinton@example.org',
  phone_number: '+1 555 010 7788',
};
/** What must not be found anywhere after the erasure: email, names and phone, in any case. */
const TRACES = [
  'zelda.quinton@example.org',
  'zelda',
  'quinton',
  '+1 555 010 7788',
  '15550107788',
  'likes it short',
  'pays cash',
];

const dir = mkdtempSync(join(tmpdir(), 'usp-erase-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function seedAndErase(t: TestServer): Promise<{ kept: string }> {
  const admin = (m: string, p: string, b?: unknown) => t.call(m, p, b, { apiKey: ADMIN_KEY, profile: null });
  const slots = async (d: string) =>
    (await t.call('POST', '/availability/query', { service_id: 'svc_haircut', start_date: d, end_date: d })).body
      .slots as any[];
  const booked = await t.call(
    'POST',
    '/bookings',
    { service_id: 'svc_haircut', slot_id: (await slots(day(1)))[0].id, buyer: PERSON, notes: 'Zelda likes it short' },
    { idempotencyKey: 'idem-zq-1' },
  );
  expect(booked.status).toBe(201);
  const walkIn = await admin('POST', '/admin/bookings', {
    service_id: 'svc_haircut',
    slot_id: (await slots(day(2)))[0].id,
    buyer: { first_name: 'Zelda', last_name: 'Quinton', phone_number: PERSON.phone_number },
  });
  expect(walkIn.status).toBe(201);
  const kept = await t.call('POST', '/bookings', {
    service_id: 'svc_haircut',
    slot_id: (await slots(day(3)))[0].id,
    buyer: BUYER,
  });
  await t.call('POST', `/bookings/${booked.body.booking.id}/cancel`, { reason: 'Zelda Quinton is ill' });
  await admin('PUT', '/admin/clients/note', { email: PERSON.email, note: 'Quinton family, pays cash' });
  await t.server.store.transaction(async (tx) => {
    const entry = waitlistEntry('wl_zq', { serviceId: 'svc_yoga_class' });
    entry.entry.buyer = { ...PERSON };
    await tx.waitlist.insert(entry);
    await tx.accounts.create({
      id: 'acc_zq',
      email: PERSON.email,
      password_hash: 'scrypt$x',
      name: 'Zelda Quinton',
      phone: PERSON.phone_number,
      created_ms: t.clock.now(),
    });
  });
  // The same person by email, then by phone (the walk-in gave only a phone).
  expect((await admin('POST', '/admin/buyers/erase', { email: PERSON.email })).status).toBe(200);
  expect((await admin('POST', '/admin/buyers/erase', { phone: '(555) 010-7788' })).status).toBe(200);
  return { kept: kept.body.booking.id };
}

function tracesIn(text: string): string[] {
  const lower = text.toLowerCase();
  return TRACES.filter((s) => lower.includes(s));
}

describe('erased data is absent from the database', () => {
  it('SQLite: the database file holds no trace of the person after the erasure', async () => {
    const file = join(dir, 'erase.db');
    const t = await startTestServer({ db: file });
    let kept = '';
    try {
      ({ kept } = await seedAndErase(t));
      // The control: someone else's booking is still there by name.
      expect(
        (await t.call('GET', `/admin/bookings/${kept}`, undefined, { apiKey: ADMIN_KEY, profile: null })).body.booking
          .buyer.last_name,
      ).toBe('Lovelace');
    } finally {
      await t.close();
    }
    const bytes = readdirSync(dir)
      .filter((f) => f.startsWith('erase.db'))
      .map((f) => readFileSync(join(dir, f)).toString('latin1'))
      .join('\n');
    expect(bytes.toLowerCase()).toContain('lovelace');
    expect(tracesIn(bytes)).toEqual([]);
  });

  it.skipIf(!PG_URL)(
    PG_URL
      ? 'PostgreSQL: a dump of the schema holds no trace of the person after the erasure'
      : noteSkipped('PostgreSQL erasure'),
    async () => {
      const schema = schemaName('usp_erase');
      const t = await startTestServer({ db: urlWithSchema(schema) });
      try {
        await seedAndErase(t);
      } finally {
        await t.close();
      }
      try {
        const dump = execFileSync('pg_dump', ['--data-only', '--schema', schema, PG_URL!], {
          encoding: 'utf8',
          maxBuffer: 64 * 1024 * 1024,
        });
        expect(dump.toLowerCase()).toContain('lovelace');
        expect(tracesIn(dump)).toEqual([]);
      } finally {
        await dropSchema(schema);
      }
    },
  );
});

describe('retention erases the people of old bookings by the same path', () => {
  it('a booking that ended longer ago than the retention loses its buyer; a newer one of the same buyer keeps it; a second sweep changes nothing', async () => {
    const t = await startTestServer();
    try {
      const slots = async (d: string) =>
        (await t.call('POST', '/availability/query', { service_id: 'svc_haircut', start_date: d, end_date: d })).body
          .slots as any[];
      const old = (
        await t.call('POST', '/bookings', {
          service_id: 'svc_haircut',
          slot_id: (await slots(day(1)))[0].id,
          buyer: PERSON,
          notes: 'old',
        })
      ).body.booking;
      const recent = (
        await t.call('POST', '/bookings', {
          service_id: 'svc_haircut',
          slot_id: (await slots(day(40)))[0].id,
          buyer: PERSON,
        })
      ).body.booking;
      t.clock.advance(30 * 86_400_000);
      const { store, biz, clock, ids } = t.server;
      expect(await erasePastBookings(store, biz, clock, ids, 30 * 86_400_000)).toBe(0);
      t.clock.advance(2 * 86_400_000);
      expect(await erasePastBookings(store, biz, clock, ids, 30 * 86_400_000)).toBe(1);
      const get = async (id: string) => (await store.read((tx) => tx.bookings.get(id)))!.booking;
      expect((await get(old.id)).buyer.email).toBe('erased@erased.invalid');
      expect((await get(old.id)).notes).toBeUndefined();
      expect((await get(old.id)).slot).toEqual(old.slot);
      expect((await get(recent.id)).buyer).toEqual(PERSON);
      const events = await store.read((tx) => tx.outbox.recent(100));
      expect(JSON.stringify(events.filter((e) => e.order_key === old.id))).not.toContain('zelda');
      expect(JSON.stringify(events.filter((e) => e.order_key === recent.id))).toContain('zelda');
      expect(await erasePastBookings(store, biz, clock, ids, 30 * 86_400_000)).toBe(0);
    } finally {
      await t.close();
    }
  });
});

describe('--retention-days reaches the sweep', () => {
  it('off by default; --retention-days 30 makes a running server erase a booking that ended 31 days ago, and 0 is refused', async () => {
    const { retentionOptions } = await import('../../src/server/cli/serve.js');
    const { waitFor } = await import('../support/time.js');
    expect(retentionOptions({} as never).personalDataRetentionMs).toBeUndefined();
    expect(() => retentionOptions({ 'retention-days': '0' } as never)).toThrow(/retention-days/);
    const opts = retentionOptions({ 'retention-days': '30' } as never);
    expect(opts.personalDataRetentionMs).toBe(30 * 86_400_000);
    const { createUspServer } = await import('../../src/server/compose.js');
    const { ManualClock, silentLogger } = await import('../../src/operations/index.js');
    const { demoBusiness } = await import('../support/server.js');
    const { booking: bookingRecord } = await import('../support/records.js');
    const { TEST_NOW } = await import('../support/time.js');
    const server = await createUspServer({
      business: demoBusiness(),
      db: ':memory:',
      sandbox: true,
      clock: new ManualClock(TEST_NOW),
      log: silentLogger,
      sweepIntervalMs: 20,
      webhooks: { enabled: false },
      ...opts,
    });
    try {
      const old = bookingRecord('bkg_old');
      old.booking.buyer = { first_name: 'Zelda', last_name: 'Quinton', email: PERSON.email };
      old.priv.end_ms = TEST_NOW - 31 * 86_400_000;
      await server.store.transaction((tx) => tx.bookings.insert(old));
      await waitFor(
        async () =>
          (await server.store.read((tx) => tx.bookings.get('bkg_old')))!.booking.buyer.email ===
          'erased@erased.invalid',
      );
    } finally {
      await server.close();
    }
  });
});
