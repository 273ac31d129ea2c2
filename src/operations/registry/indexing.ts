/**
 * Reading a business for the registry: its profile (reachable, valid, of the declared deployment
 * mode) and its catalog through its own REST door (`GET /services/feed`, then each service for its
 * availability hint), turned into the rows the registry searches. Network only, no store: callers
 * fetch first and write in a short transaction afterwards.
 */
import {
  categoryTerms,
  durationInterval,
  flatCategory,
  priceInterval,
  searchableText,
  type PublishedService,
} from '../../domain/index.js';
import type { DeploymentMode, RegistryBusinessRow, RegistryServiceRow } from '../../store/index.js';
import { ProtocolError, invalidRequest } from '../core/errors.js';
import { iso } from '../core/context.js';
import { canonicalArguments } from '../../security/index.js';
import type { FetchFailure, RegistryEnv } from './env.js';
import type { RegistrationInput } from './schemas.js';

/** Catalog pages read per index (500 services each) and services whose hint is fetched. */
const MAX_FEED_PAGES = 20;
const MAX_HINT_FETCHES = 100;
/**
 * Every fetch one registration (or one re-index) may cause, whatever the documents say: the
 * profile, the REST endpoint's own profile, catalog pages, then hints with what is left.
 */
export const MAX_FETCHES_PER_INDEX = 64;

/** Where a REST endpoint serves its own profile, by deployment mode. */
const OWN_PROFILE_PATH: Record<DeploymentMode, string> = {
  standalone: '/.well-known/usp',
  ucp_native: '/.well-known/ucp',
};

/** `fetchJson` counted: at most `max` calls, then `spent()` is true and every further call throws. */
function budget(env: RegistryEnv, max: number): { fetchJson: RegistryEnv['fetchJson']; spent(): boolean } {
  let used = 0;
  return {
    fetchJson: (url) => {
      if (used >= max) return Promise.reject(new Error(`more than ${max} fetches for one index`));
      used++;
      return env.fetchJson(url);
    },
    spent: () => used >= max,
  };
}

