/**
 * Slot generation (USP §4.1): a slot is one start time for one combination of resources, exactly one
 * resource per requirement of the service ("one slot per resource combination").
 *
 * Pipeline for one query (each step is one function below `generate`):
 *  0. the resource combinations the query allows, each with the location it serves, and the booking
 *     window's range and slot grid;
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
import { WEEKDAYS, type LocalInterval, type ResourceDef, type ServiceDef, type Weekday, type WeeklyHours } from './business.js';
import { slotIdEncoder, slotKeyMaker } from './slot-id.js';
import {
  DAY_MS,
  MINUTE_MS,
  addDays,
  isTimeOfDay,
  localDate,
  localToUtcMs,
  minutesToTimeOfDay,
  parseDuration,
  parseInstant,
  timeOfDayToMinutes,
  weekdayOf,
} from './time.js';

/** Something that occupies a resource: a booking or an active hold. */
export interface Claim {
  resourceId: string;
  /** The BLOCKED interval, buffers included. */
  startMs: number;
  endMs: number;
  /** slotKey() of the slot it was made on. */
  slotKey: string;
  /** Booking id or hold id. */
  ownerId: string;
  /** Party size / held spots. */
  spots: number;
  isHold: boolean;
}

export type SlotState = 'available' | 'limited' | 'waitlist';

export interface SlotCandidate {
  /** slotKey() and encodeSlotId() of the same parts. */
  key: string;
  id: string;
  serviceId: string;
  startMs: number;
  endMs: number;
  durationMs: number;
  /** One per requirement, in requirement order. */
  resourceIds: string[];
  locationId?: string;
  /** Only for capacity types (group, reservation). */
  capacity?: { total: number; remaining: number; held: number };
  state: SlotState;
}

export interface SlotQuery {
  service: ServiceDef;
  resources: ReadonlyMap<string, ResourceDef>;
  /** Business IANA zone: schedules are local to it. */
  zone: string;
  /** Slot START times in [fromMs, toMs). */
  fromMs: number;
  toMs: number;
  nowMs: number;
  /** Active claims (expired ones already dropped), on any resource. */
  claims: readonly Claim[];
  /** >= 1; only matters for capacity types. */
  partySize: number;
  /** Only combinations containing this resource. */
  resourceId?: string;
  /** Only slots at this location. */
  locationId?: string;
  /**
   * Also offer starts up to this much past the booking window's far end (default 0). For a caller
   * that keeps the answer while the clock moves and narrows it to `bookingWindow` at each use: the
   * near end only moves forward, so narrowing is exact, and the far end is covered for this long.
   */
  aheadMs?: number;
}

/**
 * Slot starts a service offers at `nowMs`: [from, to), from the minimum notice (and never in the
 * past) to the maximum advance, inclusive (`to` is one millisecond past it).
 */
export function bookingWindow(service: ServiceDef, nowMs: number): { from: number; to: number } {
  const w = service.policies.booking_window;
  return { from: Math.max(nowMs + parseDuration(w.min_advance), nowMs), to: nowMs + parseDuration(w.max_advance) + 1 };
}

export interface OpeningHoursEntry {
  day_of_week: Weekday[];
  opens: string;
  closes: string;
}

/** Resource id of a service that is its own resource (empty `requirements`). */
export function selfResourceId(serviceId: string): string {
  return `service:${serviceId}`;
}

/** Group and reservation services sell spots of a shared slot (they carry `capacity.max`). */
export function isCapacityType(service: ServiceDef): boolean {
  return service.type === 'group' || service.type === 'reservation';
}

/** The length of a slot: fixed duration; range -> range.min; undetermined -> slot_interval. */
export function slotDurationMs(service: ServiceDef): number {
  const d = service.duration;
  if (d.fixed) return parseDuration(d.fixed);
  if (d.range) return parseDuration(d.range.min);
  return parseDuration(service.policies.booking_window.slot_interval);
}

