/**
 * Time helpers of the domain: ISO 8601 durations, IANA zones, local wall-clock <-> UTC instants,
 * RFC 3339 instants and calendar dates. Pure: no clock, no I/O. Only luxon is used for zone rules.
 *
 * Conventions: instants are epoch milliseconds (UTC); dates are local "YYYY-MM-DD";
 * times of day are local "HH:MM" (24 h, "24:00" = the next day's 00:00).
 */
import { DateTime, IANAZone } from 'luxon';
import { WEEKDAYS, type Weekday } from './business.js';

export const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------------------------
// Durations
// ---------------------------------------------------------------------------------------------

/** PnW alone, or PnDTnHnMnS (any subset, at least one component; seconds may carry up to 3 decimals). */
const DURATION_RE = /^P(?:(\d+)W|(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d{1,3})?)S)?)?)$/;

/**
 * ISO 8601 duration to milliseconds. Days are exact 24-hour days (P1D = 86 400 000 ms) and weeks 7 of them.
 * Throws an `Error` for years or months (calendar-dependent) and for anything malformed.
 */
export function parseDuration(iso: string): number {
  if (typeof iso !== 'string') throw new Error(`invalid ISO 8601 duration: ${String(iso)}`);
  const m = DURATION_RE.exec(iso);
  if (!m || iso === 'P' || iso.endsWith('T')) {
    const datePart = typeof iso === 'string' ? iso.split('T')[0] : '';
    if (/^P/.test(iso) && /\d+(?:[.,]\d+)?[YM]/.test(datePart)) {
      throw new Error(`unsupported ISO 8601 duration "${iso}": years and months are not supported (use weeks or days)`);
    }
    throw new Error(`invalid ISO 8601 duration "${iso}": expected PnW or PnDTnHnMnS, e.g. PT30M, PT1H30M, P1DT2H`);
  }
  const [, w, d, h, min, s] = m;
  if (w !== undefined) return Number(w) * 7 * DAY_MS;
  let ms = 0;
  if (d !== undefined) ms += Number(d) * DAY_MS;
  if (h !== undefined) ms += Number(h) * HOUR_MS;
  if (min !== undefined) ms += Number(min) * MINUTE_MS;
  if (s !== undefined) ms += Math.round(Number(s.replace(',', '.')) * 1000);
  if (!Number.isSafeInteger(ms)) throw new Error(`invalid ISO 8601 duration "${iso}": too large`);
  return ms;
}

/** True when `parseDuration(s)` would succeed. */
export function isDuration(s: unknown): s is string {
  if (typeof s !== 'string') return false;
  try {
    parseDuration(s);
    return true;
  } catch {
    return false;
  }
}

/**
 * Milliseconds to an ISO 8601 duration, minutes form under a day ("PT60M", "PT90M", "PT1M30S"),
 * whole days as "PnD", and days plus a minutes remainder otherwise ("P1DT120M"). 0 -> "PT0S".
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`cannot format a negative or non-finite duration: ${ms}`);
  ms = Math.round(ms);
  if (ms === 0) return 'PT0S';
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  const minutes = Math.floor(rest / MINUTE_MS);
  rest -= minutes * MINUTE_MS;
  let out = 'P';
  if (days > 0) out += `${days}D`;
  if (minutes > 0 || rest > 0) {
    out += 'T';
    if (minutes > 0) out += `${minutes}M`;
    if (rest > 0) {
      const secs = rest % 1000 === 0 ? String(rest / 1000) : (rest / 1000).toFixed(3).replace(/0+$/, '');
      out += `${secs}S`;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Zones, dates and times of day
// ---------------------------------------------------------------------------------------------

/** An IANA time zone name luxon (and the runtime's Intl data) knows, e.g. "America/New_York", "UTC". */
export function isValidTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone.length === 0) return false;
  let ok = validZones.get(zone);
  if (ok === undefined) {
    ok = IANAZone.isValidZone(zone); // builds an Intl.DateTimeFormat: slow, hence the memo
    if (validZones.size >= 1000) validZones.clear();
    validZones.set(zone, ok);
  }
  return ok;
}

const validZones = new Map<string, boolean>();

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_RE = /^(?:([01]\d|2[0-3]):([0-5]\d)|24:00)$/;

/** A real calendar date written "YYYY-MM-DD". */
export function isIsoDate(s: unknown): s is string {
  if (typeof s !== 'string') return false;
  const m = DATE_RE.exec(s);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= daysInMonth(y, mo);
}

/** A time of day "HH:MM" from "00:00" to "24:00". */
export function isTimeOfDay(s: unknown): s is string {
  return typeof s === 'string' && TIME_RE.test(s);
}

