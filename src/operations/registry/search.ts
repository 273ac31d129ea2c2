/**
 * From a search request to the store's hard filters (spec 6.2, 6.3, 6.3.1): the required-filter
 * rule, the geographic window, the resolved match currency, range bounds; and opaque cursors that
 * are only valid for the same filters. Refusals are `validation_error` outcomes with an empty
 * result, as the spec asks; no hits is an empty result without messages.
 */
import { boundingBox, errorMessage, queryTokens, MAX_RADIUS_KM, type Message } from '../../domain/index.js';
import type { RegistryFilter } from '../../store/index.js';
import { decodeCursor, encodeCursor } from '../schemas.js';
import { hashOf } from '../core/call-input.js';

export const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

type Range = { min?: number; max?: number; match?: 'overlap' | 'contained' | 'contains' | 'equals' };

export interface SearchInput {
  location?: { coordinates?: { lat: number; lng: number }; radius_km?: number };
  verticals?: string[];
  categories?: string[];
  query?: string;
  deployment_mode?: 'standalone' | 'ucp_native';
  context?: { locale?: string; currency?: string };
  pagination?: { cursor?: string | null; limit?: number };
  price_range?: Range & { currency?: string };
  duration_range?: { min_minutes?: number; max_minutes?: number; match?: Range['match'] };
}

export type Planned =
  | { ok: true; filter: RegistryFilter; offset: number; limit: number; fingerprint: string }
  | { ok: false; message: Message };

const refuse = (content: string, path: string): Planned => ({
  ok: false,
  message: errorMessage('validation_error', content, path),
});
const terms = (list: readonly string[] | undefined) => [
  ...new Set((list ?? []).map((v) => v.trim().toLowerCase()).filter(Boolean)),
];

export function planSearch(inp: SearchInput, kind: 'business' | 'service'): Planned {
  const filter: RegistryFilter = {};
  if (inp.location !== undefined) {
    const c = inp.location.coordinates;
    const r = inp.location.radius_km;
    if (!c) return refuse('location needs coordinates {lat, lng}.', '$.location.coordinates');
    if (r === undefined) return refuse('location needs radius_km.', '$.location.radius_km');
    if (!(Math.abs(c.lat) <= 90) || !(Math.abs(c.lng) <= 180))
      return refuse('coordinates must be a latitude within ±90 and a longitude within ±180.', '$.location.coordinates');
    if (!Number.isFinite(r) || r < 0 || r > MAX_RADIUS_KM)
      return refuse(
        `radius_km must be between 0 and ${MAX_RADIUS_KM} km (half the Earth's circumference).`,
        '$.location.radius_km',
      );
    filter.center = { lat: c.lat, lng: c.lng, radiusKm: r };
    filter.bbox = boundingBox(c, r);
  }
  const verticals = terms(inp.verticals);
  if (verticals.length > 0) filter.verticals = verticals;
  const categories = terms(inp.categories);
  if (categories.length > 0) filter.categories = categories;
  if (inp.query !== undefined && inp.query.trim() !== '') {
    const tokens = queryTokens(inp.query);
    if (tokens.length === 0) return refuse('query has no word of two or more letters or digits.', '$.query');
    filter.tokens = tokens;
  }
  if (kind === 'business' && inp.deployment_mode) filter.deploymentMode = inp.deployment_mode;
  if (kind === 'service' && inp.price_range) {
    const p = inp.price_range;
    const currency = (p.currency ?? inp.context?.currency)?.trim().toUpperCase();
    // Within one currency, never converted: without a currency the filter means nothing (spec 6.3.1).
    if (!currency)
      return refuse(
        'price_range needs a currency: give price_range.currency (or context.currency).',
        '$.price_range.currency',
      );
    if (!/^[A-Z]{3}$/.test(currency))
      return refuse('price_range.currency must be an ISO 4217 code such as USD.', '$.price_range.currency');
    if (p.min !== undefined && p.max !== undefined && p.min > p.max)
      return refuse('price_range.min must not exceed price_range.max.', '$.price_range');
    filter.price = { currency, min: p.min, max: p.max, match: p.match ?? 'overlap' };
  }
  if (kind === 'service' && inp.duration_range) {
    const d = inp.duration_range;
    if (d.min_minutes !== undefined && d.max_minutes !== undefined && d.min_minutes > d.max_minutes) {
      return refuse('duration_range.min_minutes must not exceed max_minutes.', '$.duration_range');
    }
    filter.duration = { min: d.min_minutes, max: d.max_minutes, match: d.match ?? 'overlap' };
  }
  const hasFilter = Object.keys(filter).length > 0;
  if (!hasFilter) {
    const fields =
      kind === 'business'
        ? 'location, verticals, categories, query or deployment_mode'
        : 'location, verticals, categories, query, price_range or duration_range';
    return refuse(`Give at least one search filter (${fields}); pagination and context alone do not filter.`, '$');
  }
  const fingerprint = hashOf({ kind, filter }).slice(0, 16);
  let offset = 0;
  const cursor = inp.pagination?.cursor;
  if (cursor) {
    const c = decodeCursor(cursor);
    if (!c || c.f !== fingerprint || !Number.isInteger(c.o) || (c.o as number) < 0) {
      return refuse(
        'pagination.cursor belongs to a different search; repeat the search with the same filters, or drop the cursor.',
        '$.pagination.cursor',
      );
    }
    offset = c.o as number;
  }
  const limit = Math.min(MAX_LIMIT, inp.pagination?.limit ?? DEFAULT_LIMIT);
  return { ok: true, filter, offset, limit, fingerprint };
}

/** The pagination member of a result page fetched with one row more than `limit`. */
export function page<T>(
  rows: T[],
  planned: Extract<Planned, { ok: true }>,
): { items: T[]; pagination: Record<string, unknown> } {
  const hasMore = rows.length > planned.limit;
  const items = rows.slice(0, planned.limit);
  const cursor = hasMore ? encodeCursor({ f: planned.fingerprint, o: planned.offset + planned.limit }) : null;
  return { items, pagination: { cursor, has_more: hasMore } };
}
