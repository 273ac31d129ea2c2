/**
 * The waitlist (spec 11.1): when a place frees on a service with a waitlist, the first matching
 * waiting entry is offered it and a hold keeps the place for the acceptance window. Offers that
 * pass their window expire (on read, and by the sweeper) and the place moves down the queue.
 * Holds and waitlist entries enter their statuses here, as their entry-effects tables say
 * (the two lifecycles feed each other: a freed hold offers its place, a closed offer ends its hold).
 */
import {
  HOLD_ENTRY_EFFECTS,
  WAITLIST_ENTRY_EFFECTS,
  type HoldMove,
  type ServiceDef,
  type HoldRecord,
  type WaitlistMove,
  type WaitlistRecord,
  decodeSlotId,
  encodeSlotId,
  slotTag,
  findSlot,
  formatInstant,
  localDate,
} from '../../domain/index.js';
import { iso, mayAct, type OperationContext } from '../core/context.js';
import { moveHold } from '../availability/holds.js';
import { moveEntry, touchEntry } from './entries.js';
import { claimRows, loadClaims, scheduledResources } from '../availability/slots.js';

export interface FreedSlot {
  key: string;
  startMs: number;
  endMs: number;
  resourceIds: readonly string[];
}

/** The slot a booking or hold occupied, from its private record. */
export function freedSlotOf(p: {
  slot_key: string;
  start_ms: number;
  end_ms: number;
  resource_ids: readonly string[];
}): FreedSlot {
  return { key: p.slot_key, startMs: p.start_ms, endMs: p.end_ms, resourceIds: p.resource_ids };
}

/** The booking that takes a converted hold's place, and the expiry its claims keep. */
export interface HoldTakenBy {
  bookingId: string;
  expiresMs: number | null;
}

/**
 * Make hold move `m` and apply what entering the new status does (HOLD_ENTRY_EFFECTS): the
 * claims pass to the booking that took the hold's place, or they go with the hold's credential
 * and the freed place goes down the waitlist.
 */
export async function enterHoldStatus(
  ctx: OperationContext,
  hold: HoldRecord,
  m: HoldMove,
  takenBy?: HoldTakenBy,
): Promise<void> {
  const fx = HOLD_ENTRY_EFFECTS[moveHold(hold, m)];
  if (fx.claims === 'transfer') {
    if (!takenBy) throw new Error(`hold ${hold.hold.id} cannot be converted without the booking that takes its place`);
    await ctx.tx.claims.transfer(hold.hold.id, takenBy.bookingId, takenBy.expiresMs);
    hold.priv.booking_id = takenBy.bookingId;
  }
  await ctx.tx.holds.update(hold);
  if (fx.claims !== 'free') return;
  await ctx.tx.security.revokeCredentials(hold.hold.id);
  await ctx.tx.claims.removeOwner(hold.hold.id);
  const service = ctx.biz.services.get(hold.hold.service_id);
  if (service) await offerFreedPlace(ctx, service, freedSlotOf(hold.priv));
}

/**
 * Make entry move `m` and apply what entering the new status does (WAITLIST_ENTRY_EFFECTS):
 * the open offer closed, `settle` (the move's own changes, e.g. the offer made), the write, the
 * event, the entry leaving the line (its credential, the positions behind it), and the closed
 * offer's hold ended, which passes the place on.
 */
export async function enterEntryStatus(
  ctx: OperationContext,
  rec: WaitlistRecord,
  m: WaitlistMove,
  settle?: (rec: WaitlistRecord) => void,
): Promise<void> {
  const to = moveEntry(rec, m, ctx);
  const fx = WAITLIST_ENTRY_EFFECTS[to];
  if (fx.offer !== 'keep') {
    delete rec.entry.offer_expires_at;
    rec.priv.offer_expires_ms = undefined;
  }
  settle?.(rec);
  await ctx.tx.waitlist.update(rec);
  if (fx.event) emitWaitlistEvent(ctx, fx.event, rec);
  if (fx.leavesLine) {
    await ctx.tx.security.revokeCredentials(rec.entry.id);
    await announcePositions(ctx, rec.entry.service_id);
  }
  const holdId = rec.priv.offer_hold_id;
  if (fx.offer !== 'close' || !holdId) return;
  const hold = await ctx.tx.holds.get(holdId);
  if (hold && hold.hold.status === 'active') await enterHoldStatus(ctx, hold, to === 'expired' ? 'expire' : 'release');
}

