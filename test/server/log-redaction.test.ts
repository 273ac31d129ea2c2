/**
 * Buyer free text is personal data: a booking's notes and a cancellation's reason (what a buyer
 * writes about themselves, their health, their plans) never reach the log, at any level, in the
 * server's own lines or in the debug line that echoes a call's input.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createLogger, scrub } from '../../src/server/logging.js';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';

const NOTES = 'Allergic to lavender oil, recovering from knee surgery';
const REASON = 'My grandmother is in hospital in Leeds';

describe('buyer notes and cancellation reasons are redacted at every log level', () => {
  let t: TestServer;
  const lines: string[] = [];
  beforeAll(async () => {
    const log = createLogger({
      level: 'debug',
      format: 'json',
      destination: { write: (l: string) => void lines.push(l) },
    });
    t = await startTestServer({ log });
  });
  afterAll(() => t?.close());

  test('a booking with notes, cancelled with a reason, leaves neither text in a debug-level log', async () => {
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(3),
      end_date: day(3),
    });
    const b = await t.call('POST', '/bookings', {
      service_id: 'svc_haircut',
      slot_id: q.body.slots[0].id,
      buyer: BUYER,
      notes: NOTES,
    });
    expect(b.status).toBe(201);
    const c = await t.call('POST', `/bookings/${b.body.booking.id}/cancel`, { reason: REASON });
    expect(c.status).toBe(200);
    expect(c.body.booking.cancellation.reason).toBe(REASON);
    const log = lines.join('');
    // The debug lines with the calls' input are there (the test would prove nothing without them).
    expect(log).toContain('"msg":"call received"');
    expect(log).toContain('"operation":"cancel_booking"');
    for (const text of [NOTES, REASON, 'lavender', 'grandmother'])
      expect(log, `${text} appears in the log`).not.toContain(text);
  });

  test("the members are redacted wherever they sit; the server's own top-level reason (why the database is away) stays", () => {
    expect(scrub({ input: { notes: NOTES, reason: REASON }, booking: { cancellation: { reason: REASON } } })).toEqual({
      input: { notes: '[redacted]', reason: '[redacted]' },
      booking: { cancellation: { reason: '[redacted]' } },
    });
    expect(scrub({ reason: 'connection refused' })).toEqual({ reason: 'connection refused' });
  });
});

test('strings without an @ skip the e-mail scan; addresses and phone numbers are still scrubbed', () => {
  const replace = vi.spyOn(String.prototype, 'replace');
  try {
    scrub({ correlation_id: 'f1994d51-62eb-4d3d-8d9b-303bddff586b', operation: 'get_service', door: 'mcp' });
    const emailScans = replace.mock.calls.filter(([pattern]) => pattern instanceof RegExp && pattern.unicode);
    expect(emailScans).toHaveLength(0);
  } finally {
    replace.mockRestore();
  }
  expect(scrub({ note: 'x', text: 'write to ana@example.com or call +1 212 555 0100' })).toEqual({
    note: '[redacted]',
    text: 'write to [email] or call [phone]',
  });
});
