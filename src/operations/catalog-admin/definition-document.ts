/**
 * The business definition and its stored rows: one row for the business (details, settings, keys),
 * one per location, resource and service, in the business file's order. `documentOf` puts the rows
 * back together as a business file, which the domain's one check validates whatever its source.
 */
import type { BusinessDef } from '../../domain/index.js';
import type { DefinitionEntry } from '../../store/index.js';

type Json = Record<string, unknown>;

/** The rows that store `def`. */
export function entriesOf(def: BusinessDef): DefinitionEntry[] {
  const { locations, ...details } = def.business;
  const head: Json = { business: details, settings: def.settings };
  if (def.admin_api_key_hashes) head.admin_api_key_hashes = def.admin_api_key_hashes;
  if (def.platform_api_keys) head.platform_api_keys = def.platform_api_keys;
  return [
    { kind: 'business', id: 'business', position: 0, data: head },
    ...locations.map((l, i) => ({ kind: 'location' as const, id: l.id, position: i, data: l as Json })),
    ...def.resources.map((r, i) => ({ kind: 'resource' as const, id: r.id, position: i, data: r as Json })),
    ...def.services.map((s, i) => ({ kind: 'service' as const, id: s.id, position: i, data: s as Json })),
  ];
}

/** The business file the rows describe (unchecked), or undefined when nothing is stored. */
export function documentOf(entries: readonly DefinitionEntry[]): Json | undefined {
  const head = entries.find((e) => e.kind === 'business');
  if (!head) return undefined;
  const of = (kind: DefinitionEntry['kind']) =>
    entries
      .filter((e) => e.kind === kind)
      .sort((a, b) => a.position - b.position)
      .map((e) => e.data);
  const { business, ...rest } = head.data as { business: Json };
  return {
    business: { ...business, locations: of('location') },
    ...rest,
    resources: of('resource'),
    services: of('service'),
  };
}

/** RFC 7396 JSON merge patch: objects merge member by member, `null` removes a member, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Json = target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Json) } : {};
  for (const [k, v] of Object.entries(patch as Json)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Stable JSON (members sorted) for comparing two rows or definitions. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v as Json)
            .sort()
            .map((k) => [k, (v as Json)[k]]),
        )
      : v,
  );
}