export interface FetchedBusiness {
  /** The REST endpoint the business's profile names. */
  endpoint: string;
  /** The profile document as fetched (its capabilities say whether feed subscriptions are offered). */
  profile: Record<string, unknown>;
  services: Array<Record<string, unknown>>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The same URL, spelled one way (for comparing a registration's URL with a caller's profile). */
export function normalizeUrl(raw: string): string {
  try {
    const u = new URL(raw);
    u.hash = '';
    return u.href;
  } catch {
    return raw;
  }
}

function fetchError(err: unknown, what: string): ProtocolError {
  const code = (err as Partial<FetchFailure>).code;
  const detail = (err as Error).message ?? String(err);
  if (code === 'invalid_profile_url')
    return invalidRequest(
      `profile_url ${detail.replace(/^the profile URL /, '')}.`,
      [{ field: 'profile_url', message: detail }],
      'invalid_profile_url',
    );
  if (code === 'profile_malformed')
    return invalidRequest(
      `The ${what} is not a JSON object.`,
      [{ field: 'profile_url', message: detail }],
      'profile_invalid',
    );
  if (code === 'profile_unreachable' || code === 'profile_not_trusted') {
    return new ProtocolError('profile_unreachable', `The ${what} could not be fetched: ${detail}.`, {
      detailCode: 'profile_unreachable',
    });
  }
  throw err;
}

/** The business's REST endpoint from its profile, after checking that the profile fits the declared mode. */
function restEndpointOf(doc: Record<string, unknown>, mode: DeploymentMode): string {
  const mismatch = (msg: string) =>
    invalidRequest(msg, [{ field: 'deployment_mode', message: msg }], 'deployment_mode_mismatch');
  const invalid = (msg: string) => invalidRequest(msg, [{ field: 'profile_url', message: msg }], 'profile_invalid');
  // Standalone profiles are USP documents (spec 8.2); UCP-native ones are UCP documents (spec 7.2).
  const root = mode === 'standalone' ? doc.usp : doc.ucp;
  if (!isObject(root)) {
    const other = mode === 'standalone' ? isObject(doc.ucp) : isObject(doc.usp);
    if (other)
      throw mismatch(
        `deployment_mode is ${mode}, but the profile is a ${mode === 'standalone' ? 'UCP' : 'standalone USP'} profile.`,
      );
    throw invalid(
      `The document at profile_url is not a ${mode === 'standalone' ? 'USP' : 'UCP'} profile (no ${mode === 'standalone' ? 'usp' : 'ucp'} object).`,
    );
  }
  if (typeof root.version !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(root.version))
    throw invalid('The profile has no version (YYYY-MM-DD).');
  if (
    !isObject(root.capabilities) ||
    !Object.keys(root.capabilities).some((k) => k.startsWith('dev.usp-protocol.services'))
  ) {
    throw invalid('The profile declares no USP service capability (dev.usp-protocol.services.*).');
  }
  const services = isObject(root.services) ? root.services['dev.usp-protocol.services'] : undefined;
  const bindings = Array.isArray(services) ? services.filter(isObject) : [];
  const rest = bindings.find((b) => b.transport === 'rest' && typeof b.endpoint === 'string');
  if (!rest)
    throw invalid(
      'The profile names no REST endpoint for dev.usp-protocol.services: the registry indexes the catalog through it.',
    );
  return (rest.endpoint as string).replace(/\/$/, '');
}

/**
 * Fetch and check the profile, check that its REST endpoint is the business's own, then read the
 * catalog: at most MAX_FETCHES_PER_INDEX fetches in all.
 */
export async function fetchBusiness(
  env: RegistryEnv,
  profileUrl: string,
  mode: DeploymentMode,
): Promise<FetchedBusiness> {
  const counted = budget(env, MAX_FETCHES_PER_INDEX);
  let doc: Record<string, unknown>;
  try {
    doc = await counted.fetchJson(profileUrl);
  } catch (err) {
    throw fetchError(err, 'profile');
  }
  const endpoint = restEndpointOf(doc, mode);
  await checkOwnEndpoint(counted, endpoint, profileUrl, doc, mode);
  const services = await fetchCatalog(counted, endpoint);
  return { endpoint, profile: doc, services };
}

/**
 * A profile may name any REST endpoint, another business's included: the registry would then index
 * that business's catalog under the registrant's name. The endpoint's own profile must be the one
 * being registered: the same URL, or a document identical to it (a mirror on another host).
 */
async function checkOwnEndpoint(
  env: Pick<RegistryEnv, 'fetchJson'>,
  endpoint: string,
  profileUrl: string,
  doc: Record<string, unknown>,
  mode: DeploymentMode,
): Promise<void> {
  const own = `${endpoint}${OWN_PROFILE_PATH[mode]}`;
  if (normalizeUrl(own) === normalizeUrl(profileUrl)) return;
  let theirs: Record<string, unknown>;
  try {
    theirs = await env.fetchJson(own);
  } catch (err) {
    throw fetchError(err, "REST endpoint's own profile");
  }
  if (canonicalArguments(theirs) !== canonicalArguments(doc)) {
    const msg = `The REST endpoint ${endpoint} serves another profile at ${own}: register the business whose endpoint it is, at its own profile.`;
    throw invalidRequest(
      msg,
      [{ field: 'profile_url', message: 'its REST endpoint belongs to another profile' }],
      'endpoint_profile_mismatch',
    );
  }
}

async function fetchCatalog(
  env: Pick<RegistryEnv, 'fetchJson'> & { spent(): boolean },
  endpoint: string,
): Promise<Array<Record<string, unknown>>> {
  const byId = new Map<string, Record<string, unknown>>();
  let cursor: string | null = null;
  for (let page = 0; page < MAX_FEED_PAGES; page++) {
    const url = `${endpoint}/services/feed?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    let body: Record<string, unknown>;
    try {
      body = await env.fetchJson(url);
    } catch (err) {
      throw fetchError(err, 'catalog feed');
    }
    const items = Array.isArray(body.items) ? body.items.filter(isObject) : null;
    if (!items)
      throw invalidRequest(
        'The business catalog feed has no items list.',
        [{ field: 'profile_url', message: 'catalog feed without items' }],
        'catalog_invalid',
      );
    for (const item of items) {
      const data = item.data;
      if (!isObject(data) || typeof data.id !== 'string') continue;
      if (item.state === 'deleted' || (data.status !== undefined && data.status !== 'active')) byId.delete(data.id);
      else byId.set(data.id, data);
    }
    const p = isObject(body.pagination) ? body.pagination : {};
    const next = typeof p.next_cursor === 'string' ? p.next_cursor : typeof p.cursor === 'string' ? p.cursor : null;
    if (p.has_more !== true || !next || next === cursor || env.spent()) break;
    cursor = next;
  }
  // The hint is computed live by the business: read it from each service, a bounded number of them.
  let fetched = 0;
  for (const [id, data] of byId) {
    if (fetched++ >= MAX_HINT_FETCHES || env.spent()) break;
    try {
      const one = await env.fetchJson(`${endpoint}/services/${encodeURIComponent(id)}`);
      const hint = isObject(one.service) ? one.service.availability_hint : undefined;
      if (isObject(hint)) byId.set(id, { ...data, availability_hint: hint });
    } catch {
      // A missing hint is not a failed index: the hint is optional.
    }
  }
  return [...byId.values()];
}

const CHANNELS_WITH_PLACE = new Set(['at_business_location', 'hybrid']);
const CHANNELS_WITHOUT_PLACE = new Set(['virtual', 'phone']);

const channelOf = (s: Record<string, unknown>): string | undefined =>
  isObject(s.channel) && typeof s.channel.type === 'string' ? s.channel.type : undefined;

/** A location is required when any service is delivered at the business or hybrid (spec 6.1). */
export function checkLocation(
  input: Pick<RegistrationInput, 'location'>,
  services: ReadonlyArray<Record<string, unknown>>,
): void {
  const needs = services.some((s) => CHANNELS_WITH_PLACE.has(channelOf(s) ?? ''));
  if (needs && !input.location?.coordinates) {
    throw invalidRequest(
      'location with coordinates is required: the business offers services at its location.',
      [{ field: 'location', message: 'required for at_business_location or hybrid services' }],
      'location_required',
    );
  }
  const c = input.location?.coordinates;
  if (c && (!(Math.abs(c.lat) <= 90) || !(Math.abs(c.lng) <= 180))) {
    throw invalidRequest('location.coordinates must be a latitude within ±90 and a longitude within ±180.', [
      { field: 'location.coordinates', message: 'out of range' },
    ]);
  }
}

const clean = (words: readonly string[]) => [
  ...new Set(
    words
      .map((w) =>
        w
          .trim()
          .toLowerCase()
          .replace(/[\u0000-\u001f]/g, ' '),
      )
      .filter(Boolean),
  ),
];

/** The registration row for `input` (everything but the index timestamps, set by the caller). */
export function registrationRow(
  id: string,
  input: RegistrationInput,
  opts: { owner: string | null; createdMs: number; nowMs: number; nextIndexMs: number; indexed: boolean },
): RegistryBusinessRow {
  const entry: Record<string, unknown> = {
    id,
    profile_url: input.profile_url,
    deployment_mode: input.deployment_mode,
    name: input.name,
    ...(input.description !== undefined ? { description: input.description } : {}),
    verticals: input.verticals,
    categories: input.categories,
    ...(input.location !== undefined ? { location: input.location } : {}),
    timezone: input.timezone,
    created_at: iso(opts.createdMs),
  };
  const c = input.location?.coordinates;
  return {
    id,
    profile_url: input.profile_url,
    deployment_mode: input.deployment_mode,
    status: 'active',
    owner: opts.owner,
    entry,
    lat: c ? c.lat : null,
    lng: c ? c.lng : null,
    verticals: clean(input.verticals),
    categories: clean(input.categories),
    search_text: [input.name, input.description ?? '', ...input.categories, ...input.verticals].join(' ').toLowerCase(),
    name_text: input.name.toLowerCase(),
    created_ms: opts.createdMs,
    last_indexed_ms: opts.indexed ? opts.nowMs : null,
    next_index_ms: opts.nextIndexMs,
    failures: 0,
  };
}

/** The indexed rows of a business's catalog services. */
export function serviceRows(
  b: RegistryBusinessRow,
  services: ReadonlyArray<Record<string, unknown>>,
  nowMs: number,
): RegistryServiceRow[] {
  const entry = b.entry as {
    location?: { address?: string; coordinates?: { lat: number; lng: number } };
    timezone: string;
    name: string;
  };
  const rows: RegistryServiceRow[] = [];
  for (const s of services) {
    if (typeof s.id !== 'string' || typeof s.name !== 'string') continue;
    const channel = channelOf(s);
    const own = Array.isArray(s.locations) ? (s.locations as unknown[]).filter(isObject)[0] : undefined;
    const ownCoords =
      own &&
      isObject(own.coordinates) &&
      typeof own.coordinates.lat === 'number' &&
      typeof own.coordinates.lng === 'number'
        ? (own.coordinates as { lat: number; lng: number })
        : undefined;
    // Virtual and phone services have no place, whatever the business's address (spec 6.3.1).
    const coords =
      channel && CHANNELS_WITHOUT_PLACE.has(channel) ? undefined : (ownCoords ?? entry.location?.coordinates);
    const address = own && typeof own.address === 'string' ? own.address : entry.location?.address;
    const price = priceInterval(s);
    const duration = durationInterval(s);
    const result: Record<string, unknown> = {
      service_id: s.id,
      service_name: s.name,
      category: flatCategory(s),
      ...(duration ? { duration_minutes: duration.min } : {}),
      pricing: isObject(s.pricing) ? s.pricing : { model: 'quote' },
      ...(coords
        ? { location: { ...(address ? { address } : {}), coordinates: { lat: coords.lat, lng: coords.lng } } }
        : {}),
      timezone: entry.timezone,
      ...(isObject(s.availability_hint) ? { availability_hint: s.availability_hint } : {}),
    };
    rows.push({
      business_id: b.id,
      service_id: s.id,
      vertical: String(s.type ?? '').toLowerCase(),
      terms: categoryTerms(s),
      search_text: `${searchableText(s as PublishedService)} ${entry.name.toLowerCase()}`,
      name_text: s.name.toLowerCase(),
      currency: price?.currency ?? null,
      price_min: price?.min ?? null,
      price_max: price?.max ?? null,
      dur_min: duration?.min ?? null,
      dur_max: duration?.max ?? null,
      lat: coords?.lat ?? null,
      lng: coords?.lng ?? null,
      result,
      indexed_ms: nowMs,
    });
  }
  return rows;
}

/** The RegistryEntry as served: the stored entry plus its status. */
export function presentEntry(b: RegistryBusinessRow): Record<string, unknown> {
  return { ...b.entry, status: b.status };
}
