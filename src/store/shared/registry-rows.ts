/**
 * Registry rows as both engines hand them over (PostgreSQL's int8 and float8 as strings or
 * numbers, SQLite's as numbers): one mapping to the port's types.
 */
import type { RegistryBusinessRow, RegistryServiceRow } from '../registry-port.js';

const split = (s: string): string[] => (s === '' ? [] : s.split('\n'));
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export function toRegistryBusiness(r: any): RegistryBusinessRow {
  return {
    id: r.id,
    profile_url: r.profile_url,
    deployment_mode: r.deployment_mode,
    status: r.status,
    owner: r.owner,
    entry: JSON.parse(r.entry),
    lat: num(r.lat),
    lng: num(r.lng),
    verticals: split(r.verticals),
    categories: split(r.categories),
    search_text: r.search_text,
    name_text: r.name_text,
    created_ms: Number(r.created_ms),
    last_indexed_ms: num(r.last_indexed_ms),
    next_index_ms: Number(r.next_index_ms),
    failures: Number(r.failures),
  };
}

export function toRegistryService(r: any): RegistryServiceRow {
  return {
    business_id: r.business_id,
    service_id: r.service_id,
    vertical: r.vertical,
    terms: split(r.terms),
    search_text: r.search_text,
    name_text: r.name_text,
    currency: r.currency,
    price_min: num(r.price_min),
    price_max: num(r.price_max),
    dur_min: num(r.dur_min),
    dur_max: num(r.dur_max),
    lat: num(r.lat),
    lng: num(r.lng),
    result: JSON.parse(r.result),
    indexed_ms: Number(r.indexed_ms),
  };
}
