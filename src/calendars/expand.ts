/**
 * A calendar's events as the busy intervals a calendar client would show, with ical.js (Mozilla's
 * iCalendar library, the one Thunderbird uses): recurring events (RRULE, RDATE, EXDATE) and their
 * overridden instances (RECURRENCE-ID), all-day events, times in a VTIMEZONE the feed defines or an
 * IANA zone it names, and floating times in the business's zone. TRANSP:TRANSPARENT and
 * STATUS:CANCELLED events (or instances) are not busy time, and neither is an event whose UID is one
 * this server pushed (`ignoreUids`): a booking is already a claim.
 */
import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import type { BusyInterval } from '../store/index.js';

export interface ExpandOptions {
  /** The business's IANA zone: floating times and all-day dates are read in it. */
  zone: string;
  /** Only busy time overlapping [fromMs, toMs) is kept. */
  fromMs: number;
  toMs: number;
  /** UIDs whose events are not busy time (those this server wrote itself). */
  ignoreUids?: (uid: string) => boolean;
  /** Occurrences read per recurring event at most (a rule without end is cut at toMs anyway). */
  maxOccurrences?: number;
  /** Events (VEVENT components, overridden instances included) a calendar may hold; more is refused before parsing. */
  maxEvents?: number;
}

/** The feed is not an iCalendar object this server can read. */
export class MalformedCalendar extends Error {}

/** The feed holds more events than a calendar may (`maxEvents`): refused whole, before it is parsed. */
export class TooManyEvents extends Error {
  constructor(
    readonly count: number,
    readonly limit: number,
  ) {
    super(
      `the calendar holds ${count} events, more than the ${limit} a calendar may hold (--calendar-max-events): not read`,
    );
  }
}

/** The VEVENTs of iCalendar texts, counted on their unfolded lines without parsing them. */
export function countEvents(texts: readonly string[]): number {
  let n = 0;
  const begin = /^BEGIN:VEVENT[ \t]*\r?$/gim;
  for (const text of texts) {
    const unfolded = text.replace(/\r?\n[ \t]/g, '');
    begin.lastIndex = 0;
    while (begin.exec(unfolded)) n++;
  }
  return n;
}

type Time = InstanceType<typeof ICAL.Time>;

/** The instant of an ICAL.Time: its own zone when the feed defines it, else the IANA zone it names, else the business zone. */
function instantOf(t: Time, zone: string): number {
  const z = t.zone as { tzid?: string } | undefined;
  if (t.isDate) return DateTime.fromObject({ year: t.year, month: t.month, day: t.day }, { zone }).toMillis();
  if (z && z.tzid && z.tzid !== 'floating') return t.toUnixTime() * 1000;
  const named = (t as unknown as { timezone?: string }).timezone;
  const target = named && DateTime.local().setZone(named).isValid ? named : zone;
  return DateTime.fromObject(
    { year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute, second: t.second },
    { zone: target },
  ).toMillis();
}

function isFree(c: InstanceType<typeof ICAL.Component>): boolean {
  const transp = String(c.getFirstPropertyValue('transp') ?? '').toUpperCase();
  const status = String(c.getFirstPropertyValue('status') ?? '').toUpperCase();
  return transp === 'TRANSPARENT' || status === 'CANCELLED';
}

/** Parse one or more iCalendar texts (a CalDAV calendar answers one object per event). */
function components(texts: readonly string[]): Array<InstanceType<typeof ICAL.Component>> {
  return texts.map((text) => {
    let jcal: unknown;
    try {
      jcal = ICAL.parse(text);
    } catch (err) {
      throw new MalformedCalendar(`not iCalendar: ${(err as Error).message.split('\n')[0]}`);
    }
    const list = Array.isArray(jcal) && typeof jcal[0] === 'string' ? [jcal] : (jcal as unknown[]);
    const cal = list.map((j) => new ICAL.Component(j as any)).find((c) => c.name === 'vcalendar');
    if (!cal) throw new MalformedCalendar('no VCALENDAR object');
    return cal;
  });
}

