/**
 * Slot generation (USP §4.1): a slot is one start time for one combination of resources, exactly one
 * resource per requirement of the service ("one slot per resource combination").
 *
 * Pipeline for one query:
 *  1. the local dates the (booking-window-clipped) range touches, plus margins, are expanded once;
 *     each date's wall-clock intervals become UTC instants with one zone lookup per date
 *     (per time only on a day with a UTC-offset change);
 *  2. per resource: weekly hours (or the dated exception) per date, merged, minus time off;
 *  3. per combination: intersection of its resources' working time (and service hours);
 *  4. candidate starts step by `slot_interval` from each window start and from each local midnight
 *     inside a window (so a day's grid never depends on the queried range); a slot fits when
 *     [start, start + duration] lies inside one window;
 *  5. the blocked interval (buffers included) is checked against per-resource sorted claims with a
 *     binary search over prefix-maximum end times; capacity types count same-slot claims instead.
 */
import { WEEKDAYS } from './business.js';
import { slotIdEncoder } from './slot-id.js';
import { DAY_MS, MINUTE_MS, addDays, isTimeOfDay, localDate, localToUtcMs, minutesToTimeOfDay, parseDuration, parseInstant, timeOfDayToMinutes, weekdayOf, } from './time.js';
/** Resource id of a service that is its own resource (empty `requirements`). */
export function selfResourceId(serviceId) {
    return `service:${serviceId}`;
}
/** Group and reservation services sell spots of a shared slot (they carry `capacity.max`). */
export function isCapacityType(service) {
    return service.type === 'group' || service.type === 'reservation';
}
/** The length of a slot: fixed duration; range -> range.min; undetermined -> slot_interval. */
export function slotDurationMs(service) {
    const d = service.duration;
    if (d.fixed)
        return parseDuration(d.fixed);
    if (d.range)
        return parseDuration(d.range.min);
    return parseDuration(service.policies.booking_window.slot_interval);
}
function bufferMs(iso) {
    return iso ? parseDuration(iso) : 0;
}
/** The interval a slot starting at `startMs` keeps its resources busy: start - buffer_before .. end + buffer_after. */
export function blockedInterval(service, startMs) {
    return {
        startMs: startMs - bufferMs(service.duration.buffer_before),
        endMs: startMs + slotDurationMs(service) + bufferMs(service.duration.buffer_after),
    };
}
/** Sorts and merges overlapping or touching intervals (in place on a fresh array). */
function mergeIntervals(list) {
    if (list.length <= 1)
        return list;
    list.sort((a, b) => a.s - b.s || a.e - b.e);
    const out = [];
    let cur = { s: list[0].s, e: list[0].e };
    for (let i = 1; i < list.length; i++) {
        const iv = list[i];
        if (iv.s <= cur.e) {
            if (iv.e > cur.e)
                cur.e = iv.e;
        }
        else {
            out.push(cur);
            cur = { s: iv.s, e: iv.e };
        }
    }
    out.push(cur);
    return out;
}
function intersectIntervals(a, b) {
    const out = [];
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
        const s = Math.max(a[i].s, b[j].s);
        const e = Math.min(a[i].e, b[j].e);
        if (s < e)
            out.push({ s, e });
        if (a[i].e < b[j].e)
            i++;
        else
            j++;
    }
    return out;
}
/** a minus b (both sorted, disjoint). */
function subtractIntervals(a, b) {
    if (b.length === 0)
        return a;
    const out = [];
    let j = 0;
    for (const iv of a) {
        let s = iv.s;
        const e = iv.e;
        while (j < b.length && b[j].e <= s)
            j++;
        let k = j;
        while (k < b.length && b[k].s < e) {
            if (b[k].s > s)
                out.push({ s, e: b[k].s });
            if (b[k].e > s)
                s = b[k].e;
            if (s >= e)
                break;
            k++;
        }
        if (s < e)
            out.push({ s, e });
    }
    return out;
}
const DAY_CACHE_LIMIT = 20_000;
const dayCache = new Map();
function dayInfo(zone, date) {
    const cacheKey = `${zone}|${date}`;
    let info = dayCache.get(cacheKey);
    if (info)
        return info;
    const startMs = localToUtcMs(date, '00:00', zone);
    const endMs = localToUtcMs(addDays(date, 1), '00:00', zone); // = '24:00', shares the next day's memo
    info = { date, weekday: weekdayOf(date), startMs, endMs, uniform: endMs - startMs === DAY_MS };
    if (dayCache.size >= DAY_CACHE_LIMIT)
        dayCache.clear();
    dayCache.set(cacheKey, info);
    return info;
}
function wallToUtc(zone, day, minutes) {
    if (minutes === 1440)
        return day.endMs;
    if (day.uniform)
        return day.startMs + minutes * MINUTE_MS;
    return localToUtcMs(day.date, minutesToTimeOfDay(minutes), zone);
}
/** Minutes [opens, closes) of a local interval, or null if malformed or empty. */
function intervalMinutes(iv) {
    if (!iv || !isTimeOfDay(iv.opens) || !isTimeOfDay(iv.closes))
        return null;
    const o = timeOfDayToMinutes(iv.opens);
    const c = timeOfDayToMinutes(iv.closes);
    return c > o ? [o, c] : null;
}
function dayIntervals(zone, day, hours, out) {
    if (!hours)
        return;
    for (const h of hours) {
        const m = intervalMinutes(h);
        if (!m)
            continue;
        const s = wallToUtc(zone, day, m[0]);
        const e = wallToUtc(zone, day, m[1]);
        if (e > s)
            out.push({ s, e });
    }
}
/** Working time of one schedule over the expanded days: exceptions replace weekly hours, then time off is removed. */
function workingTime(src, days, zone) {
    let exceptions;
    if (src.exceptions && src.exceptions.length > 0) {
        exceptions = new Map();
        for (const ex of src.exceptions)
            exceptions.set(ex.date, ex.hours ?? []);
    }
    const list = [];
    for (const day of days) {
        const hours = exceptions?.get(day.date) ?? src.schedule?.[day.weekday];
        dayIntervals(zone, day, hours, list);
    }
    let merged = mergeIntervals(list);
    if (src.time_off && src.time_off.length > 0 && merged.length > 0) {
        const off = [];
        for (const t of src.time_off) {
            const s = parseInstant(t.start);
            const e = parseInstant(t.end);
            if (s !== null && e !== null && e > s)
                off.push({ s, e });
        }
        merged = subtractIntervals(merged, mergeIntervals(off));
    }
    return merged;
}
const EMPTY_INDEX = { starts: new Float64Array(0), ends: new Float64Array(0), maxEnd: new Float64Array(0), keys: [] };
function buildClaimIndexes(claims, wanted) {
    const byResource = new Map();
    for (const c of claims) {
        if (!wanted.has(c.resourceId) || !(c.endMs > c.startMs))
            continue;
        let list = byResource.get(c.resourceId);
        if (!list)
            byResource.set(c.resourceId, (list = []));
        list.push(c);
    }
    const out = new Map();
    for (const [rid, list] of byResource) {
        list.sort((a, b) => a.startMs - b.startMs);
        const n = list.length;
        const ix = { starts: new Float64Array(n), ends: new Float64Array(n), maxEnd: new Float64Array(n), keys: new Array(n) };
        let max = -Infinity;
        for (let i = 0; i < n; i++) {
            const c = list[i];
            ix.starts[i] = c.startMs;
            ix.ends[i] = c.endMs;
            if (c.endMs > max)
                max = c.endMs;
            ix.maxEnd[i] = max;
            ix.keys[i] = c.slotKey;
        }
        out.set(rid, ix);
    }
    return out;
}
/**
 * Does any claim overlap [a, b)? With `sharedKey`, claims made on that same slot are ignored
 * (capacity types: they consume spots instead of blocking).
 */