/** "HH:MM" to minutes after midnight (0..1440). Throws on a malformed time. */
export function timeOfDayToMinutes(s: string): number {
  const known = minutesOfTime.get(s);
  if (known !== undefined) return known;
  if (!isTimeOfDay(s)) throw new Error(`invalid time of day "${s}": expected HH:MM from 00:00 to 24:00`);
  const m = Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));
  minutesOfTime.set(s, m);
  return m;
}

/** Valid times already read (1,441 at most): slot generation reads each schedule's times once per day. */
const minutesOfTime = new Map<string, number>();

/** Minutes after midnight (0..1440) to "HH:MM". */
export function minutesToTimeOfDay(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
}

function daysInMonth(y: number, mo: number): number {
  return new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

function dateParts(date: string): [number, number, number] {
  if (!isIsoDate(date)) throw new Error(`invalid date "${date}": expected YYYY-MM-DD`);
  return [Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10))];
}

/** The calendar date as if it were UTC midnight (used for pure calendar arithmetic). */
function dateAsUtcMs(date: string): number {
  const [y, mo, d] = dateParts(date);
  return Date.UTC(y, mo - 1, d);
}

function utcMsToDate(ms: number): string {
  const dt = new Date(ms);
  const y = dt.getUTCFullYear();
  const ys = y >= 0 && y <= 9999 ? String(y).padStart(4, '0') : String(y);
  return `${ys}-${String(dt.getUTCMonth() + 1).padStart(2, '0')}-${String(dt.getUTCDate()).padStart(2, '0')}`;
}

/** Weekday (lowercase english) of a calendar date; independent of any zone. */
export function weekdayOf(date: string): Weekday {
  const dow = new Date(dateAsUtcMs(date)).getUTCDay(); // 0 = sunday
  return WEEKDAYS[(dow + 6) % 7];
}

/** Calendar arithmetic: `date` plus `n` days (n may be negative). */
export function addDays(date: string, n: number): string {
  return utcMsToDate(dateAsUtcMs(date) + n * DAY_MS);
}

/** Local calendar date of an instant in `zone`. */
export function localDate(ms: number, zone: string): string {
  if (!Number.isFinite(ms) || !isValidTimeZone(zone)) throw new Error(`invalid instant or zone: ${ms} ${zone}`);
  const local = ms + zoneOffset(ms, zone) * MINUTE_MS;
  return utcMsToDate(Math.floor(local / DAY_MS) * DAY_MS);
}

/**
 * Local wall-clock time in `zone` to epoch milliseconds. "24:00" is the next day's "00:00".
 *
 * - Non-existent time (spring-forward gap, e.g. 02:30 on 2026-03-08 in America/New_York): luxon's
 *   default applies, the time is pushed forward by the gap (02:30 -> 03:30 EDT = 07:30Z).
 * - Ambiguous time (fall-back, e.g. 01:30 on 2026-11-01 in America/New_York): the EARLIER instant
 *   (01:30 EDT = 05:30Z), whereas luxon's DateTime.fromObject would pick the later one.
 *
 * Only luxon's zone offsets are used (DateTime construction is much slower), and results are
 * memoised (they are a pure function of the arguments). Assumes no zone changes its offset twice
 * within 24 hours, true of the IANA database for the modern era.
 */
export function localToUtcMs(date: string, time: string, zone: string): number {
  const memoKey = `${zone}|${date}|${time}`;
  const hit = wallMemo.get(memoKey);
  if (hit !== undefined) return hit;
  let minutes = timeOfDayToMinutes(time);
  let day = date;
  if (minutes === 1440) {
    day = addDays(date, 1);
    minutes = 0;
  }
  const [y, mo, d] = dateParts(day);
  if (!isValidTimeZone(zone)) throw new Error(`invalid time zone "${zone}"`);
  const z = IANAZone.create(zone);
  const wall = Date.UTC(y, mo - 1, d, Math.floor(minutes / 60), minutes % 60);
  // The offsets in force a day either side; each one that maps back to this wall time is a reading of it.
  const before = z.offset(wall - DAY_MS);
  const after = before === z.offset(wall + DAY_MS) ? before : z.offset(wall + DAY_MS);
  let result = Number.NaN;
  for (const off of before === after ? [before] : [before, after]) {
    const candidate = wall - off * MINUTE_MS;
    if (z.offset(candidate) === off && !(candidate >= result)) result = candidate;
  }
  // In a gap no offset fits: like luxon, read the wall time with the smaller offset (pushed forward).
  if (Number.isNaN(result)) result = wall - Math.min(before, after) * MINUTE_MS;
  if (wallMemo.size >= 50_000) wallMemo.clear();
  wallMemo.set(memoKey, result);
  return result;
}

