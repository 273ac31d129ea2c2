import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  blockedInterval,
  findSlot,
  generateSlots,
  isCapacityType,
  localToUtcMs,
  type Claim,
  type ResourceDef,
  type ServiceDef,
  type SlotQuery,
  type WeeklyHours,
} from '../../src/domain/index.js';

const ZONE = 'America/New_York';
const weekdays = (opens: string, closes: string): WeeklyHours => ({
  monday: [{ opens, closes }],
  tuesday: [{ opens, closes }],
  wednesday: [{ opens, closes }],
  thursday: [{ opens, closes }],
  friday: [{ opens, closes }],
});

const resourceList: ResourceDef[] = [
  {
    id: 's1',
    type: 'staff',
    name: 'S1',
    schedule: weekdays('09:00', '13:00'),
    exceptions: [{ date: '2026-11-03', hours: [{ opens: '10:00', closes: '12:00' }] }],
  },
  {
    id: 's2',
    type: 'staff',
    name: 'S2',
    schedule: weekdays('10:00', '14:00'),
    time_off: [{ start: '2026-11-02T11:00:00-05:00', end: '2026-11-02T11:40:00-05:00' }],
  },
  { id: 's3', type: 'staff', name: 'S3', schedule: weekdays('08:00', '15:00') },
  { id: 'r1', type: 'room', name: 'R1', schedule: weekdays('08:00', '15:00') },
  { id: 'r2', type: 'room', name: 'R2', schedule: weekdays('09:30', '12:30') },
];
const resources = new Map(resourceList.map((r) => [r.id, r]));

function service(id: string, extra: Partial<ServiceDef>, slotInterval: string): ServiceDef {
  return {
    id,
    name: id,
    type: 'appointment',
    duration: { fixed: 'PT30M' },
    pricing: { model: 'free', currency: 'USD' },
    channel: { type: 'at_business_location' },
    policies: {
      cancellation: { allowed: true },
      rescheduling: { allowed: true },
      booking_window: { min_advance: 'PT0M', max_advance: 'P60D', slot_interval: slotInterval },
      confirmation_mode: 'auto',
      requires_payment: false,
    },
    requirements: [],
    ...extra,
  };
}

const services: ServiceDef[] = [
  service(
    'cut',
    {
      duration: { fixed: 'PT30M', buffer_after: 'PT15M' },
      requirements: [{ type: 'staff', resource_ids: ['s1', 's2'] }],
    },
    'PT15M',
  ),
  service(
    'color',
    {
      duration: { fixed: 'PT90M', buffer_before: 'PT10M' },
      requirements: [
        { type: 'staff', resource_ids: ['s1', 's2', 's3'] },
        { type: 'room', resource_ids: ['r1', 'r2'] },
      ],
    },
    'PT20M',
  ),
  service(
    'class',
    {
      type: 'group',
      duration: { fixed: 'PT60M', buffer_after: 'PT10M' },
      capacity: { max: 6, waitlist: true },
      requirements: [
        { type: 'staff', resource_ids: ['s3'] },
        { type: 'room', resource_ids: ['r1'] },
      ],
    },
    'PT30M',
  ),
  service(
    'table',
    {
      type: 'reservation',
      duration: { fixed: 'PT45M' },
      capacity: { max: 4 },
      requirements: [{ type: 'room', resource_ids: ['r2'] }],
    },
    'PT45M',
  ),
];
const byId = new Map(services.map((s) => [s.id, s]));

// Monday and Tuesday right after the November 2026 change.
const FROM = localToUtcMs('2026-11-02', '00:00', ZONE);
const TO = localToUtcMs('2026-11-04', '00:00', ZONE);
const NOW = Date.parse('2026-10-30T12:00:00Z');

const query = (svc: ServiceDef, claims: readonly Claim[], partySize: number): SlotQuery => ({
  service: svc,
  resources,
  zone: ZONE,
  fromMs: FROM,
  toMs: TO,
  nowMs: NOW,
  claims,
  partySize,
});

const serviceOfKey = (key: string) => byId.get(key.slice(0, key.indexOf('|')))!;

/** Every overlap of two claims on a resource must be two claims on the same slot of a capacity service. */
function assertNoDoubleBooking(claims: readonly Claim[]) {
  const byResource = new Map<string, Claim[]>();
  for (const c of claims) byResource.set(c.resourceId, [...(byResource.get(c.resourceId) ?? []), c]);
  for (const list of byResource.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const a = list[i];
        const b = list[j];
        if (a.startMs < b.endMs && b.startMs < a.endMs) {
          expect(a.slotKey, `overlap of ${a.ownerId} and ${b.ownerId} on ${a.resourceId}`).toBe(b.slotKey);
          expect(isCapacityType(serviceOfKey(a.slotKey))).toBe(true);
        }
      }
    }
  }
}