/** Apply a lapsed offer and recompute the place in line: what a reader of an entry must see. */
export async function settleEntry(ctx: OperationContext, rec: WaitlistRecord): Promise<void> {
  await expireOfferIfDue(ctx, rec);
  await refreshPosition(ctx, rec);
}

export function emitWaitlistEvent(ctx: OperationContext, event: string, rec: WaitlistRecord): void {
  ctx.emit({
    event,
    orderKey: rec.entry.id,
    principal: rec.priv.principal,
    profile: rec.priv.profile ?? null,
    payload: { entry_id: rec.entry.id, service_id: rec.entry.service_id, data: structuredClone(rec.entry) },
  });
}

/** How many people an entry waits for (1 for entries made before the party size was kept). */
export function partyOf(rec: WaitlistRecord): number {
  return rec.entry.party_size ?? 1;
}

function wantsSlot(rec: WaitlistRecord, slot: FreedSlot, zone: string): boolean {
  if (rec.entry.slot_id) {
    const p = decodeSlotId(rec.entry.slot_id);
    return p !== null && p.startMs === slot.startMs && p.tag === slotTag(rec.entry.service_id, slot.resourceIds);
  }
  const prefs = rec.entry.preferred_slots ?? [];
  if (prefs.length === 0) return true;
  const day = localDate(slot.startMs, zone);
  const hour = Number(formatInstant(slot.startMs, zone).slice(11, 13));
  return prefs.some((p) => {
    if (p.start_date && day < p.start_date) return false;
    if (p.end_date && day > p.end_date) return false;
    const t = p.time_of_day?.toLowerCase();
    if (t === 'morning' && hour >= 12) return false;
    if (t === 'afternoon' && (hour < 12 || hour >= 17)) return false;
    if (t === 'evening' && hour < 17) return false;
    return true;
  });
}

/**
 * Offer freed places to the waiting entries that want them, first come first served, one place
 * per entry, for as many places as are really free (a party of four leaving frees four).
 */
export async function offerFreedPlace(ctx: OperationContext, service: ServiceDef, slot: FreedSlot): Promise<void> {
  const most = service.capacity?.max ?? 1;
  for (let i = 0; i < most; i++) if (!(await offerOnePlace(ctx, service, slot))) return;
}

