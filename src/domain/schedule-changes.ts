/**
 * Schedule changes made at run time (a sick afternoon, a Sunday opening) on top of the business
 * file: merged into the resources before slots are generated, so the one slot generator sees one
 * schedule. Pure: the changes arrive as data.
 */
import type { DatedException, LocalInterval, ResourceDef, TimeOff } from './business.js';

export type ScheduleChange =
  | { kind: 'time_off'; resource_id: string; start: string; end: string; reason?: string }
  | { kind: 'exception'; resource_id: string; date: string; hours: LocalInterval[]; reason?: string };

/**
 * The resources with the run-time changes added: time off joins the file's time off; a dated
 * exception replaces the file's exception for that date (the later word wins). Resources without
 * changes are returned as they are (the same objects).
 */
export function mergeScheduleChanges(
  resources: ReadonlyMap<string, ResourceDef>,
  changes: readonly ScheduleChange[],
): ReadonlyMap<string, ResourceDef> {
  if (changes.length === 0) return resources;
  const out = new Map(resources);
  for (const c of changes) {
    const r = out.get(c.resource_id);
    if (!r) continue;
    if (c.kind === 'time_off') {
      const t: TimeOff = { start: c.start, end: c.end, ...(c.reason ? { reason: c.reason } : {}) };
      out.set(r.id, { ...r, time_off: [...(r.time_off ?? []), t] });
    } else {
      const ex: DatedException = { date: c.date, hours: c.hours, ...(c.reason ? { reason: c.reason } : {}) };
      out.set(r.id, { ...r, exceptions: [...(r.exceptions ?? []).filter((e) => e.date !== c.date), ex] });
    }
  }
  return out;
}

/** The first existing interval that overlaps [startMs, endMs), or undefined: time off may not overlap time off. */
export function overlappingInterval<T extends { startMs: number; endMs: number }>(
  existing: readonly T[],
  startMs: number,
  endMs: number,
): T | undefined {
  return existing.find((e) => e.startMs < endMs && startMs < e.endMs);
}
