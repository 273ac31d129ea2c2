/**
 * Resource combinations (USP §4.1, "one slot per resource combination"): one resource per
 * requirement of a service, no resource twice, and the location each combination serves.
 */
import type { ResourceDef, ServiceDef } from './business.js';

/** One resource per requirement of a service, and the location the combination serves. */
export interface Combination {
  resourceIds: string[];
  locationId: string | undefined;
}

/** Orders resource id lists element by element, then shorter first (the order of slots with one start). */
export function compareIds(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * The location a combination serves: the one its resources share (which the service must offer), or
 * the service's only location when no resource has one; not ok when resources sit in different places.
 */
export function combinationLocation(
  service: ServiceDef,
  resources: readonly (ResourceDef | undefined)[],
): { ok: boolean; locationId?: string } {
  let loc: string | undefined;
  for (const r of resources) {
    const l = r?.location_id;
    if (l === undefined) continue;
    if (loc !== undefined && loc !== l) return { ok: false };
    loc = l;
  }
  const offered = service.location_ids;
  if (loc === undefined) return { ok: true, locationId: offered && offered.length === 1 ? offered[0] : undefined };
  if (offered && offered.length > 0 && !offered.includes(loc)) return { ok: false };
  return { ok: true, locationId: loc };
}

/** All combinations (one resource per requirement, no resource twice), in requirement order. */
export function combinations(
  service: ServiceDef,
  resources: ReadonlyMap<string, ResourceDef>,
  only?: readonly string[],
): string[][] {
  const reqs = service.requirements;
  if (only) {
    if (only.length !== reqs.length) return [];
    for (let i = 0; i < reqs.length; i++) {
      if (!reqs[i].resource_ids.includes(only[i]) || !resources.has(only[i])) return [];
    }
    return new Set(only).size === only.length ? [[...only]] : [];
  }
  let acc: string[][] = [[]];
  for (const req of reqs) {
    const ids = [...new Set(req.resource_ids)].filter((id) => resources.has(id));
    const next: string[][] = [];
    for (const partial of acc) {
      for (const id of ids) if (!partial.includes(id)) next.push([...partial, id]);
    }
    acc = next;
    if (acc.length === 0) break;
  }
  return acc;
}