/** Spots of each capacity slot, each owner once, never exceed the total; the generator agrees. */
function assertCapacity(claims: readonly Claim[]) {
  const perSlot = new Map<string, Map<string, Claim>>();
  for (const c of claims) {
    const owners = perSlot.get(c.slotKey) ?? new Map<string, Claim>();
    owners.set(c.ownerId, c);
    perSlot.set(c.slotKey, owners);
  }
  for (const svc of services.filter(isCapacityType)) {
    for (const s of generateSlots(query(svc, claims, 1))) {
      const owners = [...(perSlot.get(s.key)?.values() ?? [])];
      const used = owners.filter((c) => !c.isHold).reduce((n, c) => n + c.spots, 0);
      const held = owners.filter((c) => c.isHold).reduce((n, c) => n + c.spots, 0);
      expect(used + held).toBeLessThanOrEqual(s.capacity!.total);
      expect(s.capacity!.remaining).toBeGreaterThanOrEqual(0);
      expect(s.capacity!.remaining).toBe(s.capacity!.total - used - held);
      expect(s.capacity!.held).toBe(held);
    }
  }
  for (const [key, owners] of perSlot) {
    const svc = serviceOfKey(key);
    if (!isCapacityType(svc)) continue;
    const total = [...owners.values()].reduce((n, c) => n + c.spots, 0);
    expect(total).toBeLessThanOrEqual(svc.capacity!.max);
  }
}

const step = fc.record({
  kind: fc.constantFrom('book', 'hold', 'book', 'hold', 'release'),
  service: fc.nat({ max: services.length - 1 }),
  pick: fc.nat(),
  party: fc.integer({ min: 1, max: 4 }),
});

describe('the generator never offers a slot that would double-book a resource or overfill a class', () => {
  test('random bookings, holds and releases taken from offered slots keep every invariant', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
        let claims: Claim[] = [];
        let nextOwner = 1;
        for (const st of steps) {
          if (st.kind === 'release') {
            const owners = [...new Set(claims.map((c) => c.ownerId))];
            if (owners.length === 0) continue;
            const gone = owners[st.pick % owners.length];
            claims = claims.filter((c) => c.ownerId !== gone); // cancellation or hold expiry
          } else {
            const svc = services[st.service];
            const offered = generateSlots(query(svc, claims, st.party)).filter((s) => s.state !== 'waitlist');
            if (offered.length === 0) continue;
            const slot = offered[st.pick % offered.length];
            expect(findSlot(query(svc, claims, st.party), slot)).toEqual(slot);
            const spots = isCapacityType(svc) ? st.party : 1;
            if (slot.capacity) expect(slot.capacity.remaining).toBeGreaterThanOrEqual(spots);
            const b = blockedInterval(svc, slot.startMs);
            const ownerId = `${st.kind}_${nextOwner++}`;
            for (const resourceId of slot.resourceIds) {
              claims.push({
                resourceId,
                startMs: b.startMs,
                endMs: b.endMs,
                slotKey: slot.key,
                ownerId,
                spots,
                isHold: st.kind === 'hold',
              });
            }
          }
          assertNoDoubleBooking(claims);
          assertCapacity(claims);
        }
      }),
      { numRuns: 150 },
    );
  });

  test('a slot taken by one booking is no longer offered to a second one (non-capacity services)', () => {
    fc.assert(
      fc.property(fc.constantFrom(services[0], services[1]), fc.nat(), (svc, pick) => {
        const offered = generateSlots(query(svc, [], 1));
        const slot = offered[pick % offered.length];
        const b = blockedInterval(svc, slot.startMs);
        const claims = slot.resourceIds.map((resourceId) => ({
          resourceId,
          startMs: b.startMs,
          endMs: b.endMs,
          slotKey: slot.key,
          ownerId: 'x',
          spots: 1,
          isHold: false,
        }));
        const after = generateSlots(query(svc, claims, 1));
        expect(after.some((s) => s.id === slot.id)).toBe(false);
        expect(findSlot(query(svc, claims, 1), slot)).toBeNull();
      }),
      { numRuns: 100 },
    );
  });
});
