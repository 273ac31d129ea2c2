/**
 * A late-cancellation fee stated as a percentage of the price (spec-next 3.9,
 * `late_cancellation_fee_percentage`): published as a percentage, never as a fixed fee; charged on a
 * late cancellation as that share of the booking's price; a service states at most one of the two.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { checkBusinessDocument } from '../../src/domain/index.js';
import { BUYER, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';

const HOUR = 3_600_000;

/** The demo business with the haircut's late fee stated as `percentage` % of its price. */
function withPercentage(percentage: number) {
  const def = demoBusiness();
  for (const s of def.services) {
    if (s.id !== 'svc_haircut') continue;
    const { late_cancellation_fee: _fixed, ...rest } = s.policies.cancellation;
    s.policies.cancellation = { ...rest, late_cancellation_fee_percentage: percentage };
  }
  return def;
}

describe('late_cancellation_fee_percentage', () => {
  let t: TestServer;
  afterEach(() => t?.close());

  it('is published as a percentage with no late_cancellation_fee, and a late cancellation costs that share of the price', async () => {
    t = await startTestServer({ business: withPercentage(40) });
    const svc = (await t.call('GET', '/services/svc_haircut')).body.service;
    expect(svc.policies.cancellation).toMatchObject({ late_cancellation_fee_percentage: 40 });
    expect(svc.policies.cancellation.late_cancellation_fee).toBeUndefined();
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(2),
      end_date: day(2),
    });
    const slot = q.body.slots[0];
    const b = (await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER })).body
      .booking;
    t.clock.set(Date.parse(slot.start) - 10 * HOUR);
    const r = await t.call('POST', `/bookings/${b.id}/cancel`, {});
    // 40% of 65.00 USD.
    expect(r.body.booking.cancellation).toMatchObject({ canceled_by: 'buyer', fee: 2600 });
    expect(r.body.messages[0]).toMatchObject({ type: 'warning', code: 'late_cancellation_fee' });
    expect(r.body.messages[0].content).toContain('$26.00');
  });

  it('a service stating both a fixed fee and a percentage is refused, naming the member', () => {
    const def = withPercentage(40);
    const haircut = def.services.find((s) => s.id === 'svc_haircut')!;
    haircut.policies.cancellation.late_cancellation_fee = 2000;
    const checked = checkBusinessDocument(JSON.parse(JSON.stringify(def)));
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(JSON.stringify(checked.issues)).toContain('late_cancellation_fee_percentage');
  });
});
