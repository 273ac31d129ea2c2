import type { DefinitionEntry, DefinitionKind } from '../definition-port.js';

/** Columns of `definition_entries`, in the order the engines' statements bind them. */
export const DEFINITION_COLUMNS = 'kind, id, position, data';

/** Kinds in the order a definition is assembled (the business row first). */
export const DEFINITION_KIND_ORDER =
  "CASE kind WHEN 'business' THEN 0 WHEN 'location' THEN 1 WHEN 'resource' THEN 2 ELSE 3 END";

export const toDefinitionEntry = (r: {
  kind: string;
  id: string;
  position: number | string;
  data: string;
}): DefinitionEntry => ({
  kind: r.kind as DefinitionKind,
  id: r.id,
  position: Number(r.position),
  data: JSON.parse(r.data) as Record<string, unknown>,
});
