/**
 * Business rules seen through the MCP door (spec 5.3.3, 5.5.2): the same rules the REST tests pin
 * hold for a real SDK client, since they live below the doors.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, BUYER, PLATFORM, startTestServer, type TestServer } from '../support/server.js';
import { specErrors, validateMcpResult } from '../support/spec.js';
import { connectMcp, errorCodes, meta, nyDate, type McpConn } from './helpers.js';

let t: TestServer;
let conn: McpConn;

beforeAll(async () => {
  t = await startTestServer();
  conn = await connectMcp('v2', 'memory', t);
}, 60_000);
afterAll(async () => {
  await conn?.close();
  await t?.close();
});

async function bookHaircut(n: number): Promise<any> {
  const q = await conn.call('usp_availability_query', {
    service_id: 'svc_haircut',
    start_date: nyDate(t.clock.now(), n),
    end_date: nyDate(t.clock.now(), n),
  });
  const slot = q.structuredContent.slots[0];
  const r = await conn.call('usp_bookings_create', {
    service_id: 'svc_haircut',
    slot_id: slot.id,
    buyer: BUYER,
    ...meta(PLATFORM, { idempotency_key: randomUUID() }),
  });
  expect(errorCodes(r)).toEqual([]);
  return r.structuredContent.booking;
}

describe('usp_bookings_update refuses members it cannot change, naming the tool to use instead', () => {
  it('status and start answer validation_error on $.status and $.start (cancel, reschedule), isError is set, and the booking is unchanged', async () => {
    const booking = await bookHaircut(2);
    const r = await conn.call('usp_bookings_update', {
      booking_id: booking.id,
      status: 'canceled',
      start: '2027-01-01T10:00:00Z',
      notes: 'x',
      ...meta(PLATFORM, { idempotency_key: randomUUID() }),
    });
    expect(errorCodes(r)).toEqual(['validation_error', 'validation_error']);
    expect(r.isError).toBe(true);
    const byPath = Object.fromEntries(r.structuredContent.messages.map((m: any) => [m.path, m.content]));
    expect(byPath['$.status']).toMatch(/usp_bookings_cancel/);
    expect(byPath['$.start']).toMatch(/usp_bookings_reschedule/);
    const read = await conn.call('usp_bookings_get', { booking_id: booking.id, ...meta() });
    expect(read.structuredContent.booking.status).toBe('confirmed');
    expect(read.structuredContent.booking.notes).toBeUndefined();
    expect(read.structuredContent.booking.revision).toBe(booking.revision);
  });
});

describe('a dispute opened by the business is visible to the platform through usp_bookings_get', () => {
  it('the booking read over MCP carries the dispute, and the result validates against the OpenRPC result schema', async () => {
    const q = await conn.call('usp_availability_query', {
      service_id: 'svc_massage_60',
      start_date: nyDate(t.clock.now(), 3),
      end_date: nyDate(t.clock.now(), 3),
    });
    const created = await conn.call('usp_bookings_create', {
      service_id: 'svc_massage_60',
      slot_id: q.structuredContent.slots[0].id,
      buyer: BUYER,
      ...meta(PLATFORM, { idempotency_key: randomUUID() }),
    });
    const b = created.structuredContent.booking;
    const due = b.actions[0].payment_context;
    await conn.call('usp_bookings_confirm_payment', {
      booking_id: b.id,
      payment_result: {
        status: 'paid',
        transaction_id: 'txn_mcp',
        amount_paid: due.amount_due,
        currency: due.currency,
      },
      ...meta(PLATFORM, { idempotency_key: randomUUID() }),
    });
    const opened = await t.call(
      'POST',
      `/admin/bookings/${b.id}/dispute`,
      { reason: 'unauthorized' },
      { profile: null, apiKey: ADMIN_KEY },
    );
    expect(opened.status).toBe(200);
    const read = await conn.call('usp_bookings_get', { booking_id: b.id, ...meta() });
    expect(read.structuredContent.booking.dispute).toMatchObject({ status: 'opened', reason: 'unauthorized' });
    expect(specErrors(() => validateMcpResult('usp_bookings_get', read.structuredContent))).toEqual([]);
  });
});
