/**
 * Record builders for store tests: valid records at the fixed test instant, with only the fields a
 * test cares about varying. Written once for the contract suite and the engine-specific suites.
 */
import type {
  BookingRecord,
  BookingStatus,
  HoldRecord,
  SubscriptionRecord,
  WaitlistRecord,
  WaitlistStatus,
} from '../../src/domain/index.js';
import type { ClaimRow, IdempotencyRecord, OutboxEvent, StoredService } from '../../src/store/port.js';
import { TEST_NOW as NOW } from './time.js';

const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

export function claim(
  owner: string,
  resource: string,
  startMs: number,
  endMs: number,
  over: Partial<ClaimRow> = {},
): ClaimRow {
  return {
    resource_id: resource,
    start_ms: startMs,
    end_ms: endMs,
    slot_key: `svc_cut|${startMs}`,
    owner_id: owner,
    spots: 1,
    is_hold: false,
    service_id: 'svc_cut',
    expires_at_ms: null,
    ...over,
  };
}

export interface BookingOpts {
  status?: BookingStatus;
  holdId?: string;
  principal?: string | null;
  expiresAtMs?: number;
  createdMs?: number;
  notes?: string;
}

export function booking(id: string, o: BookingOpts = {}): BookingRecord {
  const start = NOW + 24 * 60 * MIN;
  const created = o.createdMs ?? NOW;
  return {
    booking: {
      id,
      service_id: 'svc_cut',
      service_name: 'Haircut',
      slot: { id: `slot_${id}`, start: iso(start), end: iso(start + 30 * MIN), duration: 'PT30M' },
      buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
      party_size: 1,
      status: o.status ?? 'confirmed',
      confirmation_mode: 'auto',
      created_at: iso(created),
      updated_at: iso(created),
      revision: 'rev_1',
      ...(o.expiresAtMs !== undefined ? { expires_at: iso(o.expiresAtMs) } : {}),
      ...(o.notes !== undefined ? { notes: o.notes } : {}),
    },
    priv: {
      principal: o.principal === undefined ? 'https://platform.example/p.json' : o.principal,
      slot_key: `svc_cut|${start}`,
      start_ms: start,
      end_ms: start + 30 * MIN,
      resource_ids: ['res_alice'],
      reschedule_count: 0,
      price_total: 4500,
      amount_paid: 0,
      ...(o.holdId !== undefined ? { hold_id: o.holdId } : {}),
      ...(o.expiresAtMs !== undefined ? { expires_at_ms: o.expiresAtMs } : {}),
    },
  };
}

export interface HoldOpts {
  principal?: string | null;
  buyerKey?: string;
  serviceId?: string;
  status?: HoldRecord['hold']['status'];
  expiresAtMs?: number;
}

export function hold(id: string, o: HoldOpts = {}): HoldRecord {
  const start = NOW + 24 * 60 * MIN;
  const serviceId = o.serviceId ?? 'svc_cut';
  const expires = o.expiresAtMs ?? NOW + 10 * MIN;
  return {
    hold: {
      id,
      slot_id: `slot_${id}`,
      service_id: serviceId,
      spots: 1,
      expires_at: iso(expires),
      status: o.status ?? 'active',
    },
    priv: {
      principal: o.principal === undefined ? 'P' : o.principal,
      slot_key: `${serviceId}|${start}`,
      start_ms: start,
      end_ms: start + 30 * MIN,
      resource_ids: ['res_alice'],
      expires_at_ms: expires,
      ...(o.buyerKey !== undefined ? { buyer_key: o.buyerKey } : {}),
    },
  };
}

export interface EntryOpts {
  principal?: string | null;
  serviceId?: string;
  status?: WaitlistStatus;
  createdMs?: number;
  offerExpiresMs?: number;
}

export function waitlistEntry(id: string, o: EntryOpts = {}): WaitlistRecord {
  const created = o.createdMs ?? NOW;
  return {
    entry: {
      id,
      service_id: o.serviceId ?? 'svc_class',
      buyer: { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' },
      status: o.status ?? 'waiting',
      position: 1,
      created_at: iso(created),
      revision: 'rev_1',
      ...(o.offerExpiresMs !== undefined ? { offer_expires_at: iso(o.offerExpiresMs) } : {}),
    },
    priv: {
      principal: o.principal === undefined ? 'P' : o.principal,
      created_ms: created,
      ...(o.offerExpiresMs !== undefined ? { offer_expires_ms: o.offerExpiresMs } : {}),
    },
  };
}

export function storedService(
  id: string,
  modifiedMs: number,
  o: { locations?: string[]; deleted?: boolean; name?: string } = {},
): StoredService {
  return {
    id,
    data: {
      id,
      name: o.name ?? `Service ${id}`,
      ...(o.locations ? { locations: o.locations.map((l) => ({ id: l, name: `Location ${l}` })) } : {}),
    },
    fingerprint: `fp_${id}_${modifiedMs}`,
    modified_ms: modifiedMs,
    deleted: o.deleted ?? false,
  };
}

export function subscription(
  id: string,
  status: SubscriptionRecord['subscription']['status'] = 'active',
): SubscriptionRecord {
  return {
    subscription: {
      id,
      callback_url: `https://platform.example/hooks/${id}`,
      events: ['service.updated'],
      status,
      created_at: iso(NOW),
    },
    priv: { principal: 'P' },
  };
}

/** An outbox event created (and due) at the test instant. */
export function outboxEvent(id: string, over: Partial<OutboxEvent> = {}): OutboxEvent {
  return {
    event_id: id,
    event: 'booking.confirmed',
    order_key: 'bkg_1',
    principal: 'P',
    profile: 'https://platform.example/p.json',
    payload: { booking_id: 'bkg_1' },
    created_ms: NOW,
    due_ms: NOW,
    ...over,
  };
}

export function idempotencyRecord(scope: string, expiresMs: number, body: unknown = { ok: true }): IdempotencyRecord {
  return { scope, request_hash: `hash_${scope}`, status: 201, body, created_ms: NOW - MIN, expires_ms: expiresMs };
}