function bufferMs(iso: string | undefined): number {
  return iso ? parseDuration(iso) : 0;
}

/** The interval a slot starting at `startMs` keeps its resources busy: start - buffer_before .. end + buffer_after. */
export function blockedInterval(service: ServiceDef, startMs: number): { startMs: number; endMs: number } {
  return {
    startMs: startMs - bufferMs(service.duration.buffer_before),
    endMs: startMs + slotDurationMs(service) + bufferMs(service.duration.buffer_after),
  };
}

// ---------------------------------------------------------------------------------------------
// Intervals (half-open [s, e), sorted, disjoint)
// ---------------------------------------------------------------------------------------------

type Iv = { s: number; e: number };

/** Sorts and merges overlapping or touching intervals (in place on a fresh array). */
function mergeIntervals(list: Iv[]): Iv[] {
  if (list.length <= 1) return list;
  list.sort((a, b) => a.s - b.s || a.e - b.e);
  const out: Iv[] = [];
  let cur = { s: list[0].s, e: list[0].e };
  for (let i = 1; i < list.length; i++) {
    const iv = list[i];
    if (iv.s <= cur.e) {
      if (iv.e > cur.e) cur.e = iv.e;
    } else {
      out.push(cur);
      cur = { s: iv.s, e: iv.e };
    }
  }
  out.push(cur);
  return out;
}

function intersectIntervals(a: readonly Iv[], b: readonly Iv[]): Iv[] {
  const out: Iv[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const s = Math.max(a[i].s, b[j].s);
    const e = Math.min(a[i].e, b[j].e);
    if (s < e) out.push({ s, e });
    if (a[i].e < b[j].e) i++;
    else j++;
  }
  return out;
}

