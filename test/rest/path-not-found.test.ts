/**
 * An id in the request path that names nothing the caller may see is a protocol error (spec-next
 * 3.12.3, 8.5.3, 9.4.1, 9.4.3, 11.1.6): REST 404 with the problem type of the missing thing
 * (`service-not-found`, `booking-not-found`, `entry-not-found`), never HTTP 200 with a message; on
 * MCP the tool call is JSON-RPC `-32602` with that `data.code`. Another platform's booking or entry
 * reads as not found. (A platform that negotiated an older version keeps the pinned 200 outcome:
 * test/security/negotiation.test.ts.)
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, meta, type McpConn } from '../mcp/helpers.js';
import { BUYER, day, OTHER_PLATFORM, startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
let conn: McpConn;

beforeAll(async () => {
  t = await startTestServer();
  conn = await connectMcp('v2', 'http', t.url);
}, 60_000);
afterAll(async () => {
  await conn?.close();
  await t?.close();
});

/** A booking of PLATFORM's, confirmed. */
async function booked(n: number): Promise<string> {
  const q = await t.call('POST', '/availability/query', {
    service_id: 'svc_haircut',
    start_date: day(n),
    end_date: day(n),
  });
  const b = await t.call(
    'POST',
    '/bookings',
    { service_id: 'svc_haircut', slot_id: q.body.slots[0].id, buyer: BUYER },
    { idempotencyKey: randomUUID() },
  );
  expect(b.status, JSON.stringify(b.body)).toBe(201);
  return b.body.booking.id;
}

function expectProblem(r: { status: number; body: any; headers: Headers }, code: string): void {
  expect([r.status, r.headers.get('content-type'), r.body.type, r.body.code], JSON.stringify(r.body)).toEqual([
    404,
    'application/problem+json',
    `https://usp-protocol.dev/errors/${code.replace(/_/g, '-')}`,
    code,
  ]);
  expect(r.body.messages).toBeUndefined();
}

describe('REST: an unknown id in the path is a 404 problem naming what is missing', () => {
  it('GET /services/{service_id} of an unknown service is 404 service-not-found, whatever the id looks like', async () => {
    for (const id of ['svc_nope', '12345', 'not a service'])
      expectProblem(
        await t.call('GET', `/services/${encodeURIComponent(id)}`, undefined, { profile: null }),
        'service_not_found',
      );
  });

  it('every path-addressed booking operation on an unknown booking is 404 booking-not-found', async () => {
    const key = () => ({ idempotencyKey: randomUUID() });
    const path = '/bookings/bkg_nope';
    expectProblem(await t.call('GET', path), 'booking_not_found');
    expectProblem(await t.call('POST', `${path}/cancel`, {}, key()), 'booking_not_found');
    expectProblem(await t.call('POST', `${path}/reschedule`, { slot_id: 'slot_x' }, key()), 'booking_not_found');
    expectProblem(await t.call('PUT', path, { notes: 'x' }, key()), 'booking_not_found');
  });

  it('confirm-payment of an unknown booking is 404 booking-not-found, no longer a booking_not_found outcome (spec-next 8.5.3)', async () => {
    const paid = { payment_result: { status: 'paid', transaction_id: 'txn_1', amount_paid: 7000, currency: 'USD' } };
    expectProblem(
      await t.call('POST', '/bookings/bkg_nope/confirm-payment', paid, { idempotencyKey: randomUUID() }),
      'booking_not_found',
    );
  });

  it("another platform's booking reads as not found (404), and is left as it was", async () => {
    const id = await booked(3);
    expectProblem(await t.call('GET', `/bookings/${id}`, undefined, { profile: OTHER_PLATFORM }), 'booking_not_found');
    expectProblem(
      await t.call('POST', `/bookings/${id}/cancel`, {}, { profile: OTHER_PLATFORM, idempotencyKey: randomUUID() }),
      'booking_not_found',
    );
    expect((await t.call('GET', `/bookings/${id}`)).body.booking.status).toBe('confirmed');
  });

  it('GET, DELETE, accept and decline of an unknown waitlist entry are 404 entry-not-found', async () => {
    expectProblem(await t.call('GET', '/waitlist/wle_nope'), 'entry_not_found');
    expectProblem(
      await t.call('DELETE', '/waitlist/wle_nope', undefined, { idempotencyKey: randomUUID() }),
      'entry_not_found',
    );
    expectProblem(
      await t.call('POST', '/waitlist/wle_nope/accept', { buyer: BUYER }, { idempotencyKey: randomUUID() }),
      'entry_not_found',
    );
    expectProblem(
      await t.call('POST', '/waitlist/wle_nope/decline', {}, { idempotencyKey: randomUUID() }),
      'entry_not_found',
    );
  });

  it('the served OpenAPI documents the 404 problem on every path-addressed route, and not on one without an id in its path', async () => {
    const doc = (await t.call('GET', '/openapi.json', undefined, { profile: null })).body;
    for (const [path, method] of [
      ['/bookings/{booking_id}', 'get'],
      ['/bookings/{booking_id}/confirm-payment', 'post'],
      ['/waitlist/{entry_id}', 'get'],
      ['/services/{service_id}', 'get'],
    ]) {
      expect(
        doc.paths[path][method].responses['404']?.content?.['application/problem+json'],
        `${method} ${path}`,
      ).toBeDefined();
    }
    expect(doc.paths['/services/list'].post.responses['404']).toBeUndefined();
  });

  it('a body-identified unknown id stays a business outcome: a lookup answers 200 with a service_unresolved warning', async () => {
    const r = await t.call('POST', '/services/lookup', { ids: ['svc_nope'] });
    expect([r.status, r.body.messages.map((m: any) => m.code)]).toEqual([200, ['service_unresolved']]);
  });
});

describe('MCP: the same condition is JSON-RPC -32602 with data.code naming what is missing', () => {
  it('usp_services_get of an unknown service is -32602 service_not_found, not a result', async () => {
    const e = await conn.callError('usp_services_get', { service_id: 'svc_nope' });
    expect([e.code, e.data.code]).toEqual([-32602, 'service_not_found']);
    expect(e.message).toMatch(/^service_not_found: .*usp_services_list/);
  });

  it('usp_bookings_get, usp_bookings_cancel and usp_bookings_confirm_payment of an unknown booking are -32602 booking_not_found', async () => {
    for (const [tool, args] of [
      ['usp_bookings_get', {}],
      ['usp_bookings_cancel', {}],
      [
        'usp_bookings_confirm_payment',
        { payment_result: { status: 'paid', transaction_id: 'txn_1', amount_paid: 7000, currency: 'USD' } },
      ],
    ] as const) {
      const e = await conn.callError(tool, { booking_id: 'bkg_nope', ...args, ...meta() });
      expect([tool, e.code, e.data.code]).toEqual([tool, -32602, 'booking_not_found']);
    }
  });

  it("another platform's booking is -32602 booking_not_found on MCP too", async () => {
    const id = await booked(4);
    const e = await conn.callError('usp_bookings_get', { booking_id: id, ...meta(OTHER_PLATFORM) });
    expect([e.code, e.data.code]).toEqual([-32602, 'booking_not_found']);
  });

  it('usp_waitlist_get of an unknown entry is -32602 entry_not_found', async () => {
    const e = await conn.callError('usp_waitlist_get', { entry_id: 'wle_nope', ...meta() });
    expect([e.code, e.data.code]).toEqual([-32602, 'entry_not_found']);
  });
});
