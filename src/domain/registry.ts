/**
 * The discovery registry's pure rules (spec 6.3.1): how a catalog service becomes the intervals the
 * hard filters compare (price within its currency, duration in minutes), the flat category a
 * search result shows, distances on the sphere and the bounding box a radius search starts from.
 * The stores evaluate the range filters themselves, in SQL.
 */
import { parseDuration, MINUTE_MS } from './time.js';
import { primaryCategory } from './catalog.js';

export type RangeMatch = 'overlap' | 'contained' | 'contains' | 'equals';

/** Half the Earth's circumference: no two points are further apart, so no useful radius is larger. */
export const MAX_RADIUS_KM = 20_037.5;
const EARTH_RADIUS_KM = 6371.0088;

/** The price interval of a catalog service in its own currency: free is [0, 0]; none when not indexable. */
export function priceInterval(service: Record<string, unknown>): { currency: string; min: number; max: number } | null {
  const p = service.pricing as Record<string, unknown> | undefined;
  if (!p || typeof p !== 'object') return null;
  const currency = typeof p.currency === 'string' ? p.currency.toUpperCase() : null;
  if (p.model === 'free') return currency ? { currency, min: 0, max: 0 } : null;
  if (!currency) return null;
  if (p.model === 'fixed' && Number.isInteger(p.amount))
    return { currency, min: p.amount as number, max: p.amount as number };
  const r = p.price_range as { min?: unknown; max?: unknown } | undefined;
  if (r && Number.isInteger(r.min) && Number.isInteger(r.max) && (r.min as number) <= (r.max as number)) {
    return { currency, min: r.min as number, max: r.max as number };
  }
  // A published amount without a range (hourly or per person with one rate) is still a point.
  if (Number.isInteger(p.amount)) return { currency, min: p.amount as number, max: p.amount as number };
  return null;
}

/** The duration interval in whole minutes: fixed [d, d], range [min, max]; none when undetermined or absent. */
export function durationInterval(service: Record<string, unknown>): { min: number; max: number } | null {
  const d = service.duration as Record<string, unknown> | undefined;
  if (!d || typeof d !== 'object' || d.undetermined === true) return null;
  const minutes = (v: unknown): number | null => {
    if (typeof v !== 'string') return null;
    try {
      return Math.round(parseDuration(v) / MINUTE_MS);
    } catch {
      return null;
    }
  };
  const fixed = minutes(d.fixed);
  if (fixed !== null) return { min: fixed, max: fixed };
  const r = d.range as { min?: unknown; max?: unknown } | undefined;
  const lo = minutes(r?.min);
  const hi = minutes(r?.max);
  return lo !== null && hi !== null && lo <= hi ? { min: lo, max: hi } : null;
}

/**
 * The flat `category` of a search result (spec 6.3): the primary entry's name, else its value, else
 * its id; else the first entry's value; else the service type.
 */
export function flatCategory(service: Record<string, unknown>): string {
  const cats = (service.categories as Array<Record<string, unknown>> | undefined) ?? [];
  const primary = primaryCategory({ categories: cats });
  for (const k of ['name', 'value', 'id'] as const)
    if (primary && typeof primary[k] === 'string') return primary[k] as string;
  if (cats[0] && typeof cats[0].value === 'string') return cats[0].value;
  return String(service.type ?? 'service');
}

/**
 * Category terms a `categories[]` filter matches (spec 6.3, ServiceSearchRequest): every entry's id,
 * plus names and values, lower-cased, so `cat_hair`, `Hair` and a Google value all find the service.
 */
export function categoryTerms(service: Record<string, unknown>): string[] {
  const out = new Set<string>();
  for (const c of (service.categories as Array<Record<string, unknown>> | undefined) ?? []) {
    for (const k of ['id', 'name', 'value', 'parent_id'])
      if (typeof c[k] === 'string') out.add((c[k] as string).toLowerCase());
  }
  return [...out];
}

/** Great-circle distance in kilometres (haversine). */
export function distanceKm(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

export interface BoundingBox {
  minLat: number;
  maxLat: number;
  minLng: number;
  maxLng: number;
}

/**
 * A box that contains every point within `radiusKm` of `center` (the exact distance is checked
 * after it). Near a pole, or across the antimeridian, it widens to every longitude.
 */
export function boundingBox(center: { lat: number; lng: number }, radiusKm: number): BoundingBox {
  const dLat = (radiusKm / EARTH_RADIUS_KM) * (180 / Math.PI);
  const minLat = Math.max(-90, center.lat - dLat);
  const maxLat = Math.min(90, center.lat + dLat);
  const cosLat = Math.min(Math.cos(minLat * (Math.PI / 180)), Math.cos(maxLat * (Math.PI / 180)));
  const dLng = cosLat <= 1e-9 ? 360 : (radiusKm / (EARTH_RADIUS_KM * cosLat)) * (180 / Math.PI);
  let minLng = center.lng - dLng;
  let maxLng = center.lng + dLng;
  if (minLng < -180 || maxLng > 180 || maxLat >= 90 || minLat <= -90) {
    minLng = -180;
    maxLng = 180;
  }
  return { minLat, maxLat, minLng, maxLng };
}

/** Lower-cased word tokens of a free-text query (at most 8, each at least 2 characters). */
export function queryTokens(query: string): string[] {
  const words = query
    .toLowerCase()
    .normalize('NFKC')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 2);
  return [...new Set(words)].slice(0, 8);
}