/** a minus b (both sorted, disjoint). */
function subtractIntervals(a: readonly Iv[], b: readonly Iv[]): Iv[] {
  if (b.length === 0) return a as Iv[];
  const out: Iv[] = [];
  let j = 0;
  for (const iv of a) {
    let s = iv.s;
    const e = iv.e;
    while (j < b.length && b[j].e <= s) j++;
    let k = j;
    while (k < b.length && b[k].s < e) {
      if (b[k].s > s) out.push({ s, e: b[k].s });
      if (b[k].e > s) s = b[k].e;
      if (s >= e) break;
      k++;
    }
    if (s < e) out.push({ s, e });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Local days -> UTC (one zone lookup per zone and date, memoised: results are deterministic)
// ---------------------------------------------------------------------------------------------

interface DayInfo {
  date: string;
  weekday: Weekday;
  /** Instant of the local 00:00 (or the first instant of the day). */
  startMs: number;
  /** Instant of the next day's 00:00. */
  endMs: number;
  /** No UTC-offset change inside the day: wall time = startMs + minutes. */
  uniform: boolean;
}

const DAY_CACHE_LIMIT = 20_000;
const dayCache = new Map<string, DayInfo>();

function dayInfo(zone: string, date: string): DayInfo {
  const cacheKey = `${zone}|${date}`;
  let info = dayCache.get(cacheKey);
  if (info) return info;
  const startMs = localToUtcMs(date, '00:00', zone);
  const endMs = localToUtcMs(addDays(date, 1), '00:00', zone); // = '24:00', shares the next day's memo
  info = { date, weekday: weekdayOf(date), startMs, endMs, uniform: endMs - startMs === DAY_MS };
  if (dayCache.size >= DAY_CACHE_LIMIT) dayCache.clear();
  dayCache.set(cacheKey, info);
  return info;
}

function wallToUtc(zone: string, day: DayInfo, minutes: number): number {
  if (minutes === 1440) return day.endMs;
  if (day.uniform) return day.startMs + minutes * MINUTE_MS;
  return localToUtcMs(day.date, minutesToTimeOfDay(minutes), zone);
}

/** Minutes [opens, closes) of a local interval, or null if malformed or empty. */
function intervalMinutes(iv: LocalInterval): [number, number] | null {
  if (!iv || !isTimeOfDay(iv.opens) || !isTimeOfDay(iv.closes)) return null;
  const o = timeOfDayToMinutes(iv.opens);
  const c = timeOfDayToMinutes(iv.closes);
  return c > o ? [o, c] : null;
}

function dayIntervals(zone: string, day: DayInfo, hours: readonly LocalInterval[] | undefined, out: Iv[]): void {
  if (!hours) return;
  for (const h of hours) {
    const m = intervalMinutes(h);
    if (!m) continue;
    const s = wallToUtc(zone, day, m[0]);
    const e = wallToUtc(zone, day, m[1]);
    if (e > s) out.push({ s, e });
  }
}

interface ScheduleSource {
  schedule: WeeklyHours | undefined;
  exceptions?: ResourceDef['exceptions'];
  time_off?: ResourceDef['time_off'];
}

/** Working time of one schedule over the expanded days: exceptions replace weekly hours, then time off is removed. */
function workingTime(src: ScheduleSource, days: readonly DayInfo[], zone: string): Iv[] {
  let exceptions: Map<string, LocalInterval[]> | undefined;
  if (src.exceptions && src.exceptions.length > 0) {
    exceptions = new Map();
    for (const ex of src.exceptions) exceptions.set(ex.date, ex.hours ?? []);
  }
  const list: Iv[] = [];
  for (const day of days) {
    const hours = exceptions?.get(day.date) ?? src.schedule?.[day.weekday];
    dayIntervals(zone, day, hours, list);
  }
  let merged = mergeIntervals(list);
  if (src.time_off && src.time_off.length > 0 && merged.length > 0) {
    const off: Iv[] = [];
    for (const t of src.time_off) {
      const s = parseInstant(t.start);
      const e = parseInstant(t.end);
      if (s !== null && e !== null && e > s) off.push({ s, e });
    }
    merged = subtractIntervals(merged, mergeIntervals(off));
  }
  return merged;
}

// ---------------------------------------------------------------------------------------------
// Claims
// ---------------------------------------------------------------------------------------------

/** Claims of one resource sorted by start, with the running maximum of end times. */
interface ClaimIndex {
  starts: Float64Array;
  ends: Float64Array;
  maxEnd: Float64Array;
  keys: string[];
}

const EMPTY_INDEX: ClaimIndex = { starts: new Float64Array(0), ends: new Float64Array(0), maxEnd: new Float64Array(0), keys: [] };

function buildClaimIndexes(claims: readonly Claim[], wanted: ReadonlySet<string>): Map<string, ClaimIndex> {
  const byResource = new Map<string, Claim[]>();
  for (const c of claims) {
    if (!wanted.has(c.resourceId) || !(c.endMs > c.startMs)) continue;
    let list = byResource.get(c.resourceId);
    if (!list) byResource.set(c.resourceId, (list = []));
    list.push(c);
  }
  const out = new Map<string, ClaimIndex>();
  for (const [rid, list] of byResource) {
    list.sort((a, b) => a.startMs - b.startMs);
    const n = list.length;
    const ix: ClaimIndex = { starts: new Float64Array(n), ends: new Float64Array(n), maxEnd: new Float64Array(n), keys: new Array(n) };
    let max = -Infinity;
    for (let i = 0; i < n; i++) {
      const c = list[i];
      ix.starts[i] = c.startMs;
      ix.ends[i] = c.endMs;
      if (c.endMs > max) max = c.endMs;
      ix.maxEnd[i] = max;
      ix.keys[i] = c.slotKey;
    }
    out.set(rid, ix);
  }
  return out;
}

/** The first index of the sorted `a` whose value is >= x (a.length when none is). */
export function lowerBound(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Does any claim overlap [a, b)? With `sharedKey`, claims made on that same slot are ignored
 * (capacity types: they consume spots instead of blocking).
 */
function isBlocked(ix: ClaimIndex, a: number, b: number, sharedKey: string | null): boolean {
  let j = lowerBound(ix.starts, b) - 1; // last claim starting before b
  if (j < 0 || ix.maxEnd[j] <= a) return false;
  if (sharedKey === null) return true;
  for (; j >= 0 && ix.maxEnd[j] > a; j--) {
    if (ix.ends[j] > a && ix.keys[j] !== sharedKey) return true;
  }
  return false;
}

/** Spots used (bookings) and held (holds) per slotKey, each owner counted once per slot. */
function capacityUsage(claims: readonly Claim[], serviceId: string): Map<string, { used: number; held: number }> {
  const prefix = `${serviceId}|`;
  const seen = new Set<string>();
  const out = new Map<string, { used: number; held: number }>();
  for (const c of claims) {
    if (!c.slotKey.startsWith(prefix)) continue;
    const ownerKey = `${c.slotKey}\u0000${c.ownerId}`;
    if (seen.has(ownerKey)) continue;
    seen.add(ownerKey);
    let u = out.get(c.slotKey);
    if (!u) out.set(c.slotKey, (u = { used: 0, held: 0 }));
    const spots = Number.isFinite(c.spots) && c.spots > 0 ? c.spots : 0;
    if (c.isHold) u.held += spots;
    else u.used += spots;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------------------

interface Combination {
  resourceIds: string[];
  locationId: string | undefined;
}

function compareIds(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a.length - b.length;
}

function combinationLocation(service: ServiceDef, resources: readonly (ResourceDef | undefined)[]): { ok: boolean; locationId?: string } {
  let loc: string | undefined;
  for (const r of resources) {
    const l = r?.location_id;
    if (l === undefined) continue;
    if (loc !== undefined && loc !== l) return { ok: false };
    loc = l;
  }
  const offered = service.location_ids;
  if (loc === undefined) return { ok: true, locationId: offered && offered.length === 1 ? offered[0] : undefined };
  if (offered && offered.length > 0 && !offered.includes(loc)) return { ok: false };
  return { ok: true, locationId: loc };
}

/** All combinations (one resource per requirement, no resource twice), in requirement order. */
function combinations(service: ServiceDef, resources: ReadonlyMap<string, ResourceDef>, only?: readonly string[]): string[][] {
  const reqs = service.requirements;
  if (only) {
    if (only.length !== reqs.length) return [];
    for (let i = 0; i < reqs.length; i++) {
      if (!reqs[i].resource_ids.includes(only[i]) || !resources.has(only[i])) return [];
    }
    return new Set(only).size === only.length ? [[...only]] : [];
  }
  let acc: string[][] = [[]];
  for (const req of reqs) {
    const ids = [...new Set(req.resource_ids)].filter((id) => resources.has(id));
    const next: string[][] = [];
    for (const partial of acc) {
      for (const id of ids) if (!partial.includes(id)) next.push([...partial, id]);
    }
    acc = next;
    if (acc.length === 0) break;
  }
  return acc;
}

interface InternalQuery extends Omit<SlotQuery, 'resourceId'> {
  resourceId?: string;
  onlyCombination?: readonly string[];
}

/** The query's constants: the slot grid, the buffers and the range clipped to the booking window. */
interface Plan {
  service: ServiceDef;
  selfResource: boolean;
  durationMs: number;
  intervalMs: number;
  before: number;
  after: number;
  /** Candidate starts lie in [from, to). */
  from: number;
  to: number;
  /** A capacity type: same-slot claims share the slot (counted) instead of blocking it. */
  capacity: boolean;
  total: number;
  waitlist: boolean;
  partySize: number;
}

/** The grid and range of a query; null when it can offer nothing (no duration, an empty window). */
function planQuery(q: InternalQuery): Plan | null {
  const { service } = q;
  const selfResource = service.requirements.length === 0;
  if (selfResource && !service.hours) return null;
  const durationMs = slotDurationMs(service);
  let intervalMs = parseDuration(service.policies.booking_window.slot_interval);
  if (!(intervalMs > 0)) intervalMs = durationMs;
  if (!(intervalMs > 0) || !(durationMs > 0)) return null;
  const window = bookingWindow(service, q.nowMs);
  const from = Math.max(q.fromMs, window.from);
  const to = Math.min(q.toMs, window.to + Math.max(0, q.aheadMs ?? 0));
  if (!(from < to)) return null;
  return {
    service,
    selfResource,
    durationMs,
    intervalMs,
    before: bufferMs(service.duration.buffer_before),
    after: bufferMs(service.duration.buffer_after),
    from,
    to,
    capacity: isCapacityType(service),
    total: service.capacity?.max ?? 1,
    waitlist: service.capacity?.waitlist === true,
    partySize: Math.max(1, Math.floor(Number.isFinite(q.partySize) ? q.partySize : 1)),
  };
}

/** The resource combinations the query allows, each with the location it serves (step 0). */
function locatedCombinations(q: InternalQuery, plan: Plan): Combination[] {
  const { service } = plan;
  let combos: string[][];
  if (plan.selfResource) {
    const only = q.onlyCombination;
    const self = selfResourceId(service.id);
    combos = !only || (only.length === 1 && only[0] === self) ? [[self]] : [];
  } else {
    combos = combinations(service, q.resources, q.onlyCombination);
  }
  if (q.resourceId !== undefined) combos = combos.filter((c) => c.includes(q.resourceId as string));
  const located: Combination[] = [];
  for (const ids of combos) {
    const loc = plan.selfResource ? combinationLocation(service, []) : combinationLocation(service, ids.map((id) => q.resources.get(id)));
    if (!loc.ok) continue;
    if (q.locationId !== undefined && loc.locationId !== q.locationId) continue;
    located.push({ resourceIds: ids, locationId: loc.locationId });
  }
  return located;
}

/** Step 1: the local days touched by [from, to) plus margins (a slot and its buffers may run into later days). */
function expandDays(plan: Plan, zone: string): DayInfo[] {
  const firstDate = addDays(localDate(plan.from, zone), -1);
  const lastDate = addDays(localDate(plan.to - 1, zone), 1 + Math.ceil((plan.durationMs + plan.after) / DAY_MS));
  const days: DayInfo[] = [];
  for (let d = firstDate; d <= lastDate; d = addDays(d, 1)) days.push(dayInfo(zone, d));
  return days;
}

/** Step 2: working time per resource, computed once per resource on first use. */
function workingTimes(q: InternalQuery, plan: Plan, days: readonly DayInfo[]): (id: string) => Iv[] {
  const working = new Map<string, Iv[]>();
  return (id) => {
    let w = working.get(id);
    if (!w) {
      const src: ScheduleSource = plan.selfResource ? { schedule: plan.service.hours } : (q.resources.get(id) as ResourceDef);
      w = workingTime(src, days, q.zone);
      working.set(id, w);
    }
    return w;
  };
}

/** Step 3: the windows where every resource of a combination works (within the service hours, if any). */
function combinationWindows(combo: Combination, serviceHours: Iv[] | null, workingOf: (id: string) => Iv[]): Iv[] {
  let windows: Iv[] | null = serviceHours;
  for (const id of combo.resourceIds) {
    windows = windows === null ? workingOf(id) : intersectIntervals(windows, workingOf(id));
    if (windows.length === 0) break;
  }
  return windows ?? [];
}

/** What occupies the query's resources: claims indexed per resource, and same-slot usage for capacity types. */
interface Occupancy {
  claimIndexes: Map<string, ClaimIndex>;
  usage: Map<string, { used: number; held: number }> | null;
}

function occupancyOf(q: InternalQuery, plan: Plan, located: readonly Combination[]): Occupancy {
  const wanted = new Set<string>();
  for (const c of located) for (const id of c.resourceIds) wanted.add(id);
  return { claimIndexes: buildClaimIndexes(q.claims, wanted), usage: plan.capacity ? capacityUsage(q.claims, plan.service.id) : null };
}

/** One combination's constants while its starts are walked. */
interface ComboGrid {
  combo: Combination;
  indexes: ClaimIndex[];
  encodeId: (startMs: number) => string;
  /** slotKey() of a start in this combination. */
  keyOf: (startMs: number) => string;
}

/** Step 4: candidate starts of one combination, window by window. */
function combinationSlots(plan: Plan, occupancy: Occupancy, combo: Combination, windows: readonly Iv[], midnights: readonly number[], out: SlotCandidate[]): void {
  const grid: ComboGrid = {
    combo,
    indexes: combo.resourceIds.map((id) => occupancy.claimIndexes.get(id) ?? EMPTY_INDEX),
    encodeId: slotIdEncoder(plan.service.id, combo.resourceIds),
    keyOf: slotKeyMaker(plan.service.id, combo.resourceIds),
  };
  let m = 0; // index into midnights
  for (const w of windows) {
    if (w.s >= plan.to || w.e - w.s < plan.durationMs) continue;
    if (w.e < plan.from) continue;
    while (m < midnights.length && midnights[m] <= w.s) m++;
    windowSlots(plan, occupancy, grid, w, midnights, m, out);
  }
}

/**
 * Step 4 within one window: starts step by the slot interval from each anchor (the window start and
 * each local midnight strictly inside the window, `midnights[m]` onwards), and a slot fits when it
 * ends inside the window.
 */
function windowSlots(plan: Plan, occupancy: Occupancy, grid: ComboGrid, w: Iv, midnights: readonly number[], m: number, out: SlotCandidate[]): void {
  const { from, to, intervalMs, durationMs } = plan;
  let anchor = w.s;
  let k = m;
  while (anchor < w.e && anchor < to) {
    const segEnd = k < midnights.length && midnights[k] < w.e ? midnights[k] : w.e;
    let s = anchor;
    if (s < from) s = anchor + Math.ceil((from - anchor) / intervalMs) * intervalMs;
    for (; s < segEnd && s < to; s += intervalMs) {
      if (s + durationMs > w.e) break;
      const slot = slotAt(plan, occupancy, grid, s);
      if (slot) out.push(slot);
    }
    if (segEnd >= w.e) break;
    anchor = segEnd;
    k++;
  }
}

/** The spots of a capacity slot: its total, what is left after the spots used and held, and the held ones. */
function capacityLeft(plan: Plan, used: number, held: number): NonNullable<SlotCandidate['capacity']> {
  return { total: plan.total, remaining: Math.max(0, plan.total - used - held), held };
}

/** A capacity slot's state: available or limited while the party fits, else waitlist where offered; null when full. */
function capacityState(plan: Plan, cap: NonNullable<SlotCandidate['capacity']>): SlotState | null {
  if (cap.remaining >= plan.partySize) return cap.remaining < 3 || cap.remaining < 0.2 * plan.total ? 'limited' : 'available';
  return plan.waitlist ? 'waitlist' : null;
}

/** Step 5: the slot starting at `s` unless a claim blocks it (buffers included) or, for capacity types, it is full. */
function slotAt(plan: Plan, occupancy: Occupancy, grid: ComboGrid, s: number): SlotCandidate | null {
  const end = s + plan.durationMs;
  const sharedKey = plan.capacity ? grid.keyOf(s) : null;
  const a = s - plan.before;
  const b = end + plan.after;
  for (let r = 0; r < grid.indexes.length; r++) {
    if (isBlocked(grid.indexes[r], a, b, sharedKey)) return null;
  }
  let state: SlotState = 'available';
  let cap: SlotCandidate['capacity'];
  if (plan.capacity) {
    const u = occupancy.usage!.get(sharedKey as string);
    cap = capacityLeft(plan, u ? u.used : 0, u ? u.held : 0);
    const st = capacityState(plan, cap);
    if (!st) return null;
    state = st;
  }
  const slot: SlotCandidate = {
    key: sharedKey ?? grid.keyOf(s),
    id: grid.encodeId(s),
    serviceId: plan.service.id,
    startMs: s,
    endMs: end,
    durationMs: plan.durationMs,
    resourceIds: grid.combo.resourceIds,
    state,
  };
  if (grid.combo.locationId !== undefined) slot.locationId = grid.combo.locationId;
  if (cap) slot.capacity = cap;
  return slot;
}

function generate(q: InternalQuery): SlotCandidate[] {
  const plan = planQuery(q);
  if (!plan) return [];
  const located = locatedCombinations(q, plan);
  if (located.length === 0) return [];
  const days = expandDays(plan, q.zone);
  const workingOf = workingTimes(q, plan, days);
  const serviceHours = !plan.selfResource && plan.service.hours ? workingTime({ schedule: plan.service.hours }, days, q.zone) : null;
  const occupancy = occupancyOf(q, plan, located);
  const midnights = days.map((d) => d.startMs);
  const out: SlotCandidate[] = [];
  for (const combo of located) {
    const windows = combinationWindows(combo, serviceHours, workingOf);
    if (windows.length > 0) combinationSlots(plan, occupancy, combo, windows, midnights, out);
  }
  out.sort((x, y) => x.startMs - y.startMs || compareIds(x.resourceIds, y.resourceIds));
  // Each slot gets its own resourceIds array (combinations share theirs while generating).
  for (const s of out) s.resourceIds = [...s.resourceIds];
  return out;
}

/** Offerable slots with start in [fromMs, toMs), ascending by start, then by resource ids. */
export function generateSlots(q: SlotQuery): SlotCandidate[] {
  return generate(q);
}

/**
 * Re-validates one exact slot with the same rules as generateSlots (the same answer as generating
 * its day and looking it up; null when it is not offered), without generating anything: the
 * booking window, the combination and its location, the window of working time holding the slot
 * and its place on that window's grid, then the claims on its resources. Hold, booking and
 * reschedule run it inside their transaction, so it is on every write's path.
 */
export function findSlot(
  q: Omit<SlotQuery, 'fromMs' | 'toMs' | 'resourceId'>,
  parts: { startMs: number; resourceIds: string[] },
): SlotCandidate | null {
  if (!Number.isSafeInteger(parts.startMs) || !Array.isArray(parts.resourceIds)) return null;
  const s = parts.startMs;
  const iq: InternalQuery = { ...q, fromMs: s, toMs: s + 1, onlyCombination: parts.resourceIds };
  // The booking window: the range clipped to it is [s, s + 1) or nothing.
  const plan = planQuery(iq);
  if (!plan || plan.from !== s) return null;
  const combo = locatedCombinations(iq, plan)[0];
  if (!combo) return null;
  // The window of working time holding [s, s + duration]: from the slot's day (and the day before,
  // as generation has it) to the day its end falls on.
  const days = expandDays(plan, q.zone);
  const serviceHours = !plan.selfResource && plan.service.hours ? workingTime({ schedule: plan.service.hours }, days, q.zone) : null;
  const windows = combinationWindows(combo, serviceHours, workingTimes(iq, plan, days));
  const end = s + plan.durationMs;
  let w: Iv | undefined;
  for (const x of windows) {
    if (x.s <= s && s < x.e) {
      w = x;
      break;
    }
  }
  if (!w || end > w.e) return null;
  // On the grid: starts step by the interval from the window start and from each local midnight
  // inside the window, so the anchor is the latest of those at or before s.
  let anchor = w.s;
  for (const d of days) if (d.startMs > anchor && d.startMs <= s) anchor = d.startMs;
  if ((s - anchor) % plan.intervalMs !== 0) return null;
  return slotAgainstClaims(plan, combo, q.claims, s);
}

/** Step 5 for one start, straight from the claims (no per-resource index for a single slot). */
function slotAgainstClaims(plan: Plan, combo: Combination, claims: readonly Claim[], s: number): SlotCandidate | null {
  const end = s + plan.durationMs;
  const key = slotKeyMaker(plan.service.id, combo.resourceIds)(s);
  const sharedKey = plan.capacity ? key : null;
  const a = s - plan.before;
  const b = end + plan.after;
  const ids = combo.resourceIds;
  let used = 0;
  let held = 0;
  const counted = plan.capacity ? new Set<string>() : null;
  for (const c of claims) {
    if (counted && c.slotKey === key && !counted.has(c.ownerId)) {
      counted.add(c.ownerId);
      const spots = Number.isFinite(c.spots) && c.spots > 0 ? c.spots : 0;
      if (c.isHold) held += spots;
      else used += spots;
    }
    if (!(c.endMs > c.startMs) || !ids.includes(c.resourceId)) continue;
    if (c.startMs < b && c.endMs > a && (sharedKey === null || c.slotKey !== sharedKey)) return null;
  }
  let state: SlotState = 'available';
  let cap: SlotCandidate['capacity'];
  if (plan.capacity) {
    cap = capacityLeft(plan, used, held);
    const st = capacityState(plan, cap);
    if (!st) return null;
    state = st;
  }
  const slot: SlotCandidate = {
    key,
    id: slotIdEncoder(plan.service.id, ids)(s),
    serviceId: plan.service.id,
    startMs: s,
    endMs: end,
    durationMs: plan.durationMs,
    resourceIds: [...ids],
    state,
  };
  if (combo.locationId !== undefined) slot.locationId = combo.locationId;
  if (cap) slot.capacity = cap;
  return slot;
}

// ---------------------------------------------------------------------------------------------
// Opening hours (weekly, for the catalog)
// ---------------------------------------------------------------------------------------------

function weeklyMinutes(hours: readonly LocalInterval[] | undefined): Array<[number, number]> {
  const list: Iv[] = [];
  for (const h of hours ?? []) {
    const m = intervalMinutes(h);
    if (m) list.push({ s: m[0], e: m[1] });
  }
  return mergeIntervals(list).map((iv) => [iv.s, iv.e]);
}

/**
 * Weekly opening hours of a service: per weekday the union of its resources' weekly schedules
 * (intersected with service.hours when present; service.hours alone for a self-resourced service),
 * merged; weekdays whose interval lists are identical share entries (one entry per interval),
 * ordered monday..sunday by each group's first day.
 */
export function openingHours(service: ServiceDef, resources: ReadonlyMap<string, ResourceDef>): OpeningHoursEntry[] {
  const selfResource = service.requirements.length === 0;
  const ids = new Set<string>();
  for (const req of service.requirements) for (const id of req.resource_ids) ids.add(id);

  const groups = new Map<string, { days: Weekday[]; intervals: Array<[number, number]> }>();
  for (const day of WEEKDAYS) {
    let intervals: Array<[number, number]>;
    if (selfResource) {
      intervals = weeklyMinutes(service.hours?.[day]);
    } else {
      const all: LocalInterval[] = [];
      for (const id of ids) {
        const r = resources.get(id);
        if (r) all.push(...(r.schedule?.[day] ?? []));
      }
      intervals = weeklyMinutes(all);
      if (service.hours) {
        const sh = weeklyMinutes(service.hours[day]).map(([s, e]) => ({ s, e }));
        intervals = intersectIntervals(intervals.map(([s, e]) => ({ s, e })), sh).map((iv) => [iv.s, iv.e]);
      }
    }
    if (intervals.length === 0) continue;
    const sig = intervals.map(([s, e]) => `${s}-${e}`).join(',');
    const g = groups.get(sig);
    if (g) g.days.push(day);
    else groups.set(sig, { days: [day], intervals });
  }
  const out: OpeningHoursEntry[] = [];
  for (const g of groups.values()) {
    for (const [s, e] of g.intervals) {
      out.push({ day_of_week: [...g.days], opens: minutesToTimeOfDay(s), closes: minutesToTimeOfDay(e) });
    }
  }
  return out;
}
