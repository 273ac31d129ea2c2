/**
 * The published catalog: USP Service objects (spec 3.3) derived from the business definition.
 * `availability_hint` is added by the availability engine, since it depends on bookings.
 */
import type { BusinessDef, ResourceDef, ServiceDef } from './business.js';

export type PublishedService = Record<string, unknown> & { id: string; name: string; type: string };

/** Members of ServiceDef that describe delivery and are never published as such. */
const PRIVATE_MEMBERS = new Set(['requirements', 'location_ids', 'hours']);

export function publishService(def: ServiceDef, biz: BusinessDef): PublishedService {
  const out: Record<string, unknown> = { id: def.id, business_id: biz.business.id };
  for (const [k, v] of Object.entries(def)) {
    if (k === 'id' || PRIVATE_MEMBERS.has(k) || v === undefined) continue;
    out[k] = v;
  }
  if (!out.status) out.status = 'active';
  const resourcesById = new Map(biz.resources.map((r) => [r.id, r] as const));
  if (def.requirements.length > 0) {
    out.resources = def.requirements.map((req) => {
      const r: Record<string, unknown> = { type: req.type };
      if (req.name) r.name = req.name;
      r.selectable = req.selectable ?? false;
      if (req.selectable) {
        r.options = req.resource_ids.map((id) => ({ id, name: resourcesById.get(id)?.name ?? id }));
      }
      return r;
    });
  }
  const locationIds = serviceLocationIds(def, resourcesById);
  if (locationIds.length > 0) {
    out.locations = biz.business.locations.filter((l) => locationIds.includes(l.id)).map((l) => ({ ...l }));
  }
  return out as PublishedService;
}

/** Where a service can take place: its own list, else wherever its resources are. */
function serviceLocationIds(def: ServiceDef, resources: ReadonlyMap<string, ResourceDef>): string[] {
  if (def.location_ids && def.location_ids.length > 0) return [...def.location_ids];
  const ids = new Set<string>();
  for (const req of def.requirements) {
    for (const rid of req.resource_ids) {
      const loc = resources.get(rid)?.location_id;
      if (loc) ids.add(loc);
    }
  }
  return [...ids];
}

/** The primary category (spec 3.3): `primary: true`, else the sole merchant entry, else the first. */
export function primaryCategory(def: {
  categories?: Array<Record<string, unknown>>;
}): Record<string, unknown> | undefined {
  const cats = def.categories ?? [];
  const flagged = cats.find((c) => c.primary === true);
  if (flagged) return flagged;
  const merchant = cats.filter((c) => c.taxonomy === 'merchant');
  if (merchant.length === 1) return merchant[0];
  return cats[0];
}

/** Text a free-text query is matched against, lower-cased. */
export function searchableText(s: PublishedService): string {
  const parts: string[] = [s.name, s.type];
  const d = s.description as unknown;
  if (typeof d === 'string') parts.push(d);
  else if (d && typeof d === 'object' && typeof (d as { plain?: unknown }).plain === 'string')
    parts.push((d as { plain: string }).plain);
  for (const c of (s.categories as Array<Record<string, unknown>> | undefined) ?? []) {
    for (const k of ['name', 'value', 'id']) if (typeof c[k] === 'string') parts.push(c[k] as string);
  }
  for (const t of (s.tags as string[] | undefined) ?? []) parts.push(t);
  return parts.join(' ').toLowerCase();
}

/** Does booking this service take money online before the appointment (at booking, or a deposit)? */
export function paidBeforeAppointment(service: ServiceDef): boolean {
  return (
    service.policies.requires_payment &&
    service.policies.payment_timing !== 'at_service' &&
    service.pricing.model !== 'free'
  );
}
