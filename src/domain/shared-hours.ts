/**
 * Equal weekly schedules held once. A business's staff mostly keep the same opening hours, and each
 * resource's schedule is seven lists of intervals: a business of 50 staff held 50 copies of one week
 * (about 30 KB of the heap of a loaded business, docs/SCALING.md). The definition a snapshot is
 * compiled from gets one deep-frozen schedule for each distinct week, shared by the resources that
 * have it; nothing writes a schedule in place (an edit makes a new definition), and a frozen one
 * would refuse it.
 */
import type { BusinessDef, WeeklyHours } from './business.js';
import { deepFreeze } from './freeze.js';

export function shareEqualHours(def: BusinessDef): BusinessDef {
  const seen = new Map<string, WeeklyHours>();
  let changed = false;
  const resources = def.resources.map((r) => {
    if (!r.schedule) return r;
    const key = JSON.stringify(r.schedule);
    let one = seen.get(key);
    if (!one) {
      // A copy is frozen, never the caller's own (a frozen one is already such a copy).
      one = Object.isFrozen(r.schedule) ? r.schedule : deepFreeze(structuredClone(r.schedule));
      seen.set(key, one);
    }
    if (one === r.schedule) return r;
    changed = true;
    return { ...r, schedule: one };
  });
  return changed ? { ...def, resources } : def;
}
