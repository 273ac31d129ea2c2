/**
 * The booking write path on PostgreSQL, counted: the round trips (queries sent) of a hold and a
 * booking on it through the REST door. Each is a wait for the database, and under load the waits
 * and the database's per-statement cost are what a booking costs; the count is pinned so that a
 * change adding round trips to every booking fails here. Skipped, with the reason in the title,
 * when no PostgreSQL URL is set.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { booking, outboxEvent } from '../support/records.js';
import { TEST_NOW } from '../support/time.js';
import { countBookings, countingServer } from '../support/write-path-count.js';
import { PG_URL, dropSchema, noteSkipped, plainRoleUrl, schemaName, urlWithSchema } from './helpers.js';

/** Round trips per booking (hold + create) on PostgreSQL; see docs/BENCHMARKS.md for what they are. */
const PG_ROUND_TRIPS_PER_BOOKING = 4;

const title = (what: string) => (PG_URL ? what : noteSkipped(what));

describe.skipIf(!PG_URL)(title('the booking write path on PostgreSQL makes a pinned number of round trips'), () => {
  const schema = schemaName('usp_round_trips');
  let s: Awaited<ReturnType<typeof countingServer>>;
  beforeAll(async () => {
    s = await countingServer(urlWithSchema(schema));
  });
  afterAll(async () => {
    await s?.server.close();
    await dropSchema(schema);
  });

  test(`hold + create makes at most ${PG_ROUND_TRIPS_PER_BOOKING} round trips, the same for every booking`, async () => {
    const c = await countBookings(s, 5);
    const shown = `hold (${c.hold.length}):\n  ${c.hold.join('\n  ')}\ncreate (${c.create.length}):\n  ${c.create.join('\n  ')}`;
    expect(new Set(c.perBooking).size, shown).toBe(1);
    expect(c.perBooking[0], shown).toBeLessThanOrEqual(PG_ROUND_TRIPS_PER_BOOKING);
  });
});

describe.skipIf(!PG_URL)(title('the same write path on a store keyed by business makes the same round trips'), () => {
  const schema = schemaName('usp_rt_keyed');
  let s: Awaited<ReturnType<typeof countingServer>>;
  beforeAll(async () => {
    // As a plain role, so row-level security applies; `business` in the URL keys the store.
    s = await countingServer(await plainRoleUrl('usp_rt_keyed_app', { schema, business: 'rosa' }));
  });
  afterAll(async () => {
    await s?.server.close();
    await dropSchema(schema);
    await dropSchema(`${schema}_template`);
  });

  test(`hold + create makes at most ${PG_ROUND_TRIPS_PER_BOOKING} round trips, each transaction setting the business with BEGIN`, async () => {
    const c = await countBookings(s, 5);
    const shown = `hold (${c.hold.length}):\n  ${c.hold.join('\n  ')}\ncreate (${c.create.length}):\n  ${c.create.join('\n  ')}`;
    expect(new Set(c.perBooking).size, shown).toBe(1);
    expect(c.perBooking[0], shown).toBeLessThanOrEqual(PG_ROUND_TRIPS_PER_BOOKING);
    const begins = [...c.hold, ...c.create].filter((q) => q.startsWith('BEGIN'));
    expect(begins.length, shown).toBeGreaterThan(0);
    for (const q of begins)
      expect(q, shown).toMatch(/^BEGIN [^;]*; SELECT set_config\('usp\.business', 'rosa', true\)/);
  });
});