function isBlocked(ix, a, b, sharedKey) {
    const starts = ix.starts;
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (starts[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    let j = lo - 1; // last claim starting before b
    if (j < 0 || ix.maxEnd[j] <= a)
        return false;
    if (sharedKey === null)
        return true;
    for (; j >= 0 && ix.maxEnd[j] > a; j--) {
        if (ix.ends[j] > a && ix.keys[j] !== sharedKey)
            return true;
    }
    return false;
}
/** Spots used (bookings) and held (holds) per slotKey, each owner counted once per slot. */
function capacityUsage(claims, serviceId) {
    const prefix = `${serviceId}|`;
    const seen = new Set();
    const out = new Map();
    for (const c of claims) {
        if (!c.slotKey.startsWith(prefix))
            continue;
        const ownerKey = `${c.slotKey}\u0000${c.ownerId}`;
        if (seen.has(ownerKey))
            continue;
        seen.add(ownerKey);
        let u = out.get(c.slotKey);
        if (!u)
            out.set(c.slotKey, (u = { used: 0, held: 0 }));
        const spots = Number.isFinite(c.spots) && c.spots > 0 ? c.spots : 0;
        if (c.isHold)
            u.held += spots;
        else
            u.used += spots;
    }
    return out;
}
function compareIds(a, b) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
        if (a[i] !== b[i])
            return a[i] < b[i] ? -1 : 1;
    }
    return a.length - b.length;
}
function combinationLocation(service, resources) {
    let loc;
    for (const r of resources) {
        const l = r?.location_id;
        if (l === undefined)
            continue;
        if (loc !== undefined && loc !== l)
            return { ok: false };
        loc = l;
    }
    const offered = service.location_ids;
    if (loc === undefined)
        return { ok: true, locationId: offered && offered.length === 1 ? offered[0] : undefined };
    if (offered && offered.length > 0 && !offered.includes(loc))
        return { ok: false };
    return { ok: true, locationId: loc };
}
/** All combinations (one resource per requirement, no resource twice), in requirement order. */
function combinations(service, resources, only) {
    const reqs = service.requirements;
    if (only) {
        if (only.length !== reqs.length)
            return [];
        for (let i = 0; i < reqs.length; i++) {
            if (!reqs[i].resource_ids.includes(only[i]) || !resources.has(only[i]))
                return [];
        }
        return new Set(only).size === only.length ? [[...only]] : [];
    }
    let acc = [[]];
    for (const req of reqs) {
        const ids = [...new Set(req.resource_ids)].filter((id) => resources.has(id));
        const next = [];
        for (const partial of acc) {
            for (const id of ids)
                if (!partial.includes(id))
                    next.push([...partial, id]);
        }
        acc = next;
        if (acc.length === 0)
            break;
    }
    return acc;
}
function generate(q) {
    const { service, zone } = q;
    const selfResource = service.requirements.length === 0;
    if (selfResource && !service.hours)
        return [];
    const durationMs = slotDurationMs(service);
    let intervalMs = parseDuration(service.policies.booking_window.slot_interval);
    if (!(intervalMs > 0))
        intervalMs = durationMs;
    if (!(intervalMs > 0) || !(durationMs > 0))
        return [];
    const before = bufferMs(service.duration.buffer_before);
    const after = bufferMs(service.duration.buffer_after);
    const minAdvance = parseDuration(service.policies.booking_window.min_advance);
    const maxAdvance = parseDuration(service.policies.booking_window.max_advance);
    const from = Math.max(q.fromMs, q.nowMs + minAdvance, q.nowMs);
    const to = Math.min(q.toMs, q.nowMs + maxAdvance + 1); // start <= now + max_advance
    if (!(from < to))
        return [];
    // Combinations.
    let combos;
    if (selfResource) {
        const only = q.onlyCombination;
        const self = selfResourceId(service.id);
        combos = !only || (only.length === 1 && only[0] === self) ? [[self]] : [];
    }
    else {
        combos = combinations(service, q.resources, q.onlyCombination);
    }
    if (q.resourceId !== undefined)
        combos = combos.filter((c) => c.includes(q.resourceId));
    const located = [];
    for (const ids of combos) {
        const loc = selfResource
            ? combinationLocation(service, [])
            : combinationLocation(service, ids.map((id) => q.resources.get(id)));
        if (!loc.ok)
            continue;
        if (q.locationId !== undefined && loc.locationId !== q.locationId)
            continue;
        located.push({ resourceIds: ids, locationId: loc.locationId });
    }
    if (located.length === 0)
        return [];
    // Local days touched by [from, to) plus margins (a slot and its buffers may run into later days).
    const firstDate = addDays(localDate(from, zone), -1);
    const lastDate = addDays(localDate(to - 1, zone), 1 + Math.ceil((durationMs + after) / DAY_MS));
    const days = [];
    for (let d = firstDate; d <= lastDate; d = addDays(d, 1))
        days.push(dayInfo(zone, d));
    const midnights = days.map((d) => d.startMs);
    // Working time per resource (once), service hours (once).
    const working = new Map();
    const workingOf = (id) => {
        let w = working.get(id);
        if (!w) {
            const src = selfResource ? { schedule: service.hours } : q.resources.get(id);
            w = workingTime(src, days, zone);
            working.set(id, w);
        }
        return w;
    };
    const serviceHours = !selfResource && service.hours ? workingTime({ schedule: service.hours }, days, zone) : null;
    const wanted = new Set();
    for (const c of located)
        for (const id of c.resourceIds)
            wanted.add(id);
    const claimIndexes = buildClaimIndexes(q.claims, wanted);
    const capacity = isCapacityType(service);
    const usage = capacity ? capacityUsage(q.claims, service.id) : null;
    const total = service.capacity?.max ?? 1;
    const waitlist = service.capacity?.waitlist === true;
    const partySize = Math.max(1, Math.floor(Number.isFinite(q.partySize) ? q.partySize : 1));
    const out = [];
    for (const combo of located) {
        let windows = serviceHours;
        for (const id of combo.resourceIds) {
            windows = windows === null ? workingOf(id) : intersectIntervals(windows, workingOf(id));
            if (windows.length === 0)
                break;
        }
        if (!windows || windows.length === 0)
            continue;
        const indexes = combo.resourceIds.map((id) => claimIndexes.get(id) ?? EMPTY_INDEX);
        const encodeId = slotIdEncoder(service.id, combo.resourceIds);
        const keyPrefix = `${service.id}|`;
        const keySuffix = `|${combo.resourceIds.join(',')}`;
        let m = 0; // index into midnights
        for (const w of windows) {
            if (w.s >= to || w.e - w.s < durationMs)
                continue;
            if (w.e < from)
                continue;
            // Anchors: the window start and each local midnight strictly inside the window.
            while (m < midnights.length && midnights[m] <= w.s)
                m++;
            let anchor = w.s;
            let k = m;
            while (anchor < w.e && anchor < to) {
                const segEnd = k < midnights.length && midnights[k] < w.e ? midnights[k] : w.e;
                let s = anchor;
                if (s < from)
                    s = anchor + Math.ceil((from - anchor) / intervalMs) * intervalMs;
                for (; s < segEnd && s < to; s += intervalMs) {
                    const end = s + durationMs;
                    if (end > w.e)
                        break;
                    const a = s - before;
                    const b = end + after;
                    const sharedKey = capacity ? keyPrefix + s + keySuffix : null;
                    let blocked = false;
                    for (let r = 0; r < indexes.length; r++) {
                        if (isBlocked(indexes[r], a, b, sharedKey)) {
                            blocked = true;
                            break;
                        }
                    }
                    if (blocked)
                        continue;
                    let state = 'available';
                    let cap;
                    if (capacity) {
                        const u = usage.get(sharedKey);
                        const held = u ? u.held : 0;
                        const used = u ? u.used : 0;
                        const remaining = Math.max(0, total - used - held);
                        if (remaining >= partySize)
                            state = remaining < 3 || remaining < 0.2 * total ? 'limited' : 'available';
                        else if (waitlist)
                            state = 'waitlist';
                        else
                            continue;
                        cap = { total, remaining, held };
                    }
                    const slot = {
                        key: sharedKey ?? keyPrefix + s + keySuffix,
                        id: encodeId(s),
                        serviceId: service.id,
                        startMs: s,
                        endMs: end,
                        durationMs,
                        resourceIds: combo.resourceIds,
                        state,
                    };
                    if (combo.locationId !== undefined)
                        slot.locationId = combo.locationId;
                    if (cap)
                        slot.capacity = cap;
                    out.push(slot);
                }
                if (segEnd >= w.e)
                    break;
                anchor = segEnd;
                k++;
            }
        }
    }
    out.sort((x, y) => x.startMs - y.startMs || compareIds(x.resourceIds, y.resourceIds));
    // Each slot gets its own resourceIds array (combinations share theirs while generating).
    for (const s of out)
        s.resourceIds = [...s.resourceIds];
    return out;
}
/** Offerable slots with start in [fromMs, toMs), ascending by start, then by resource ids. */
export function generateSlots(q) {
    return generate(q);
}
/** Re-validates one exact slot with the same rules as generateSlots; null when it is not offered. */
export function findSlot(q, parts) {
    if (!Number.isSafeInteger(parts.startMs) || !Array.isArray(parts.resourceIds))
        return null;
    const found = generate({ ...q, fromMs: parts.startMs, toMs: parts.startMs + 1, onlyCombination: parts.resourceIds });
    return found.find((s) => s.startMs === parts.startMs) ?? null;
}
// ---------------------------------------------------------------------------------------------
// Opening hours (weekly, for the catalog)
// ---------------------------------------------------------------------------------------------
function weeklyMinutes(hours) {
    const list = [];
    for (const h of hours ?? []) {
        const m = intervalMinutes(h);
        if (m)
            list.push({ s: m[0], e: m[1] });
    }
    return mergeIntervals(list).map((iv) => [iv.s, iv.e]);
}
/**
 * Weekly opening hours of a service: per weekday the union of its resources' weekly schedules
 * (intersected with service.hours when present; service.hours alone for a self-resourced service),
 * merged; weekdays whose interval lists are identical share entries (one entry per interval),
 * ordered monday..sunday by each group's first day.
 */
