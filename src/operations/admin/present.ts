/**
 * What the admin operations share: the business-day ranges bookings are listed by, a booking as a
 * calendar row, and the raising of catalog events when a resource's schedule changes at run time.
 */
import { DAY_MS, addDays, localDate, localToUtcMs, weekdayOf, type BookingRecord } from '../../domain/index.js';
import type { OperationContext } from '../core/context.js';
import { forgetHints } from '../availability/slots.js';

/** [fromMs, toMs) of the local day, or of the Monday-to-Sunday week holding `date`, in the business's zone. */
export function dayRange(
  date: string,
  view: 'day' | 'week',
  zone: string,
): { from: string; to: string; fromMs: number; toMs: number } {
  const weekdays = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
  const first = view === 'week' ? addDays(date, -weekdays.indexOf(weekdayOf(date))) : date;
  const last = addDays(first, view === 'week' ? 7 : 1);
  return { from: first, to: last, fromMs: localToUtcMs(first, '00:00', zone), toMs: localToUtcMs(last, '00:00', zone) };
}

export function today(ctx: OperationContext): string {
  return localDate(ctx.now, ctx.biz.zone);
}

/** A booking as the dashboard's calendar and lists show it: the protocol object plus where it sits. */
export function calendarRow(rec: BookingRecord): Record<string, unknown> {
  const b = rec.booking;
  return {
    booking: b,
    start_ms: rec.priv.start_ms,
    end_ms: rec.priv.end_ms,
    resource_ids: rec.priv.resource_ids.filter((r) => !r.startsWith('service:')),
    platform: rec.priv.principal,
  };
}

/** Whether a booking matches a free-text buyer search (name, email or phone, case-insensitive). */
export function buyerMatches(rec: BookingRecord, q: string): boolean {
  const needle = q.trim().toLowerCase();
  if (!needle) return true;
  const bu = rec.booking.buyer;
  return [bu.first_name, bu.last_name, `${bu.first_name} ${bu.last_name}`, bu.email, bu.phone_number ?? ''].some((v) =>
    v.toLowerCase().includes(needle),
  );
}

/**
 * A resource's schedule changed at run time: every published service that uses it is republished
 * (`modified_at` moves, so the catalog feed shows it) and `service.updated` goes to the platforms
 * through the outbox, in the caller's transaction. Cached availability hints are dropped.
 */
export async function announceScheduleChange(ctx: OperationContext, resourceId: string): Promise<string[]> {
  const touched: string[] = [];
  const stored = new Map((await ctx.tx.catalog.all()).map((s) => [s.id, s] as const));
  for (const [id, svc] of ctx.biz.published) {
    const def = ctx.biz.services.get(id);
    if (!def || !def.requirements.some((r) => r.resource_ids.includes(resourceId))) continue;
    const prev = stored.get(id);
    await ctx.tx.catalog.upsert({
      id,
      data: svc,
      fingerprint: prev?.fingerprint ?? '',
      modified_ms: ctx.now,
      deleted: false,
    });
    ctx.emit({ event: 'service.updated', orderKey: id, principal: null, payload: { service_id: id, data: svc } });
    touched.push(id);
  }
  forgetHints(ctx.biz, touched);
  return touched;
}

export { DAY_MS };