const wallMemo = new Map<string, number>();

/**
 * The zone's UTC offset in minutes at `ms`. Asking Intl is slow (it dominated availability answers),
 * so offsets are memoised per zone and UTC hour, but only for hours whose two ends agree: an hour
 * that contains a transition is always asked exactly.
 */
function zoneOffset(ms: number, zone: string): number {
  const hour = Math.floor(ms / HOUR_MS);
  let memo = offsetMemo.get(zone);
  if (!memo) offsetMemo.set(zone, (memo = new Map()));
  const hit = memo.get(hour);
  if (hit !== undefined) return hit;
  const z = IANAZone.create(zone);
  if (!z.isValid) throw new Error(`invalid time zone "${zone}"`);
  const start = z.offset(hour * HOUR_MS);
  const end = z.offset((hour + 1) * HOUR_MS - 1);
  if (start !== end) return z.offset(ms);
  if (memo.size >= 100_000) memo.clear();
  memo.set(hour, start);
  return start;
}

const offsetMemo = new Map<string, Map<number, number>>();
/** Formatted instants per zone: the same slot times are written again on every query. */
const formatMemo = new Map<string, Map<number, string>>();
const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** RFC 3339 in `zone` with its offset and no fractional seconds, e.g. "2026-03-09T09:00:00-04:00" ("Z" in UTC). */
export function formatInstant(ms: number, zone: string): string {
  const whole = Math.floor(ms / 1000) * 1000;
  let memo = formatMemo.get(zone);
  if (!memo) formatMemo.set(zone, (memo = new Map()));
  const hit = memo.get(whole);
  if (hit !== undefined) return hit;
  const text = writeInstant(whole, zone, ms);
  if (memo.size >= 50_000) memo.clear();
  memo.set(whole, text);
  return text;
}

function writeInstant(whole: number, zone: string, ms: number): string {
  const off = Number.isFinite(whole) ? zoneOffset(whole, zone) : Number.NaN;
  const local = new Date(whole + off * MINUTE_MS);
  const y = local.getUTCFullYear();
  if (off === 0 || !Number.isFinite(off) || y < 1000 || y > 9999) {
    // Rare shapes ("Z" for UTC zones, years outside 4 digits): let luxon write them.
    const dt = DateTime.fromMillis(whole, { zone });
    if (!dt.isValid) throw new Error(`invalid instant or zone: ${ms} ${zone}`);
    return dt.toISO({ suppressMilliseconds: true, includeOffset: true }) as string;
  }
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  return (
    `${y}-${pad2(local.getUTCMonth() + 1)}-${pad2(local.getUTCDate())}T${pad2(local.getUTCHours())}:${pad2(local.getUTCMinutes())}:${pad2(local.getUTCSeconds())}` +
    `${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`
  );
}

const INSTANT_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** RFC 3339 date-time with "Z" or a numeric offset to epoch ms; null when malformed or out of range. */
export function parseInstant(s: unknown): number | null {
  if (typeof s !== 'string') return null;
  const m = INSTANT_RE.exec(s);
  if (!m) return null;
  const [, ys, mos, ds, hs, mis, ss, frac, z, sign, oh, om] = m;
  const y = Number(ys);
  const mo = Number(mos);
  const d = Number(ds);
  const h = Number(hs);
  const mi = Number(mis);
  const sec = Number(ss);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return null;
  if (h > 23 || mi > 59 || sec > 59) return null; // leap seconds are not representable in epoch ms
  let offsetMin = 0;
  if (!z) {
    const ohn = Number(oh);
    const omn = Number(om);
    if (ohn > 23 || omn > 59) return null;
    offsetMin = (sign === '-' ? -1 : 1) * (ohn * 60 + omn);
  }
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  const dt = new Date(0);
  dt.setUTCFullYear(y, mo - 1, d); // keeps years 0..99 literal
  dt.setUTCHours(h, mi, sec, ms);
  return dt.getTime() - offsetMin * MINUTE_MS;
}

/** An instant as RFC 3339 UTC without fractional seconds, e.g. "2026-12-01T17:00:00Z". */
export function isoUtc(ms: number): string {
  const s = new Date(ms).toISOString();
  // Years 0000-9999 print as 24 characters; others (±YYYYYY) go through the general form.
  return s.length === 24 ? `${s.slice(0, 19)}Z` : s.replace(/\.\d{3}Z$/, 'Z');
}