async function offerOnePlace(ctx: OperationContext, service: ServiceDef, slot: FreedSlot): Promise<boolean> {
  if (!service.capacity?.waitlist) return false;
  if (slot.startMs <= ctx.now) return false;
  // A service that takes no booking now (the business suspended) offers no place: the line keeps waiting.
  if ((service.status ?? 'active') !== 'active') return false;
  const waiting = await ctx.tx.waitlist.byService(service.id, ['waiting']);
  if (waiting.length === 0) return false;
  await ctx.tx.lock([...slot.resourceIds].sort().map((r) => `resource:${r}`));
  const claims = await loadClaims(ctx.tx, service, slot.startMs, slot.startMs + 1, ctx.now, [], slot.resourceIds);
  const resources = await scheduledResources(ctx.tx, ctx.biz, slot.resourceIds);
  // The first in line who wants this slot and whose whole party fits the places free now (an offer is never for part of a party).
  let rec: WaitlistRecord | undefined;
  let open: ReturnType<typeof findSlot> = null;
  for (const w of waiting) {
    if (!wantsSlot(w, slot, ctx.biz.zone)) continue;
    const fit = findSlot(
      { service, resources, zone: ctx.biz.zone, nowMs: ctx.now, claims, partySize: partyOf(w) },
      { startMs: slot.startMs, resourceIds: [...slot.resourceIds] },
    );
    if (fit && fit.state !== 'waitlist') {
      rec = w;
      open = fit;
      break;
    }
  }
  if (!rec || !open) return false;
  const party = partyOf(rec);

  const ttl = ctx.biz.def.settings.waitlist_offer_ttl_seconds * 1000;
  const expiresMs = Math.min(ctx.now + ttl, slot.startMs);
  const holdId = ctx.ids.next('hld');
  const slotId = encodeSlotId({ serviceId: service.id, startMs: slot.startMs, resourceIds: [...slot.resourceIds] });
  await ctx.tx.claims.add(
    claimRows(
      service,
      { key: open.key, startMs: open.startMs, resourceIds: open.resourceIds },
      holdId,
      party,
      true,
      expiresMs,
    ),
  );
  await ctx.tx.holds.insert({
    hold: {
      id: holdId,
      slot_id: slotId,
      service_id: service.id,
      spots: party,
      expires_at: iso(expiresMs),
      status: 'active',
    },
    priv: {
      principal: rec.priv.principal,
      profile: rec.priv.profile ?? null,
      slot_key: open.key,
      start_ms: open.startMs,
      end_ms: open.endMs,
      resource_ids: [...open.resourceIds],
      expires_at_ms: expiresMs,
      waitlist_entry_id: rec.entry.id,
    },
  });
  await enterEntryStatus(ctx, rec, 'offer', (r) => {
    r.entry.offered_slot = {
      slot_id: slotId,
      start: formatInstant(open.startMs, ctx.biz.zone),
      end: formatInstant(open.endMs, ctx.biz.zone),
    };
    r.entry.offer_expires_at = iso(expiresMs);
    r.priv.offer_hold_id = holdId;
    r.priv.offer_expires_ms = expiresMs;
  });
  return true;
}

/**
 * After an entry leaves the line (accepted, removed, expired, declined), the entries behind it move
 * up: store their new positions and tell their platforms (`waitlist.position_changed`).
 */
export async function announcePositions(ctx: OperationContext, serviceId: string): Promise<void> {
  const line = await ctx.tx.waitlist.byService(serviceId, ['waiting', 'offered']);
  for (const [i, rec] of line.entries()) {
    if (rec.entry.position === i + 1) continue;
    rec.entry.position = i + 1;
    touchEntry(rec, ctx);
    await ctx.tx.waitlist.update(rec);
    emitWaitlistEvent(ctx, 'waitlist.position_changed', rec);
  }
}

/** An offer past its window expires; its place goes to the next entry in line. */
export async function expireOfferIfDue(ctx: OperationContext, rec: WaitlistRecord): Promise<boolean> {
  if (rec.entry.status !== 'offered' || rec.priv.offer_expires_ms === undefined || rec.priv.offer_expires_ms > ctx.now)
    return false;
  await enterEntryStatus(ctx, rec, 'expire');
  return true;
}

/** 1-based place among the entries still in line (waiting or offered), oldest first. */
async function refreshPosition(ctx: OperationContext, rec: WaitlistRecord): Promise<void> {
  if (rec.entry.status !== 'waiting' && rec.entry.status !== 'offered') return;
  const line = await ctx.tx.waitlist.byService(rec.entry.service_id, ['waiting', 'offered']);
  const idx = line.findIndex((w) => w.entry.id === rec.entry.id);
  if (idx >= 0) rec.entry.position = idx + 1;
}

/** Load an entry the caller may see, applying offer expiry first. */
export async function loadEntry(ctx: OperationContext, id: string): Promise<WaitlistRecord | null> {
  const rec = await ctx.tx.waitlist.get(id);
  if (!rec) return null;
  if (!mayAct(ctx.caller, rec.priv.principal, rec.entry.id)) return null;
  await settleEntry(ctx, rec);
  return rec;
}
