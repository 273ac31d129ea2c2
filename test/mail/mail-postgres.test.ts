/**
 * Two server processes on one PostgreSQL database share the mail outbox: a booking asked of both at
 * once under one Idempotency-Key, then both workers sending at the same moment, deliver one message.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_URL, dropSchema, noteSkipped, schemaName, urlWithSchema } from '../pg/helpers.js';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

describe.skipIf(!PG_URL)(
  PG_URL ? 'mail on PostgreSQL with two processes' : noteSkipped('mail on PostgreSQL with two processes'),
  () => {
    let a: TestServer;
    let b: TestServer;
    let sink: SmtpSink;
    let schema: string;
    beforeEach(async () => {
      schema = schemaName('mail');
      sink = await startSmtpSink();
      a = await startTestServer({ db: urlWithSchema(schema), mail: { smtpUrl: sink.url, startWorker: false } });
      b = await startTestServer({ db: urlWithSchema(schema), mail: { smtpUrl: sink.url, startWorker: false } });
    }, 60_000);
    afterEach(async () => {
      await a.close();
      await b.close();
      await sink.close();
      await dropSchema(schema);
    });

    it('one booking asked of both processes under one key, both workers sending at once: one confirmation', async () => {
      const q = await a.call('POST', '/availability/query', {
        service_id: 'svc_haircut',
        start_date: day(3),
        end_date: day(3),
      });
      const body = { service_id: 'svc_haircut', slot_id: q.body.slots[0].id, buyer: BUYER };
      const [ra, rb] = await Promise.all([
        a.call('POST', '/bookings', body, { idempotencyKey: 'two-procs' }),
        b.call('POST', '/bookings', body, { idempotencyKey: 'two-procs' }),
      ]);
      expect([ra.status, rb.status]).toEqual([201, 201]);
      expect(ra.body.booking.id).toBe(rb.body.booking.id);
      await Promise.all([
        a.server.mailWorker!.tick(),
        b.server.mailWorker!.tick(),
        a.server.mailWorker!.tick(),
        b.server.mailWorker!.tick(),
      ]);
      await Promise.all([a.server.mailWorker!.tick(), b.server.mailWorker!.tick()]);
      expect(sink.to(BUYER.email)).toHaveLength(1);
      const rows = await a.server.store.read((tx) => tx.mail.forSubject(ra.body.booking.id));
      expect(rows.filter((r) => r.kind === 'booking_confirmed').map((r) => [r.status, r.attempts])).toEqual([
        ['sent', 1],
      ]);
    });
  },
);