describe.skipIf(!PG_URL)(title('writes held for one round trip keep their meaning'), () => {
  const schema = schemaName('usp_held_writes');
  const sent: string[] = [];
  let store: Store;
  beforeAll(async () => {
    store = await openPostgresStore({ url: urlWithSchema(schema), onStatement: (sql) => sent.push(sql) });
  });
  afterAll(async () => {
    await store?.close();
    await dropSchema(schema);
  });

  test('outbox events and a credential written in one transaction go in one statement, the events in the order raised', async () => {
    sent.length = 0;
    await store.transaction(async (tx) => {
      await tx.outbox.add(outboxEvent('evt_h1'));
      await tx.security.putCredential({
        value_hash: 'h_held',
        resource_kind: 'booking',
        resource_id: 'bkg_h',
        jkt: null,
        principal: 'P',
        expires_ms: TEST_NOW + 1,
        revoked: false,
      });
      await tx.outbox.add(outboxEvent('evt_h2'));
      await tx.outbox.add(outboxEvent('evt_h3'));
    });
    // BEGIN with the writes (their parameters written as literals), then COMMIT on its own: were a
    // connection cut while all three were in flight, the store could not tell whether it committed.
    expect(sent, sent.join('\n')).toHaveLength(2);
    expect(sent[0]).toMatch(/^BEGIN [^;]*; WITH held_0 AS \(INSERT INTO outbox /);
    expect(sent[1]).toBe('COMMIT');
    const due = await store.read((tx) => tx.outbox.due(TEST_NOW, 10));
    expect(due.map((e) => e.event_id)).toEqual(['evt_h1', 'evt_h2', 'evt_h3']);
    expect((await store.read((tx) => tx.security.credential('h_held')))?.resource_id).toBe('bkg_h');
  });

  test('a statement after held writes sees them', async () => {
    const seen = await store.transaction(async (tx) => {
      await tx.security.putCredential({
        value_hash: 'h_seen',
        resource_kind: 'booking',
        resource_id: 'bkg_s',
        jkt: null,
        principal: 'P',
        expires_ms: TEST_NOW + 1,
        revoked: false,
      });
      return tx.security.credential('h_seen');
    });
    expect(seen?.resource_id).toBe('bkg_s');
  });

  test('a held write the database refuses fails its transaction, and nothing written beside it is kept', async () => {
    await store.transaction((tx) => tx.bookings.insert(booking('bkg_dup')));
    const err = await store
      .transaction(async (tx) => {
        await tx.outbox.add(outboxEvent('evt_lost'));
        await tx.bookings.insert(booking('bkg_dup'));
      })
      .catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('23505');
    const recent = await store.read((tx) => tx.outbox.recent(50));
    expect(recent.map((e) => e.event_id)).not.toContain('evt_lost');
  });

  test('held writes after a statement go with COMMIT in one round trip, and one the database refuses still rolls back everything', async () => {
    await store.transaction((tx) => tx.bookings.insert(booking('bkg_dup2')));
    sent.length = 0;
    await store.transaction(async (tx) => {
      await tx.bookings.get('bkg_dup2');
      await tx.outbox.add(outboxEvent('evt_c1'));
      await tx.outbox.add(outboxEvent('evt_c2'));
    });
    expect(sent, sent.join('\n')).toHaveLength(2); // BEGIN with the read (its parameters as literals); the writes with COMMIT
    expect(sent[0]).toMatch(/^BEGIN [^;]*; SELECT data FROM bookings WHERE id = 'bkg_dup2' FOR UPDATE$/);
    expect(sent[1]).toMatch(/^INSERT INTO outbox .*; COMMIT$/s);
    const err = await store
      .transaction(async (tx) => {
        await tx.bookings.get('bkg_dup2');
        await tx.outbox.add(outboxEvent('evt_lost2'));
        await tx.bookings.insert(booking('bkg_dup2'));
      })
      .catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('23505');
    const recent = await store.read((tx) => tx.outbox.recent(50));
    expect(recent.map((e) => e.event_id)).toEqual(expect.arrayContaining(['evt_c1', 'evt_c2']));
    expect(recent.map((e) => e.event_id)).not.toContain('evt_lost2');
  });

  test('mail messages of one transaction join one statement; one queued twice under one key keeps the first', async () => {
    const msg = (id: string, payload: Record<string, unknown>) => ({
      id,
      kind: 'booking_confirmed',
      subject_id: 'bkg_m',
      recipient: 'ada@example.com',
      locale: null,
      payload,
      due_ms: TEST_NOW,
      created_ms: TEST_NOW,
    });
    sent.length = 0;
    await store.transaction(async (tx) => {
      await tx.mail.enqueue(msg('m_a', { n: 1 }));
      await tx.mail.enqueue(msg('m_b', { n: 2 }));
      await tx.mail.enqueue(msg('m_a', { n: 3 }));
    });
    expect(
      sent.filter((q) => q.includes('mail_messages')),
      sent.join('\n'),
    ).toHaveLength(1);
    expect((await store.read((tx) => tx.mail.get('m_a')))?.payload).toEqual({ n: 1 });
    expect((await store.read((tx) => tx.mail.get('m_b')))?.payload).toEqual({ n: 2 });
  });

  test('the definition version goes with BEGIN, and reads run together go with the lock before them: one round trip', async () => {
    const v = await store.transaction((tx) => tx.definition.bump());
    await store.transaction((tx) => tx.bookings.insert(booking('bkg_rt')));
    sent.length = 0;
    await store.transaction(async (tx) => {
      await tx.definition.verifyVersion(v);
      await tx.lock(['rt:k'], { beforeRead: true });
      const [b, h] = await tx.together(
        () => tx.bookings.get('bkg_rt'),
        () => tx.holds.get('hld_none'),
      );
      expect(b?.booking.id).toBe('bkg_rt');
      expect(h).toBeNull();
    });
    expect(sent, sent.join('\n')).toHaveLength(2); // the version, the lock and both reads with BEGIN; COMMIT
    expect(sent[0]).toMatch(
      /^BEGIN [^;]*; SELECT version FROM definition_version[^;]*; SELECT pg_advisory_xact_lock[^;]*; SELECT data FROM bookings [^;]*; SELECT data FROM holds /,
    );
  });

  test('a write issued while another branch waits on its read goes after that read, and its own branch then reads it', async () => {
    await store.transaction((tx) => tx.bookings.insert(booking('bkg_w0')));
    sent.length = 0;
    const [first, events] = await store.transaction((tx) =>
      tx.together(
        () => tx.bookings.get('bkg_w0'),
        async () => {
          await tx.outbox.add(outboxEvent('evt_w1'));
          return tx.outbox.recent(50);
        },
      ),
    );
    expect(first?.booking.id).toBe('bkg_w0');
    expect(events.map((e) => e.event_id)).toContain('evt_w1');
    const read = sent.findIndex((q) => q.includes('FROM bookings'));
    const written = sent.findIndex((q) => q.includes('INSERT INTO outbox'));
    expect(read, sent.join('\n')).toBeGreaterThanOrEqual(0);
    expect(written, sent.join('\n')).toBeGreaterThan(read);
  });

  test('a booking written in the transaction is read back as written, without a statement, and a later update is what is read', async () => {
    await store.transaction(async (tx) => {
      const rec = booking('bkg_mem');
      await tx.bookings.insert(rec);
      sent.length = 0;
      expect((await tx.bookings.get('bkg_mem'))?.booking.status).toBe('confirmed');
      expect(sent).toEqual([]);
      await tx.bookings.update({ ...rec, booking: { ...rec.booking, status: 'canceled' } });
      expect((await tx.bookings.get('bkg_mem'))?.booking.status).toBe('canceled');
    });
    expect((await store.read((tx) => tx.bookings.get('bkg_mem')))?.booking.status).toBe('canceled');
  });
});

describe.skipIf(!PG_URL)(title('a webhook delivery costs two round trips to expand and two to record'), () => {
  const schema = schemaName('usp_webhook_trips');
  const sent: string[] = [];
  let store: Store;
  beforeAll(async () => {
    store = await openPostgresStore({ url: urlWithSchema(schema), onStatement: (sql) => sent.push(sql) });
  });
  afterAll(async () => {
    await store?.close();
    await dropSchema(schema);
  });
  const delivery = (eventId: string, seq: number) => ({
    event_id: eventId,
    event: 'booking.confirmed',
    seq,
    order_key: `bkg_${eventId}`,
    target_url: `https://hooks.example/${eventId}`,
    subscription_id: null,
    body: `{"it's":"a\\\\b"}`,
    next_attempt_ms: TEST_NOW,
    created_ms: TEST_NOW,
  });

  test("an expansion's deliveries join one VALUES list, sent with BEGIN; one already there is skipped", async () => {
    await store.transaction((tx) => tx.webhooks.add(delivery('evt_w1', 1)));
    sent.length = 0;
    await store.transaction(async (tx) => {
      for (const [i, id] of ['evt_w1', 'evt_w2', 'evt_w3'].entries()) await tx.webhooks.add(delivery(id, i + 1));
    });
    expect(sent, sent.join('\n')).toHaveLength(2); // BEGIN with the one INSERT; COMMIT
    expect(sent[0]).toMatch(/^BEGIN [^;]*; INSERT INTO webhook_deliveries /);
    const listed = await store.read((tx) => tx.webhooks.list({ limit: 10 }));
    expect(listed.map((d) => [d.event_id, d.status, d.attempts, d.body])).toEqual([
      ['evt_w3', 'pending', 0, `{"it's":"a\\\\b"}`],
      ['evt_w2', 'pending', 0, `{"it's":"a\\\\b"}`],
      ['evt_w1', 'pending', 0, `{"it's":"a\\\\b"}`],
    ]);
  });

  test('an attempt and its delivery are written with BEGIN in one statement, then COMMIT', async () => {
    const [d] = await store.transaction((tx) => tx.webhooks.claimDue(TEST_NOW, 1, TEST_NOW + 60_000, []));
    sent.length = 0;
    await store.transaction((tx) =>
      tx.webhooks.recordAttempt(
        { delivery_id: d.id, attempt: 1, at_ms: TEST_NOW, status_code: 204, latency_ms: 12, error: null },
        { status: 'delivered', next_attempt_ms: TEST_NOW },
      ),
    );
    expect(sent, sent.join('\n')).toHaveLength(2);
    expect(sent[0]).toMatch(
      /^BEGIN [^;]*; WITH held_0 AS \(INSERT INTO webhook_attempts .*\) UPDATE webhook_deliveries /s,
    );
    expect(sent[1]).toBe('COMMIT');
    const [after] = (await store.read((tx) => tx.webhooks.list({ limit: 10 }))).filter((x) => x.id === d.id);
    expect([after.status, after.attempts, after.last_status, after.delivered_ms]).toEqual([
      'delivered',
      1,
      204,
      TEST_NOW,
    ]);
    expect(await store.read((tx) => tx.webhooks.attempts(d.id))).toEqual([
      { delivery_id: d.id, attempt: 1, at_ms: TEST_NOW, status_code: 204, latency_ms: 12, error: null },
    ]);
  });
});
