/**
 * From a slot id's tag back to the resources it names. A tag is a hash of the service and resource
 * combination (slot-id.ts), so each service gets an index of its combinations by tag, built once
 * per compiled business. A business in which two combinations share a tag is refused when it is
 * loaded (`findSlotTagClash`), so a tag names at most one combination of the whole business.
 */
import type { ResourceDef, ServiceDef } from './business.js';
import { decodeSlotId, slotTag, type SlotIdParts } from './slot-id.js';
import { selfResourceId } from './slot-query.js';

/**
 * Every resource combination the slot generator can offer for a service: one resource per
 * requirement, among the business's resources, none twice, in requirement order (a service
 * without requirements has only its own self resource). Mirrors the generator's enumeration.
 */
export function serviceCombinations(service: ServiceDef, resources: ReadonlyMap<string, ResourceDef>): string[][] {
  if (service.requirements.length === 0) return [[selfResourceId(service.id)]];
  let acc: string[][] = [[]];
  for (const req of service.requirements) {
    const ids = [...new Set(req.resource_ids)].filter((id) => resources.has(id));
    const next: string[][] = [];
    for (const partial of acc) for (const id of ids) if (!partial.includes(id)) next.push([...partial, id]);
    acc = next;
    if (acc.length === 0) break;
  }
  return acc;
}

/** Two resource combinations of the business with the same tag: their slot ids could not be told apart. */
export class SlotTagClash extends Error {
  constructor(
    readonly tag: string,
    readonly first: { serviceId: string; resourceIds: readonly string[] },
    readonly second: { serviceId: string; resourceIds: readonly string[] },
  ) {
    const name = (c: { serviceId: string; resourceIds: readonly string[] }) =>
      `service ${JSON.stringify(c.serviceId)} with resources ${JSON.stringify(c.resourceIds)}`;
    super(
      `slot ids of ${name(first)} and of ${name(second)} would share the tag ${tag}; ` +
        'rename one of those resources or services (any new id separates them)',
    );
    this.name = 'SlotTagClash';
  }
}

export type SlotTagIndex = ReadonlyMap<string, readonly string[]>;

type TagOf = (serviceId: string, resourceIds: readonly string[]) => string;

const cache = new WeakMap<ServiceDef, { resources: ReadonlyMap<string, ResourceDef>; index: SlotTagIndex }>();

function buildIndex(
  service: ServiceDef,
  resources: ReadonlyMap<string, ResourceDef>,
  tagOf: TagOf,
): Map<string, readonly string[]> {
  const index = new Map<string, readonly string[]>();
  for (const combo of serviceCombinations(service, resources)) {
    const tag = tagOf(service.id, combo);
    const seen = index.get(tag);
    if (seen)
      throw new SlotTagClash(
        tag,
        { serviceId: service.id, resourceIds: seen },
        { serviceId: service.id, resourceIds: combo },
      );
    index.set(tag, combo);
  }
  return index;
}

/**
 * A service's resource combinations by tag. Built once per service and resource map (both are
 * immutable once a business is compiled); throws SlotTagClash when two combinations share a tag.
 * `tagOf` replaces the tag function (tests use a short one to provoke clashes).
 */
export function slotTagIndex(
  service: ServiceDef,
  resources: ReadonlyMap<string, ResourceDef>,
  tagOf: TagOf = slotTag,
): SlotTagIndex {
  if (tagOf !== slotTag) return buildIndex(service, resources, tagOf);
  const hit = cache.get(service);
  if (hit && hit.resources === resources) return hit.index;
  const index = buildIndex(service, resources, tagOf);
  cache.set(service, { resources, index });
  return index;
}

/** The first tag shared by two resource combinations anywhere in the business (within or across services), or null. */
export function findSlotTagClash(
  services: readonly ServiceDef[],
  resources: ReadonlyMap<string, ResourceDef>,
  tagOf: TagOf = slotTag,
): SlotTagClash | null {
  const owners = new Map<string, { serviceId: string; resourceIds: readonly string[] }>();
  for (const service of services) {
    for (const combo of serviceCombinations(service, resources)) {
      const tag = tagOf(service.id, combo);
      const seen = owners.get(tag);
      if (seen) return new SlotTagClash(tag, seen, { serviceId: service.id, resourceIds: combo });
      owners.set(tag, { serviceId: service.id, resourceIds: combo });
    }
  }
  return null;
}

/**
 * The slot an id names within a service (its start and resource combination), or null when the id
 * is malformed or its tag names no combination this service offers now. The slot itself is not
 * checked here: that is findSlot's job, against the claims.
 */
export function resolveSlotId(
  id: unknown,
  service: ServiceDef,
  resources: ReadonlyMap<string, ResourceDef>,
): SlotIdParts | null {
  const ref = decodeSlotId(id);
  if (!ref) return null;
  const resourceIds = slotTagIndex(service, resources).get(ref.tag);
  return resourceIds ? { serviceId: service.id, startMs: ref.startMs, resourceIds: [...resourceIds] } : null;
}
