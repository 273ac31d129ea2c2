/**
 * The Idempotency-Key's record is read together with the handler's first reads (one round trip):
 * a replay or a conflicting reuse of a key on PostgreSQL answers as before and keeps nothing of
 * the handler's second run, which did run (its reads went with the key's). Skipped, with the reason
 * in the title, when no PostgreSQL URL is set.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { PG_URL, adminClient, dropSchema, noteSkipped, schemaName, urlWithSchema } from './helpers.js';

const title = (what: string) => (PG_URL ? what : noteSkipped(what));

describe.skipIf(!PG_URL)(
  title('an Idempotency-Key read with the handler: replays and conflicts keep nothing of the second run'),
  () => {
    const schema = schemaName('usp_idem_tx');
    let s: TestServer;
    let admin: pg.Client;
    const sent: string[] = [];
    beforeAll(async () => {
      s = await startTestServer({
        db: urlWithSchema(schema),
        onDbStatement: (sql) => sent.push(sql),
        webhooks: { enabled: false },
        calendars: { startWorkers: false },
      });
      admin = await adminClient(schema);
    });
    afterAll(async () => {
      await admin?.end();
      await s?.server.close();
      await dropSchema(schema);
    });
    const count = async (table: string) =>
      (await admin.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;

    test('a hold and a booking sent twice with one key answer the first answer; a key reused for another slot is idempotency_conflict; one hold, one booking, one claim', async () => {
      const q = await s.call(
        'POST',
        '/availability/query',
        { service_id: 'svc_haircut', start_date: day(6), end_date: day(6), limit: 50 },
        { profile: null },
      );
      const [slot, other] = q.body.slots.map((x: { id: string }) => x.id) as string[];
      const holdKey = randomUUID();
      const h1 = await s.call(
        'POST',
        '/availability/holds',
        { service_id: 'svc_haircut', slot_id: slot },
        { idempotencyKey: holdKey },
      );
      expect(h1.status, JSON.stringify(h1.body)).toBe(201);
      sent.length = 0;
      const h2 = await s.call(
        'POST',
        '/availability/holds',
        { service_id: 'svc_haircut', slot_id: slot },
        { idempotencyKey: holdKey },
      );
      expect(h2.status).toBe(201);
      expect(h2.body.hold.id).toBe(h1.body.hold.id);
      // The replay ran the handler's reads with the key's, and rolled back: no COMMIT went out.
      expect(sent.join('\n')).toMatch(/FROM idempotency WHERE scope = [^;]*; SELECT COUNT\(\*\) AS n FROM holds/);
      expect(
        sent.some((q) => /(^|; )COMMIT$/.test(q)),
        sent.join('\n'),
      ).toBe(false);
      expect(sent.at(-1)).toBe('ROLLBACK');
      const reused = await s.call(
        'POST',
        '/availability/holds',
        { service_id: 'svc_haircut', slot_id: other },
        { idempotencyKey: holdKey },
      );
      expect(reused.status).toBe(409);
      expect(JSON.stringify(reused.body)).toContain('idempotency_conflict');
      const bookKey = randomUUID();
      const body = { service_id: 'svc_haircut', slot_id: slot, hold_id: h1.body.hold.id, buyer: BUYER };
      const b1 = await s.call('POST', '/bookings', body, { idempotencyKey: bookKey });
      expect(b1.status, JSON.stringify(b1.body)).toBe(201);
      const b2 = await s.call('POST', '/bookings', body, { idempotencyKey: bookKey });
      expect(b2.status).toBe(201);
      expect(b2.body.booking.id).toBe(b1.body.booking.id);
      expect(await count('holds')).toBe(1);
      expect(await count('bookings')).toBe(1);
      expect(await count('claims')).toBe(1);
      expect(await count(`outbox WHERE event = 'booking.confirmed'`)).toBe(1);
    });
  },
);
