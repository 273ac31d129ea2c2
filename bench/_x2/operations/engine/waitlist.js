import { decodeSlotId, encodeSlotId, slotKey } from '../../domain/slot-id.js';
import { findSlot, isCapacityType } from '../../domain/slots.js';
import { formatInstant, localDate } from '../../domain/time.js';
import { mayAct } from '../runtime.js';
import { loadClaims } from './availability.js';
import { claimRows, iso } from './bookings.js';
export function emitWaitlistEvent(ctx, event, rec) {
    ctx.emit({
        event,
        orderKey: rec.entry.id,
        principal: rec.priv.principal,
        profile: rec.priv.profile ?? null,
        payload: { entry_id: rec.entry.id, service_id: rec.entry.service_id, data: structuredClone(rec.entry) },
    });
}
function wantsSlot(rec, slot, zone) {
    if (rec.entry.slot_id) {
        const p = decodeSlotId(rec.entry.slot_id);
        return p !== null && p.startMs === slot.startMs && (p.resourceIds.length === 0 || slotKey(p) === slot.key);
    }
    const prefs = rec.entry.preferred_slots ?? [];
    if (prefs.length === 0)
        return true;
    const day = localDate(slot.startMs, zone);
    const hour = Number(formatInstant(slot.startMs, zone).slice(11, 13));
    return prefs.some((p) => {
        if (p.start_date && day < p.start_date)
            return false;
        if (p.end_date && day > p.end_date)
            return false;
        const t = p.time_of_day?.toLowerCase();
        if (t === 'morning' && hour >= 12)
            return false;
        if (t === 'afternoon' && (hour < 12 || hour >= 17))
            return false;
        if (t === 'evening' && hour < 17)
            return false;
        return true;
    });
}
/** Offer a freed place to the first waiting entry that wants it, if the place is really free. */
export async function offerFreedPlace(ctx, service, slot) {
    if (!service.capacity?.waitlist)
        return;
    if (slot.startMs <= ctx.now)
        return;
    const waiting = await ctx.tx.waitlist.byService(service.id, ['waiting']);
    if (waiting.length === 0)
        return;
    await ctx.tx.lock([...slot.resourceIds].sort().map((r) => `resource:${r}`));
    const claims = await loadClaims(ctx.tx, service, slot.startMs, slot.startMs + 1, ctx.now);
    const base = { service, resources: ctx.biz.resources, zone: ctx.biz.zone, nowMs: ctx.now, claims, partySize: 1 };
    const open = findSlot(base, { startMs: slot.startMs, resourceIds: [...slot.resourceIds] });
    if (!open || open.state === 'waitlist')
        return;
    const rec = waiting.find((w) => wantsSlot(w, slot, ctx.biz.zone));
    if (!rec)
        return;
    const ttl = ctx.biz.def.settings.waitlist_offer_ttl_seconds * 1000;
    const expiresMs = Math.min(ctx.now + ttl, slot.startMs);
    const holdId = ctx.ids.next('hld');
    const slotId = encodeSlotId({ serviceId: service.id, startMs: slot.startMs, resourceIds: [...slot.resourceIds] });
    await ctx.tx.claims.add(claimRows(service, { key: open.key, startMs: open.startMs, resourceIds: open.resourceIds }, holdId, 1, true, expiresMs));
    await ctx.tx.holds.insert({
        hold: { id: holdId, slot_id: slotId, service_id: service.id, spots: 1, expires_at: iso(expiresMs), status: 'active' },
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
    rec.entry.status = 'offered';
    rec.entry.offered_slot = { slot_id: slotId, start: formatInstant(open.startMs, ctx.biz.zone), end: formatInstant(open.endMs, ctx.biz.zone) };
    rec.entry.offer_expires_at = iso(expiresMs);
    rec.entry.revision = ctx.ids.next('rev');
    rec.priv.offer_hold_id = holdId;
    rec.priv.offer_expires_ms = expiresMs;
    await ctx.tx.waitlist.update(rec);
    emitWaitlistEvent(ctx, 'waitlist.spot_offered', rec);
    void isCapacityType;
}
/** An offer past its window expires; its place goes to the next entry in line. */
export async function expireOfferIfDue(ctx, rec) {
    if (rec.entry.status !== 'offered' || rec.priv.offer_expires_ms === undefined || rec.priv.offer_expires_ms > ctx.now)
        return false;
    await endOffer(ctx, rec, 'expired');
    emitWaitlistEvent(ctx, 'waitlist.expired', rec);
    return true;
}
/** Close an open offer (expired or declined): release its hold and pass the place on. */
export async function endOffer(ctx, rec, status) {
    const holdId = rec.priv.offer_hold_id;
    rec.entry.status = status;
    rec.entry.revision = ctx.ids.next('rev');
    delete rec.entry.offer_expires_at;
    rec.priv.offer_expires_ms = undefined;
    await ctx.tx.waitlist.update(rec);
    await ctx.tx.security.revokeCredentials(rec.entry.id);
    if (!holdId)
        return;
    const hold = await ctx.tx.holds.get(holdId);
    if (!hold || hold.hold.status !== 'active')
        return;
    hold.hold.status = status === 'expired' ? 'expired' : 'released';
    await ctx.tx.holds.update(hold);
    await ctx.tx.claims.removeOwner(holdId);
    const service = ctx.biz.services.get(rec.entry.service_id);
    if (service) {
        await offerFreedPlace(ctx, service, { key: hold.priv.slot_key, startMs: hold.priv.start_ms, endMs: hold.priv.end_ms, resourceIds: hold.priv.resource_ids });
    }
}
/** 1-based place among the entries still in line (waiting or offered), oldest first. */
export async function refreshPosition(ctx, rec) {
    if (rec.entry.status !== 'waiting' && rec.entry.status !== 'offered')
        return;
    const line = await ctx.tx.waitlist.byService(rec.entry.service_id, ['waiting', 'offered']);
    const idx = line.findIndex((w) => w.entry.id === rec.entry.id);
    if (idx >= 0)
        rec.entry.position = idx + 1;
}
/** Load an entry the caller may see, applying offer expiry first. */
export async function loadEntry(ctx, id) {
    const rec = await ctx.tx.waitlist.get(id);
    if (!rec)
        return null;
    if (!mayAct(ctx.caller, rec.priv.principal, rec.entry.id))
        return null;
    await expireOfferIfDue(ctx, rec);
    await refreshPosition(ctx, rec);
    return rec;
}
//# sourceMappingURL=waitlist.js.map