import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';

describe('a newcomer can book through REST', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('lists, queries, holds, books and cancels', async () => {
    const list = await t.call('POST', '/services/list', {});
    expect(list.status).toBe(200);
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(1),
      end_date: day(1),
    });
    expect(q.status).toBe(200);
    expect(q.body.slots.length).toBeGreaterThan(0);
    const slot = q.body.slots[0];
    const hold = await t.call('POST', '/availability/holds', { service_id: 'svc_haircut', slot_id: slot.id });
    expect(hold.status).toBe(201);
    const bk = await t.call('POST', '/bookings', {
      service_id: 'svc_haircut',
      slot_id: slot.id,
      hold_id: hold.body.hold.id,
      buyer: BUYER,
    });
    expect(bk.status).toBe(201);
    expect(bk.body.booking.status).toBe('confirmed');
    const c = await t.call('POST', `/bookings/${bk.body.booking.id}/cancel`, { reason: 'plans changed' });
    expect(c.status).toBe(200);
    expect(c.body.booking.status).toBe('canceled');
  });
});
