/**
 * A call that writes checks the business definition inside its write transaction (with BEGIN, in
 * one round trip), not with a statement before the call: two in-process servers on one PostgreSQL
 * schema, an admin edit through one, and the other's very next booking, made on a slot it had listed
 * before the edit, is priced as edited. Skipped, with the reason in the title, when no PostgreSQL URL is set.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_KEY, BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from './helpers.js';

const title = (what: string) => (PG_URL ? what : noteSkipped(what));

describe.skipIf(!PG_URL)(
  title('a write checks the definition in its transaction: an edit by another process is what it runs on'),
  () => {
    const schema = schemaName('usp_def_tx');
    let a: TestServer;
    let b: TestServer;
    const sentByB: string[] = [];
    beforeAll(async () => {
      const quiet = { webhooks: { enabled: false }, calendars: { startWorkers: false } } as const;
      a = await startTestServer({ db: urlWithSchema(schema), ...quiet });
      b = await startTestServer({ db: urlWithSchema(schema), onDbStatement: (sql) => sentByB.push(sql), ...quiet });
    });
    afterAll(async () => {
      await a?.server.close();
      await b?.server.close();
      await dropSchema(schema);
    });

    test("the other server's next booking after a price edit is priced as edited, its version read with BEGIN", async () => {
      const q = await b.call(
        'POST',
        '/availability/query',
        { service_id: 'svc_haircut', start_date: day(5), end_date: day(5), limit: 5 },
        { profile: null },
      );
      expect(q.status).toBe(200);
      const slot = q.body.slots[0].id as string;
      const edit = await a.call(
        'PATCH',
        '/admin/services/svc_haircut',
        { pricing: { amount: 4321 } },
        { apiKey: ADMIN_KEY, profile: null },
      );
      expect(edit.status, JSON.stringify(edit.body)).toBe(200);
      sentByB.length = 0;
      const booked = await b.call(
        'POST',
        '/bookings',
        { service_id: 'svc_haircut', slot_id: slot, buyer: BUYER },
        { idempotencyKey: randomUUID() },
      );
      expect(booked.status, JSON.stringify(booked.body)).toBe(201);
      expect(booked.body.booking.payment.amount).toBe(4321);
      // No version read before the call: the first statement B sent opened the transaction with it.
      expect(sentByB[0]).toMatch(/^BEGIN [^;]*; SELECT version FROM definition_version/);
      // B serves the edited service from then on, reads included.
      expect(
        (await b.call('GET', '/services/svc_haircut', undefined, { profile: null })).body.service.pricing.amount,
      ).toBe(4321);
    });
  },
);
