/**
 * Checks shared by the run-time schedule changes: the resource exists, nothing lies in the past,
 * time off never overlaps time off already recorded (in the business file or at run time), and the
 * bookings a change leaves outside the resource's time are named in a warning; and recording one.
 */
import {
  addDays,
  formatInstant,
  localToUtcMs,
  overlappingInterval,
  parseInstant,
  localDate,
  warningMessage,
  type BookingRecord,
  type Message,
  type ResourceDef,
} from '../../domain/index.js';
import type { ScheduleChangeRow } from '../../store/index.js';
import type { OperationContext } from '../core/context.js';
import { ok, type OperationResult } from '../core/define.js';
import { invalidRequest } from '../core/errors.js';
import { presentChange } from './list-schedule-changes.js';
import { announceScheduleChange } from './present.js';

export function resourceOf(ctx: OperationContext, resourceId: string): ResourceDef {
  const r = ctx.biz.resources.get(resourceId);
  if (!r)
    throw invalidRequest(`resource_id: no staff member or resource ${resourceId} in this business`, [
      { field: 'resource_id', message: 'unknown resource' },
    ]);
  return r;
}

export async function checkTimeOff(
  ctx: OperationContext,
  resource: ResourceDef,
  startMs: number,
  endMs: number,
): Promise<void> {
  if (endMs <= startMs)
    throw invalidRequest('end: must be after start', [{ field: 'end', message: 'must be after start' }]);
  if (startMs < ctx.now)
    throw invalidRequest('start: time off cannot begin in the past', [{ field: 'start', message: 'in the past' }]);
  const existing = [
    ...(resource.time_off ?? []).map((t) => ({
      startMs: parseInstant(t.start) ?? 0,
      endMs: parseInstant(t.end) ?? 0,
      id: 'business file',
    })),
    ...(await ctx.tx.admin.scheduleChanges([resource.id]))
      .filter((c) => c.kind === 'time_off')
      .map((c) => ({ startMs: c.start_ms!, endMs: c.end_ms!, id: c.id })),
  ];
  const clash = overlappingInterval(existing, startMs, endMs);
  if (clash) {
    throw invalidRequest(
      `start: this overlaps time off already recorded for ${resource.name} (${clash.id}); change or remove that one instead`,
      [{ field: 'start', message: 'overlaps existing time off' }],
    );
  }
}

export function checkExceptionDate(ctx: OperationContext, date: string): void {
  if (date < localDate(ctx.now, ctx.biz.zone))
    throw invalidRequest('date: an exception cannot be for a past date', [{ field: 'date', message: 'in the past' }]);
}

/** Bookings that still hold the resource: the ones a schedule change does not end by itself. */
const LIVE = new Set(['pending', 'requires_action', 'confirmed']);

/**
 * The live bookings (pending or confirmed) of this resource whose appointment overlaps one of the
 * intervals, found through the resource's claims (a booking claims each resource it uses).
 */
export async function bookingsOverlapping(
  ctx: OperationContext,
  resourceId: string,
  intervals: ReadonlyArray<{ startMs: number; endMs: number }>,
): Promise<BookingRecord[]> {
  const found = new Map<string, BookingRecord>();
  for (const iv of intervals) {
    const claims = await ctx.tx.claims.active([resourceId], iv.startMs, iv.endMs, ctx.now);
    for (const owner of new Set(claims.filter((c) => !c.is_hold).map((c) => c.owner_id))) {
      if (found.has(owner)) continue;
      const rec = await ctx.tx.bookings.get(owner);
      if (!rec || !LIVE.has(rec.booking.status) || !rec.priv.resource_ids.includes(resourceId)) continue;
      if (rec.priv.start_ms < iv.endMs && iv.startMs < rec.priv.end_ms) found.set(owner, rec);
    }
  }
  return [...found.values()].sort((a, b) => a.priv.start_ms - b.priv.start_ms);
}

/** The parts of `date` (local, business zone) outside the given hours: what a dated exception takes away. */
export function hoursTakenAway(
  date: string,
  hours: ReadonlyArray<{ opens: string; closes: string }>,
  zone: string,
): Array<{ startMs: number; endMs: number }> {
  const out: Array<{ startMs: number; endMs: number }> = [];
  let from = localToUtcMs(date, '00:00', zone);
  for (const h of hours) {
    const opens = localToUtcMs(date, h.opens, zone);
    if (opens > from) out.push({ startMs: from, endMs: opens });
    from = Math.max(from, localToUtcMs(date, h.closes, zone));
  }
  const end = localToUtcMs(addDays(date, 1), '00:00', zone);
  if (end > from) out.push({ startMs: from, endMs: end });
  return out;
}

/**
 * The warning a schedule change carries when bookings stay inside the time it takes away: each by
 * id, start (RFC 3339 in the business zone) and service. The bookings are left as they are; the
 * business moves, cancels or keeps them.
 */
export function overlapWarning(
  recs: readonly BookingRecord[],
  resource: ResourceDef,
  zone: string,
  what: string,
): Message[] {
  if (recs.length === 0) return [];
  const named = recs.map(
    (r) =>
      `${r.booking.id} (${r.booking.service_name}, ${r.booking.status}, starts ${formatInstant(r.priv.start_ms, zone)})`,
  );
  const count = recs.length === 1 ? '1 booking' : `${recs.length} bookings`;
  const content = `${what} for ${resource.name} overlaps ${count} that stay${recs.length === 1 ? 's' : ''} as booked: ${named.join('; ')}. Reschedule or cancel ${recs.length === 1 ? 'it' : 'them'}, or tell the buyer${recs.length === 1 ? '' : 's'}.`;
  return [warningMessage('bookings_overlap', content)];
}

/**
 * Records a run-time schedule change of `resource` (its id made with `prefix`), announces the
 * services whose availability it changes, and answers with the change and a warning naming the
 * bookings left standing in `takenAway` (`what` starts the warning: "This time off").
 */
export async function recordScheduleChange(
  ctx: OperationContext,
  resource: ResourceDef,
  prefix: string,
  change: Pick<ScheduleChangeRow, 'kind' | 'start_ms' | 'end_ms' | 'date' | 'hours' | 'reason'>,
  takenAway: ReadonlyArray<{ startMs: number; endMs: number }>,
  what: string,
): Promise<OperationResult> {
  const row: ScheduleChangeRow = {
    id: ctx.ids.next(prefix),
    resource_id: resource.id,
    ...change,
    created_ms: ctx.now,
    created_by: ctx.caller.actor ?? 'business',
  };
  await ctx.tx.admin.addScheduleChange(row);
  const services = await announceScheduleChange(ctx, resource.id);
  const kept = await bookingsOverlapping(ctx, resource.id, takenAway);
  return {
    ...ok({ change: presentChange(row, ctx.biz.zone), services_updated: services }),
    messages: overlapWarning(kept, resource, ctx.biz.zone, what),
  };
}
