/**
 * Computed availability answers, kept in memory and reused while they are still exactly what a
 * fresh computation would give. An entry is the slot list of one query (service, range, party size,
 * resource and location filters) computed at some instant, tagged with:
 *  - the store's availability version of the service's resources, read in the same snapshot as the
 *    claims and schedule changes it was computed from (`ClaimRepo.version`: bumped in the same
 *    transaction as every change to them, so equal versions mean equal inputs, across processes
 *    sharing a database too);
 *  - the instant the first claim it read expires by itself (a hold, a pending booking): from then
 *    on a fresh computation would no longer count it;
 *  - how far it covers the booking window's far end: it is computed `AHEAD_MS` past it, so for that
 *    long the far end can move forward with the clock and every new start is already in the list.
 * Each use narrows the list to the booking window at the caller's `now` (the near end only moves
 * forward: minimum notice and past slots drop off the front), which is exactly the fresh answer.
 * The business definition is part of the key (its stored version): an edit makes every earlier entry unreachable.
 *
 * Bounded by an estimate of the bytes it holds, least recently used first out; presented slots (per
 * answer time zone) are kept beside the computed ones, frozen, and counted too.
 */
import { clipToBookingWindow, deepFreeze, lowerBound, type ServiceDef, type SlotCandidate } from '../domain/index.js';
import type { ComputedSlots } from './availability/slots.js';

/** Default budget: 32 MiB, a few hundred one-day answers of a busy service, or ten month-long ones. */
export const DEFAULT_AVAILABILITY_CACHE_BYTES = 32 * 1024 * 1024;

/** How far past the booking window's far end an entry is computed: it lives at most this long when the query reaches it. */
export const AHEAD_MS = 3_600_000;

/** Estimated heap bytes of one computed slot and of one presented slot (measured on the demo business: 404–458 and ~360; rounded up). */
const SLOT_BYTES = 500;
const PRESENTED_BYTES = 500;
const ENTRY_BYTES = 400;

export interface AvailabilityCacheStats {
  entries: number;
  bytes: number;
  maxBytes: number;
  hits: number;
  misses: number;
  evictions: number;
}

/** The slots a query offers at one instant: a window onto a cached (or freshly computed) list. */
export interface SlotsView {
  readonly length: number;
  /** The i-th offered slot, presented in `zone` (made once per entry and zone, then reused). */
  present(i: number, zone: string, make: (slot: SlotCandidate) => Record<string, unknown>): Record<string, unknown>;
}

interface Entry {
  /** In the cache now (its presented slots count against the budget). */
  stored: boolean;
  version: number;
  computedAtMs: number;
  /** Usable while now < this (claim expiry, far-end coverage). */
  validUntilMs: number;
  fromMs: number;
  toMs: number;
  service: ServiceDef;
  slots: SlotCandidate[];
  starts: Float64Array;
  presented: Map<string, Array<Record<string, unknown> | undefined>>;
  bytes: number;
}

/** A list computed for one call only (the cache off, or an answer too big to keep). */
export function uncachedView(slots: readonly SlotCandidate[]): SlotsView {
  return { length: slots.length, present: (i, _zone, make) => make(slots[i]) };
}

/**
 * The key of a query's computed answer: everything the slot list depends on besides the store's
 * claims and the clock, the version of the business definition it was computed under included.
 */
export function availabilityKey(
  definitionVersion: number,
  serviceId: string,
  fromMs: number,
  toMs: number,
  partySize: number,
  resourceId?: string,
  locationId?: string,
): string {
  return JSON.stringify([
    definitionVersion,
    serviceId,
    fromMs,
    toMs,
    partySize,
    resourceId ?? null,
    locationId ?? null,
  ]);
}

export class AvailabilityCache {
  /** Made on the first answer kept (a hosted business that answers no availability keeps none). */
  private entries: Map<string, Entry> | undefined;
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  constructor(readonly maxBytes: number = DEFAULT_AVAILABILITY_CACHE_BYTES) {}

