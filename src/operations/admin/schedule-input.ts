/**
 * Checks shared by the run-time schedule changes: the resource exists, nothing lies in the past,
 * and time off never overlaps time off already recorded (in the business file or at run time).
 */
import { overlappingInterval, parseInstant, localDate, type ResourceDef } from '../../domain/index.js';
import type { OperationContext } from '../context.js';
import { invalidRequest } from '../errors.js';

export function resourceOf(ctx: OperationContext, resourceId: string): ResourceDef {
  const r = ctx.biz.resources.get(resourceId);
  if (!r) throw invalidRequest(`resource_id: no staff member or resource ${resourceId} in this business`, [{ field: 'resource_id', message: 'unknown resource' }]);
  return r;
}

export async function checkTimeOff(ctx: OperationContext, resource: ResourceDef, startMs: number, endMs: number): Promise<void> {
  if (endMs <= startMs) throw invalidRequest('end: must be after start', [{ field: 'end', message: 'must be after start' }]);
  if (startMs < ctx.now) throw invalidRequest('start: time off cannot begin in the past', [{ field: 'start', message: 'in the past' }]);
  const existing = [
    ...(resource.time_off ?? []).map((t) => ({ startMs: parseInstant(t.start) ?? 0, endMs: parseInstant(t.end) ?? 0, id: 'business file' })),
    ...(await ctx.tx.admin.scheduleChanges([resource.id]))
      .filter((c) => c.kind === 'time_off')
      .map((c) => ({ startMs: c.start_ms!, endMs: c.end_ms!, id: c.id })),
  ];
  const clash = overlappingInterval(existing, startMs, endMs);
  if (clash) {
    throw invalidRequest(`start: this overlaps time off already recorded for ${resource.name} (${clash.id}); change or remove that one instead`, [
      { field: 'start', message: 'overlaps existing time off' },
    ]);
  }
}

export function checkExceptionDate(ctx: OperationContext, date: string): void {
  if (date < localDate(ctx.now, ctx.biz.zone)) throw invalidRequest('date: an exception cannot be for a past date', [{ field: 'date', message: 'in the past' }]);
}