export function openingHours(service, resources) {
    const selfResource = service.requirements.length === 0;
    const ids = new Set();
    for (const req of service.requirements)
        for (const id of req.resource_ids)
            ids.add(id);
    const groups = new Map();
    for (const day of WEEKDAYS) {
        let intervals;
        if (selfResource) {
            intervals = weeklyMinutes(service.hours?.[day]);
        }
        else {
            const all = [];
            for (const id of ids) {
                const r = resources.get(id);
                if (r)
                    all.push(...(r.schedule?.[day] ?? []));
            }
            intervals = weeklyMinutes(all);
            if (service.hours) {
                const sh = weeklyMinutes(service.hours[day]).map(([s, e]) => ({ s, e }));
                intervals = intersectIntervals(intervals.map(([s, e]) => ({ s, e })), sh).map((iv) => [iv.s, iv.e]);
            }
        }
        if (intervals.length === 0)
            continue;
        const sig = intervals.map(([s, e]) => `${s}-${e}`).join(',');
        const g = groups.get(sig);
        if (g)
            g.days.push(day);
        else
            groups.set(sig, { days: [day], intervals });
    }
    const out = [];
    for (const g of groups.values()) {
        for (const [s, e] of g.intervals) {
            out.push({ day_of_week: [...g.days], opens: minutesToTimeOfDay(s), closes: minutesToTimeOfDay(e) });
        }
    }
    return out;
}
//# sourceMappingURL=slots.js.map