/**
 * Categories as the business file has them: labels on each service (`services[].categories`, spec
 * 3.3), not a list of their own. A category is named by its taxonomy and id; the category operations
 * add one to services, change it on every service that carries it (and which services do), or take it
 * off them all, each as one edit of the business file checked with the file's messages.
 */
import type { BusinessDef } from '../../domain/index.js';
import { invalidRequest } from '../core/errors.js';

type Json = Record<string, unknown>;

/** Which category: its taxonomy (default `merchant`, the business's own) and its id there. */
export interface CategoryKey {
  taxonomy: string;
  id: string;
}

export interface CategoryInUse {
  category: Json;
  service_ids: string[];
}

const MERCHANT = 'merchant';

export const keyOf = (id: string, taxonomy?: string): CategoryKey => ({ id, taxonomy: taxonomy || MERCHANT });
const matches = (c: Json, k: CategoryKey) => c.id === k.id && c.taxonomy === k.taxonomy;
const label = (k: CategoryKey) => (k.taxonomy === MERCHANT ? k.id : `${k.taxonomy}/${k.id}`);

/** Every category with an id that some service carries, in the order first met, with its services. */
export function categoriesInUse(def: Pick<BusinessDef, 'services'>): CategoryInUse[] {
  const out = new Map<string, CategoryInUse>();
  for (const s of def.services) {
    for (const c of (s.categories ?? []) as Json[]) {
      if (typeof c.id !== 'string') continue;
      const key = `${String(c.taxonomy)}\n${c.id}`;
      const seen = out.get(key) ?? { category: c, service_ids: [] };
      if (!seen.service_ids.includes(s.id)) seen.service_ids.push(s.id);
      out.set(key, seen);
    }
  }
  return [...out.values()];
}

/** The services of `doc` (the business file being edited) by id; an unknown id is an issue on `service_ids[i]`. */
function servicesNamed(doc: Json, ids: readonly string[]): Json[] {
  const services = doc.services as Json[];
  const unknown = ids.map((id, i) => ({ id, i })).filter(({ id }) => !services.some((s) => s.id === id));
  if (unknown.length > 0) {
    throw invalidRequest(
      unknown.map(({ id, i }) => `service_ids[${i}]: no service ${id} in this business`).join('; '),
      unknown.map(({ i }) => ({ field: `service_ids[${i}]`, message: 'unknown service' })),
    );
  }
  return services.filter((s) => ids.includes(s.id as string));
}

/** The paths, in the business file, of the category's entries: what the file's issues are named relative to. */
function entryPaths(doc: Json, k: CategoryKey): string[] {
  return (doc.services as Json[]).flatMap((s, i) =>
    ((s.categories ?? []) as Json[]).flatMap((c, j) => (matches(c, k) ? [`services[${i}].categories[${j}]`] : [])),
  );
}

/** Add a new category to the services named; answers the paths of the new entries. */
export function addCategory(doc: Json, k: CategoryKey, entry: Json, serviceIds: readonly string[]): string[] {
  const carrying = (doc.services as Json[]).filter((s) => ((s.categories ?? []) as Json[]).some((c) => matches(c, k)));
  if (carrying.length > 0) {
    throw invalidRequest(
      `id: category ${label(k)} already exists (on ${carrying.map((s) => s.id).join(', ')}); change it with PATCH /admin/categories/${k.id}`,
      [{ field: 'id', message: `category ${label(k)} already exists` }],
    );
  }
  for (const s of servicesNamed(doc, serviceIds))
    s.categories = [...((s.categories ?? []) as Json[]), { ...entry, taxonomy: k.taxonomy, id: k.id }];
  return entryPaths(doc, k);
}

/**
 * Change a category on every service carrying it (`change` makes the new entry from the old), and
 * when `serviceIds` is given, put it on exactly those services (new ones get the changed entry).
 */
export function changeCategory(
  doc: Json,
  k: CategoryKey,
  change: (current: Json) => Json,
  serviceIds?: readonly string[],
): string[] {
  const services = doc.services as Json[];
  const first = services.flatMap((s) => (s.categories ?? []) as Json[]).find((c) => matches(c, k));
  if (!first)
    throw invalidRequest(
      `category_id: no category ${label(k)} on any service`,
      [{ field: 'category_id', message: 'unknown category' }],
      'not_found',
    );
  const next = change(first);
  if (next.id !== k.id || next.taxonomy !== k.taxonomy) {
    throw invalidRequest("id: a category's id and taxonomy cannot change (add the new one, then delete this one)", [
      { field: 'id', message: 'cannot change' },
    ]);
  }
  const wanted = serviceIds ? new Set(servicesNamed(doc, serviceIds).map((s) => s.id)) : undefined;
  for (const s of services) {
    const list = (s.categories ?? []) as Json[];
    const has = list.some((c) => matches(c, k));
    if (wanted && !wanted.has(s.id)) {
      if (has) s.categories = list.filter((c) => !matches(c, k));
    } else if (has) s.categories = list.map((c) => (matches(c, k) ? change(c) : c));
    else if (wanted) s.categories = [...list, next];
  }
  return entryPaths(doc, k);
}

/** Take a category off every service; answers the ids of the services it was on. */
export function removeCategory(doc: Json, k: CategoryKey): string[] {
  const from: string[] = [];
  for (const s of doc.services as Json[]) {
    const list = (s.categories ?? []) as Json[];
    if (!list.some((c) => matches(c, k))) continue;
    from.push(s.id as string);
    const rest = list.filter((c) => !matches(c, k));
    if (rest.length > 0) s.categories = rest;
    else delete s.categories;
  }
  if (from.length === 0)
    throw invalidRequest(
      `category_id: no category ${label(k)} on any service`,
      [{ field: 'category_id', message: 'unknown category' }],
      'not_found',
    );
  return from;
}
