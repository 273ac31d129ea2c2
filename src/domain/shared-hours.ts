/**
 * Equal weekly schedules held once. A business's staff mostly keep the same opening hours, and each
 * resource's schedule is seven lists of intervals: a business of 50 staff held 50 copies of one week
 * (about 30 KB of the heap of a loaded business, docs/SCALING.md). The definition a snapshot is
 * compiled from gets one deep-frozen schedule for each distinct week, shared by the resources that
 * have it; nothing writes a schedule in place (an edit makes a new definition), and a frozen one
 * would refuse it. The weeks are the process's: a deployment hosting many businesses holds each
 * distinct week once (businesses copied from one template, or simply open nine to five), up to
 * `MAX_SHARED_WEEKS` of them; past that a business's weeks are shared within it only.
 */
import type { BusinessDef, WeeklyHours } from './business.js';
import { deepFreeze } from './freeze.js';

const SHARED_WEEKS = new Map<string, WeeklyHours>();
const MAX_SHARED_WEEKS = 2_000;

export function shareEqualHours(def: BusinessDef): BusinessDef {
  // Past the bound, this business's new weeks are shared within it only.
  const own = new Map<string, WeeklyHours>();
  let changed = false;
  const resources = def.resources.map((r) => {
    if (!r.schedule) return r;
    const key = JSON.stringify(r.schedule);
    let one = SHARED_WEEKS.get(key) ?? own.get(key);
    if (!one) {
      // A copy is frozen, never the caller's own (a frozen one is already such a copy).
      one = Object.isFrozen(r.schedule) ? r.schedule : deepFreeze(structuredClone(r.schedule));
      (SHARED_WEEKS.size < MAX_SHARED_WEEKS ? SHARED_WEEKS : own).set(key, one);
    }
    if (one === r.schedule) return r;
    changed = true;
    return { ...r, schedule: one };
  });
  return changed ? { ...def, resources } : def;
}
