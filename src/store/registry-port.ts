/**
 * The discovery registry's part of the storage port (spec 6): registrations, the service metadata
 * indexed from each registered business's catalog, and the searches over both. Hard filters
 * (spec 6.3.1) are evaluated by the engine, location through a spatial index, so a search reads
 * only the candidates near the point asked about.
 */
import type { BoundingBox, RangeMatch } from '../domain/index.js';

export type DeploymentMode = 'standalone' | 'ucp_native';

/** One registration as the registry keeps it. */
export interface RegistryBusinessRow {
  /** `reg_*`. */
  id: string;
  profile_url: string;
  deployment_mode: DeploymentMode;
  status: 'active' | 'inactive';
  /** The principal that registered (its proof of control named this profile). */
  owner: string | null;
  /** The RegistryEntry as served (without `status`, which the row carries). */
  entry: Record<string, unknown>;
  /** Coordinates of the registration's location; null for virtual-only businesses. */
  lat: number | null;
  lng: number | null;
  /** Lower-cased verticals and categories, for the OR-within-field filters. */
  verticals: string[];
  categories: string[];
  /** Lower-cased name, description and categories, for free-text search. */
  search_text: string;
  name_text: string;
  created_ms: number;
  /** Last successful index of the business's profile and catalog; null before the first. */
  last_indexed_ms: number | null;
  /** When the re-indexer next looks at this business. */
  next_index_ms: number;
  /** Consecutive failed re-fetches of the profile (governance: removal after too many). */
  failures: number;
}

/** One service of a registered business, as indexed from its catalog. */
export interface RegistryServiceRow {
  business_id: string;
  service_id: string;
  /** The catalog service `type` (appointment, group, ...), lower-cased. */
  vertical: string;
  /** Lower-cased category ids, names and values. */
  terms: string[];
  search_text: string;
  name_text: string;
  /** Price interval in minor units of `currency`; null when the service has no indexable price. */
  currency: string | null;
  price_min: number | null;
  price_max: number | null;
  /** Duration interval in minutes; null when undetermined. */
  dur_min: number | null;
  dur_max: number | null;
  lat: number | null;
  lng: number | null;
  /** The ServiceSearchResult without `business` and `last_indexed_at` (added from the business row). */
  result: Record<string, unknown>;
  indexed_ms: number;
}

/** A search's hard filters, already validated and normalized (lower-cased terms, resolved currency). */
export interface RegistryFilter {
  /** Exact radius check; `bbox` is the index window that contains the circle. */
  center?: { lat: number; lng: number; radiusKm: number };
  bbox?: BoundingBox;
  verticals?: string[];
  categories?: string[];
  /** Every token must occur in the searchable text; name hits rank first. */
  tokens?: string[];
  deploymentMode?: DeploymentMode;
  price?: { currency: string; min?: number; max?: number; match: RangeMatch };
  duration?: { min?: number; max?: number; match: RangeMatch };
}

export interface RegistryServiceHit {
  service: RegistryServiceRow;
  business: RegistryBusinessRow;
}

export interface RegistryRepo {
  /** Insert or replace a registration (by id). */
  put(b: RegistryBusinessRow): Promise<void>;
  get(id: string): Promise<RegistryBusinessRow | null>;
  byProfileUrl(url: string): Promise<RegistryBusinessRow | null>;
  /** Remove a registration and every service indexed from it; false when there was none. */
  remove(id: string): Promise<boolean>;
  /** Replace the indexed services of a business with `rows`. */
  replaceServices(businessId: string, rows: readonly RegistryServiceRow[]): Promise<void>;
  services(businessId: string): Promise<RegistryServiceRow[]>;
  /**
   * Active registrations matching every filter, ordered by query score (name hits), then
   * distance from the center, then id; `offset` rows skipped.
   */
  searchBusinesses(f: RegistryFilter, offset: number, limit: number): Promise<RegistryBusinessRow[]>;
  /** Services of active registrations matching every filter, in the same order. */
  searchServices(f: RegistryFilter, offset: number, limit: number): Promise<RegistryServiceHit[]>;
  /** Registrations whose re-index is due, soonest first. */
  due(nowMs: number, limit: number): Promise<RegistryBusinessRow[]>;
  /** Every registration by id, for the admin listing (keyset after `afterId`). */
  list(afterId: string, limit: number): Promise<RegistryBusinessRow[]>;
}
