/**
 * Local days and working time: the local dates of a zone as instants (one zone lookup per zone and
 * date, memoised: results are deterministic; per time only on a day with a UTC-offset change), and a
 * schedule's working time over those days, with dated exceptions and time off applied.
 */
import type { LocalInterval, ResourceDef, Weekday, WeeklyHours } from './business.js';
import { mergeIntervals, subtractIntervals, type Iv } from './intervals.js';
import {
  DAY_MS,
  MINUTE_MS,
  addDays,
  isTimeOfDay,
  localToUtcMs,
  minutesToTimeOfDay,
  parseInstant,
  timeOfDayToMinutes,
  weekdayOf,
} from './time.js';

/** One local date in a zone, with its bounds as instants. */
export interface DayInfo {
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

/** The local `date` in `zone`, memoised per zone and date (the cache is cleared past DAY_CACHE_LIMIT entries). */
export function dayInfo(zone: string, date: string): DayInfo {
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

/** The instant of `minutes` past local midnight of `day` (1440 is the next midnight). */
function wallToUtc(zone: string, day: DayInfo, minutes: number): number {
  if (minutes === 1440) return day.endMs;
  if (day.uniform) return day.startMs + minutes * MINUTE_MS;
  return localToUtcMs(day.date, minutesToTimeOfDay(minutes), zone);
}

/** Minutes [opens, closes) of a local interval, or null if malformed or empty. */
export function intervalMinutes(iv: LocalInterval): [number, number] | null {
  if (!iv || !isTimeOfDay(iv.opens) || !isTimeOfDay(iv.closes)) return null;
  const o = timeOfDayToMinutes(iv.opens);
  const c = timeOfDayToMinutes(iv.closes);
  return c > o ? [o, c] : null;
}

/** Appends the UTC intervals of one day's local `hours` to `out` (malformed or empty ones skipped). */
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

/** Where working time comes from: weekly hours, with dated exceptions and time off for a resource. */
export interface ScheduleSource {
  schedule: WeeklyHours | undefined;
  exceptions?: ResourceDef['exceptions'];
  time_off?: ResourceDef['time_off'];
}

/** Working time of one schedule over the expanded days: exceptions replace weekly hours, then time off is removed. */
export function workingTime(src: ScheduleSource, days: readonly DayInfo[], zone: string): Iv[] {
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