  /** The view of a cached answer for `key` that is still exact at `nowMs` under `version`, or undefined. */
  view(key: string, version: number, nowMs: number): SlotsView | undefined {
    const e = this.entries?.get(key);
    if (!e || e.version !== version || nowMs < e.computedAtMs || nowMs >= e.validUntilMs) {
      // A stale entry is of no further use (versions only grow, the clock moved past it).
      if (e && (e.version < version || nowMs >= e.validUntilMs)) this.drop(key, e);
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Most recently used last.
    this.entries?.delete(key);
    this.entries?.set(key, e);
    return this.window(e, nowMs);
  }

  /** Keep a fresh computation (made at `nowMs` with `AHEAD_MS`) and return its view at `nowMs`. */
  store(
    key: string,
    version: number,
    nowMs: number,
    service: ServiceDef,
    fromMs: number,
    toMs: number,
    answer: ComputedSlots,
  ): SlotsView {
    // The list covers starts before `coveredTo`. When the window's far end cuts it short
    // (`coveredTo` = far end + AHEAD_MS), that far end moves with the clock: it stays covered for AHEAD_MS.
    const coveredTo = clipToBookingWindow(service, nowMs, fromMs, toMs, AHEAD_MS).to;
    const farEndValidUntil = coveredTo >= toMs ? Infinity : nowMs + AHEAD_MS + 1;
    const slots = answer.slots;
    const starts = new Float64Array(slots.length);
    for (let i = 0; i < slots.length; i++) starts[i] = slots[i].startMs;
    const e: Entry = {
      stored: false,
      version,
      computedAtMs: nowMs,
      validUntilMs: Math.min(answer.claimsChangeAtMs, farEndValidUntil),
      fromMs,
      toMs,
      service,
      slots,
      starts,
      presented: new Map(),
      bytes: ENTRY_BYTES + key.length * 2 + slots.length * (SLOT_BYTES + 8),
    };
    const view = this.window(e, nowMs);
    if (this.maxBytes <= 0 || e.bytes > this.maxBytes / 8 || e.validUntilMs <= nowMs) return view;
    const entries = (this.entries ??= new Map());
    const prior = entries.get(key);
    // Two calls computing at once: keep the newer state.
    if (prior && prior.version > version) return view;
    if (prior) this.drop(key, prior);
    entries.set(key, e);
    e.stored = true;
    this.bytes += e.bytes;
    this.evict();
    return view;
  }

  stats(): AvailabilityCacheStats {
    return {
      entries: this.entries?.size ?? 0,
      bytes: this.bytes,
      maxBytes: this.maxBytes,
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
    };
  }

  private drop(key: string, e: Entry): void {
    e.stored = false;
    this.entries?.delete(key);
    this.bytes -= e.bytes;
  }

  private evict(): void {
    for (const [key, e] of this.entries ?? []) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(key, e);
      this.evictions++;
    }
  }

  /** The entry's slots that the booking window at `nowMs` offers (sorted by start: two binary searches). */
  private window(e: Entry, nowMs: number): SlotsView {
    const w = clipToBookingWindow(e.service, nowMs, e.fromMs, e.toMs);
    const lo = lowerBound(e.starts, w.from);
    const hi = Math.max(lo, lowerBound(e.starts, w.to));
    return {
      length: hi - lo,
      present: (i, zone, make) => {
        let list = e.presented.get(zone);
        if (!list) e.presented.set(zone, (list = []));
        const k = lo + i;
        let p = list[k];
        if (!p) {
          // Shared by every answer that shows this slot: frozen all the way down, so a caller that tried to
          // change it would fail loudly, and a door may keep its JSON text (src/web/json.ts).
          p = deepFreeze(make(e.slots[k]));
          list[k] = p;
          if (e.stored) {
            e.bytes += PRESENTED_BYTES;
            this.bytes += PRESENTED_BYTES;
            this.evict();
          }
        }
        return p;
      },
    };
  }
}
