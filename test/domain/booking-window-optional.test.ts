/**
 * The booking window's members are optional (spec-next 3.9): a business states the limits it
 * enforces and omits the rest. An omitted member is published as omitted (never as a default) and
 * is no limit of ours: no minimum notice, no horizon beyond a query's own range. A slot of no
 * stated length still needs `slot_interval`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { checkBusinessDocument } from '../../src/domain/index.js';
import { BUYER, day, demoBusiness, startTestServer, type TestServer } from '../support/server.js';

/** The demo business with the haircut's booking window reduced to `window`. */
function withWindow(window: Record<string, string> | undefined) {
  const def = demoBusiness();
  for (const s of def.services) if (s.id === 'svc_haircut') s.policies.booking_window = window as never;
  return def;
}

describe('booking_window members are optional', () => {
  let t: TestServer;
  afterEach(() => t?.close());

  it('a service with no booking window is published without one and is bookable far ahead (no horizon of ours)', async () => {
    t = await startTestServer({ business: withWindow(undefined) });
    const svc = (await t.call('GET', '/services/svc_haircut')).body.service;
    expect(svc.policies.booking_window).toBeUndefined();
    const q = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(200),
      end_date: day(200),
    });
    expect(q.body.slots.length).toBeGreaterThan(0);
    const b = await t.call('POST', '/bookings', {
      service_id: 'svc_haircut',
      slot_id: q.body.slots[0].id,
      buyer: BUYER,
    });
    expect(b.body.booking.status).toBe('confirmed');
  });

  it('only max_advance stated: published alone, no minimum notice invented, slots past it refused', async () => {
    t = await startTestServer({ business: withWindow({ max_advance: 'P10D' }) });
    const svc = (await t.call('GET', '/services/svc_haircut')).body.service;
    expect(svc.policies.booking_window).toEqual({ max_advance: 'P10D' });
    const near = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(1),
      end_date: day(1),
    });
    expect(near.body.slots.length).toBeGreaterThan(0);
    const far = await t.call('POST', '/availability/query', {
      service_id: 'svc_haircut',
      start_date: day(20),
      end_date: day(20),
    });
    expect(far.body.slots).toEqual([]);
  });

  it('a service of undetermined length without slot_interval is refused, naming the member', () => {
    const def = withWindow({ max_advance: 'P10D' });
    const haircut = def.services.find((s) => s.id === 'svc_haircut')!;
    haircut.duration = { undetermined: true };
    const checked = checkBusinessDocument(JSON.parse(JSON.stringify(def)));
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(JSON.stringify(checked.issues)).toContain('slot_interval');
  });
});
