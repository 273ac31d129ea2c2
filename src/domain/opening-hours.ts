/** Weekly opening hours of a service, for the catalog. */
import { WEEKDAYS, type LocalInterval, type ResourceDef, type ServiceDef, type Weekday } from './business.js';
import { intersectIntervals, mergeIntervals, type Iv } from './intervals.js';
import { minutesToTimeOfDay } from './time.js';
import { intervalMinutes } from './working-time.js';

/** One interval of weekly opening hours (local times) and the weekdays that share it. */
export interface OpeningHoursEntry {
  day_of_week: Weekday[];
  opens: string;
  closes: string;
}

function weeklyMinutes(hours: readonly LocalInterval[] | undefined): Array<[number, number]> {
  const list: Iv[] = [];
  for (const h of hours ?? []) {
    const m = intervalMinutes(h);
    if (m) list.push({ s: m[0], e: m[1] });
  }
  return mergeIntervals(list).map((iv) => [iv.s, iv.e]);
}

/**
 * Weekly opening hours of a service: per weekday the union of its resources' weekly schedules
 * (intersected with service.hours when present; service.hours alone for a self-resourced service),
 * merged; weekdays whose interval lists are identical share entries (one entry per interval),
 * ordered monday..sunday by each group's first day.
 */
export function openingHours(service: ServiceDef, resources: ReadonlyMap<string, ResourceDef>): OpeningHoursEntry[] {
  const selfResource = service.requirements.length === 0;
  const ids = new Set<string>();
  for (const req of service.requirements) for (const id of req.resource_ids) ids.add(id);

  const groups = new Map<string, { days: Weekday[]; intervals: Array<[number, number]> }>();
  for (const day of WEEKDAYS) {
    let intervals: Array<[number, number]>;
    if (selfResource) {
      intervals = weeklyMinutes(service.hours?.[day]);
    } else {
      const all: LocalInterval[] = [];
      for (const id of ids) {
        const r = resources.get(id);
        if (r) all.push(...(r.schedule?.[day] ?? []));
      }
      intervals = weeklyMinutes(all);
      if (service.hours) {
        const sh = weeklyMinutes(service.hours[day]).map(([s, e]) => ({ s, e }));
        intervals = intersectIntervals(
          intervals.map(([s, e]) => ({ s, e })),
          sh,
        ).map((iv) => [iv.s, iv.e]);
      }
    }
    if (intervals.length === 0) continue;
    const sig = intervals.map(([s, e]) => `${s}-${e}`).join(',');
    const g = groups.get(sig);
    if (g) g.days.push(day);
    else groups.set(sig, { days: [day], intervals });
  }
  const out: OpeningHoursEntry[] = [];
  for (const g of groups.values()) {
    for (const [s, e] of g.intervals) {
      out.push({ day_of_week: [...g.days], opens: minutesToTimeOfDay(s), closes: minutesToTimeOfDay(e) });
    }
  }
  return out;
}
