/** The fixture business of the slot tests (America/New_York): its resources, services, dates and queries. */
import {
  blockedInterval,
  localToUtcMs,
  type Claim,
  type ResourceDef,
  type ServiceDef,
  type SlotCandidate,
  type SlotQuery,
  type WeeklyHours,
} from '../../src/domain/index.js';

// ------------------------------------------------------------------------------------------------
// Fixture business (America/New_York)
// ------------------------------------------------------------------------------------------------

export const ZONE = 'America/New_York';
export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;

export const weekdays = (opens: string, closes: string): WeeklyHours => ({
  monday: [{ opens, closes }],
  tuesday: [{ opens, closes }],
  wednesday: [{ opens, closes }],
  thursday: [{ opens, closes }],
  friday: [{ opens, closes }],
});

export const baseResources: ResourceDef[] = [
  { id: 'alice', type: 'staff', name: 'Alice', location_id: 'downtown', schedule: weekdays('09:00', '17:00') },
  { id: 'bob', type: 'staff', name: 'Bob', location_id: 'downtown', schedule: weekdays('09:00', '17:00') },
  { id: 'carol', type: 'staff', name: 'Carol', location_id: 'uptown', schedule: weekdays('09:00', '17:00') },
  { id: 'dana', type: 'staff', name: 'Dana', location_id: 'downtown', schedule: weekdays('08:00', '20:00') },
  { id: 'studio', type: 'room', name: 'Studio', location_id: 'downtown', schedule: weekdays('07:00', '22:00') },
];

export function service(overrides: Partial<ServiceDef> & Pick<ServiceDef, 'id' | 'requirements'>): ServiceDef {
  return {
    name: overrides.id,
    type: 'appointment',
    duration: { fixed: 'PT30M', buffer_after: 'PT15M' },
    pricing: { model: 'fixed', amount: 40, currency: 'USD' },
    channel: { type: 'at_business_location' },
    policies: {
      cancellation: { allowed: true },
      rescheduling: { allowed: true },
      booking_window: { min_advance: 'PT1H', max_advance: 'P30D', slot_interval: 'PT30M' },
      confirmation_mode: 'auto',
      requires_payment: false,
    },
    location_ids: ['downtown'],
    ...overrides,
  };
}

/** One staff, 30 min, 15-min buffer after, every 30 min. */
export const haircut = service({ id: 'haircut', requirements: [{ type: 'staff', resource_ids: ['alice'] }] });
/** Any of three staff, at two locations. */
export const consult = service({
  id: 'consult',
  requirements: [{ type: 'staff', resource_ids: ['alice', 'bob', 'carol'] }],
  location_ids: ['downtown', 'uptown'],
});
/** A class: instructor + room, 12 spots, waitlist, Mondays 18:00-19:00 and Wednesdays 18:00-19:00. */
export const yoga = service({
  id: 'yoga',
  type: 'group',
  duration: { fixed: 'PT60M' },
  pricing: { model: 'per_person', amount: 20, currency: 'USD' },
  policies: {
    ...haircut.policies,
    booking_window: { min_advance: 'PT1H', max_advance: 'P30D', slot_interval: 'PT60M' },
  },
  capacity: { max: 12, waitlist: true },
  requirements: [
    { type: 'staff', resource_ids: ['dana'] },
    { type: 'room', resource_ids: ['studio'] },
  ],
  hours: { monday: [{ opens: '18:00', closes: '19:00' }], wednesday: [{ opens: '18:00', closes: '19:00' }] },
});

export const MONDAY = '2026-03-16';
export const TUESDAY = '2026-03-17';
export const WEDNESDAY = '2026-03-18';
export const NOW = Date.parse('2026-03-13T12:00:00Z'); // the Friday before

export const at = (date: string, time: string) => localToUtcMs(date, time, ZONE);

export function resourcesMap(list: ResourceDef[] = baseResources): Map<string, ResourceDef> {
  return new Map(list.map((r) => [r.id, r]));
}

export function query(svc: ServiceDef, date: string, extra: Partial<SlotQuery> = {}): SlotQuery {
  return {
    service: svc,
    resources: resourcesMap(),
    zone: ZONE,
    fromMs: at(date, '00:00'),
    toMs: at(date, '24:00'),
    nowMs: NOW,
    claims: [],
    partySize: 1,
    ...extra,
  };
}

/**
 * What a caller reads of a slot, as a plain object: its own fields and its id and key (a generated
 * slot writes those two when read, so a deep equality of slots alone would not compare them).
 */
export const seen = (slot: SlotCandidate) => ({
  ...slot,
  id: slot.id,
  key: slot.key,
  resourceIds: [...slot.resourceIds],
});

export const localTimes = (slots: SlotCandidate[]) =>
  slots.map((s) => new Date(s.startMs - 4 * HOUR).toISOString().slice(11, 16)); // EDT dates in the fixture

export function claimsFor(slot: SlotCandidate, svc: ServiceDef, ownerId: string, spots = 1, isHold = false): Claim[] {
  const b = blockedInterval(svc, slot.startMs);
  return slot.resourceIds.map((resourceId) => ({
    resourceId,
    startMs: b.startMs,
    endMs: b.endMs,
    slotKey: slot.key,
    ownerId,
    spots,
    isHold,
  }));
}

// ------------------------------------------------------------------------------------------------
