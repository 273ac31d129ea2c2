/**
 * How the MCP texts write instants, money and zones: one formatter per zone and per currency,
 * kept, because building them is costly.
 */
import { formatMoney } from '../../operations/index.js';

/**
 * Intl formatters are costly to build (~130 µs for a DateTimeFormat with a zone, ~70 µs for a
 * currency NumberFormat) and each one holds native ICU memory until it is collected: building one
 * per call made an availability result cost 1 ms more and let the RSS of a busy MCP server grow
 * past 500 MB (bench/mcp.mjs). They are immutable, so one per zone is kept (and one per currency,
 * by formatMoney).
 */
const FORMATTER_CACHE_LIMIT = 100;
const dateFormats = new Map<string, Intl.DateTimeFormat>();

function cached<F>(cache: Map<string, F>, key: string, make: () => F): F {
  let f = cache.get(key);
  if (f === undefined) {
    f = make();
    if (cache.size >= FORMATTER_CACHE_LIMIT) cache.clear();
    cache.set(key, f);
  }
  return f;
}

export function when(iso: unknown, zone: string): string {
  if (typeof iso !== 'string') return 'an unknown time';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const format = cached(
    dateFormats,
    zone,
    () =>
      new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        weekday: 'short',
        month: 'short',
        day: 'numeric',
        year: 'numeric',
        hour: 'numeric',
        minute: '2-digit',
        timeZoneName: 'short',
      }),
  );
  return `${format.format(d)} (${zone})`;
}

export function money(amount: unknown, currency: unknown): string {
  if (typeof amount !== 'number') return '';
  return formatMoney(amount, typeof currency === 'string' ? currency : 'USD');
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();
const clockFormats = new Map<string, Intl.DateTimeFormat>();

/** "Fri 4 Dec" and "9:00" of an instant in `zone`. */
export function dayAndClock(ms: number, zone: string): [string, string] {
  const d = new Date(ms);
  const day = cached(
    dayFormats,
    zone,
    () =>
      new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        year: 'numeric',
      }),
  );
  const clock = cached(
    clockFormats,
    zone,
    () => new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: 'numeric', minute: '2-digit', hourCycle: 'h23' }),
  );
  return [day.format(d).replace(',', ''), clock.format(d).replace(/^0(\d)/, '$1')];
}

/** "New York time (America/New_York)": the city people say, and the zone a program can use. */
export function zoneLabel(zone: string): string {
  const city = zone.split('/').pop()!.replace(/_/g, ' ');
  return zone.includes('/') ? `${city} time (${zone})` : zone;
}

const zoneNames = new Map<string, Intl.DateTimeFormat>();

/** "Thu 3 Dec 2026 10:00 EST": a deadline, compact, with the zone's short name. */
export function shortWhen(ms: number, zone: string): string {
  const f = cached(zoneNames, zone, () => new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' }));
  const name = f.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value ?? zone;
  return `${dayAndClock(ms, zone).join(' ')} ${name}`;
}