/** Busy intervals, sorted and merged where they overlap or touch. */
export function expandBusy(texts: string | readonly string[], o: ExpandOptions): BusyInterval[] {
  const list = typeof texts === 'string' ? [texts] : texts;
  if (o.maxEvents !== undefined) {
    const count = countEvents(list);
    if (count > o.maxEvents) throw new TooManyEvents(count, o.maxEvents);
  }
  const cals = components(list);
  const limit = o.maxOccurrences ?? 5000;
  const registered: string[] = [];
  const out: BusyInterval[] = [];
  try {
    // The feed's own zone definitions, for this parse only (ical.js keeps them in one global registry).
    for (const cal of cals) {
      for (const vtz of cal.getAllSubcomponents('vtimezone')) {
        const tzid = String(vtz.getFirstPropertyValue('tzid') ?? '');
        if (tzid === '' || ICAL.TimezoneService.has(tzid)) continue;
        ICAL.TimezoneService.register(vtz);
        registered.push(tzid);
      }
    }
    const masters = new Map<string, InstanceType<typeof ICAL.Event>>();
    const overrides: Array<InstanceType<typeof ICAL.Component>> = [];
    for (const cal of cals) {
      for (const v of cal.getAllSubcomponents('vevent')) {
        const uid = String(v.getFirstPropertyValue('uid') ?? '');
        if (uid !== '' && o.ignoreUids?.(uid)) continue;
        if (!v.getFirstProperty('dtstart')) continue;
        if (v.hasProperty('recurrence-id')) overrides.push(v);
        // Overridden instances are related below: without `exceptions`, ical.js would scan every
        // VEVENT of the calendar for each event (quadratic in the feed's size).
        else masters.set(uid || `#${masters.size}`, new ICAL.Event(v, { exceptions: [] }));
      }
    }
    const lone: Array<InstanceType<typeof ICAL.Event>> = [];
    for (const v of overrides) {
      const master = masters.get(String(v.getFirstPropertyValue('uid') ?? ''));
      const ev = new ICAL.Event(v, { exceptions: [] });
      if (master) master.relateException(ev);
      else lone.push(ev); // an instance whose series we were not given: it stands alone
    }
    const keep = (startMs: number, endMs: number) => {
      if (endMs <= startMs) endMs = startMs; // a zero-length event blocks nothing
      if (endMs > o.fromMs && startMs < o.toMs && endMs > startMs) out.push({ start_ms: startMs, end_ms: endMs });
    };
    for (const ev of [...masters.values(), ...lone]) {
      if (!ev.isRecurring()) {
        if (isFree(ev.component)) continue;
        keep(instantOf(ev.startDate, o.zone), instantOf(endOf(ev.startDate, ev.endDate), o.zone));
        continue;
      }
      const it = ev.iterator();
      for (let n = 0, next = it.next(); next && n < limit; next = it.next(), n++) {
        const d = ev.getOccurrenceDetails(next);
        const startMs = instantOf(d.startDate, o.zone);
        if (startMs >= o.toMs && instantOf(next, o.zone) >= o.toMs) break;
        if (isFree(d.item.component)) continue;
        keep(startMs, instantOf(endOf(d.startDate, d.endDate), o.zone));
      }
    }
  } catch (err) {
    if (err instanceof MalformedCalendar) throw err;
    throw new MalformedCalendar(`unreadable event: ${(err as Error).message.split('\n')[0]}`);
  } finally {
    for (const tzid of registered) ICAL.TimezoneService.remove(tzid);
  }
  return mergeIntervals(out);
}

/** An event with no DTEND and no DURATION lasts a day when it is all-day, else no time (RFC 5545 3.6.1). */
function endOf(start: Time, end: Time | null | undefined): Time {
  if (end) return end;
  const e = start.clone();
  if (start.isDate) e.day += 1;
  return e;
}

/** Sort and merge overlapping or touching intervals. */
export function mergeIntervals(list: readonly BusyInterval[]): BusyInterval[] {
  const sorted = [...list].sort((a, b) => a.start_ms - b.start_ms || a.end_ms - b.end_ms);
  const out: BusyInterval[] = [];
  for (const b of sorted) {
    const last = out[out.length - 1];
    if (last && b.start_ms <= last.end_ms) last.end_ms = Math.max(last.end_ms, b.end_ms);
    else out.push({ ...b });
  }
  return out;
}

/** `busy` minus `taken` (both sorted, merged): the busy time not already covered by a booking or hold. */
export function subtractIntervals(busy: readonly BusyInterval[], taken: readonly BusyInterval[]): BusyInterval[] {
  const cut = mergeIntervals(taken);
  const out: BusyInterval[] = [];
  for (const b of busy) {
    let start = b.start_ms;
    for (const t of cut) {
      if (t.end_ms <= start || t.start_ms >= b.end_ms) continue;
      if (t.start_ms > start) out.push({ start_ms: start, end_ms: t.start_ms });
      start = Math.max(start, t.end_ms);
      if (start >= b.end_ms) break;
    }
    if (start < b.end_ms) out.push({ start_ms: start, end_ms: b.end_ms });
  }
  return out;
}
