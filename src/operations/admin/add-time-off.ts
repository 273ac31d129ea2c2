import { z } from 'zod';
import { addDays, localToUtcMs } from '../../domain/index.js';
import { instantOrLocal } from './walk-in-input.js';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, requireBusiness } from '../core/define.js';
import { invalidRequest } from '../core/errors.js';
import { Out } from '../schemas.js';
import { checkTimeOff, recordScheduleChange, resourceOf } from './schedule-input.js';

/**
 * One edge of the time off: an instant or local date-time as written, or a date meaning the whole
 * local day (from its local midnight; as an end, to the next day's), so a day off in a zone that
 * changes its clocks that day is still the whole day. Null when it is none of these or no real date.
 */
function edgeOf(s: string, zone: string, end: boolean): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return instantOrLocal(s, zone);
  if (addDays(s, 0) !== s) return null;
  return localToUtcMs(end ? addDays(s, 1) : s, '00:00', zone);
}

/**
 * Time off for a staff member (or any resource) from now on: kept in the store, merged with the
 * business file's schedule, so availability loses the slots at once; the services it serves are
 * republished and platforms get `service.updated`. Bookings already inside it stay as they are and
 * are named in a `bookings_overlap` warning (the business decides what becomes of them).
 */
export const addTimeOff = defineOperation({
  name: 'add_time_off',
  rest: { method: 'POST', path: '/admin/time-off', input: 'body' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.availability',
  creates: true,
  dashboard: 'time_off_add',
  output: { change: Out.object, services_updated: Out.array },
  summary: 'Add time off for a staff member or resource; its slots disappear from availability at once.',
  input: z.object({
    resource_id: z.string().min(1).max(200).describe('The staff member or resource.'),
    start: z
      .string()
      .max(40)
      .describe(
        'First instant off: RFC 3339, a local date-time YYYY-MM-DDTHH:MM in the business time zone, or a date YYYY-MM-DD (from the start of that local day).',
      ),
    end: z
      .string()
      .max(40)
      .describe(
        'End of the absence (exclusive), written like start; a date YYYY-MM-DD is the last day off, to its end (all day).',
      ),
    reason: z.string().max(500).optional(),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const resource = resourceOf(ctx, inp.resource_id);
    const startMs = edgeOf(inp.start, ctx.biz.zone, false);
    const endMs = edgeOf(inp.end, ctx.biz.zone, true);
    if (startMs === null)
      throw invalidRequest('start: must be an RFC 3339 date-time with offset, a local date-time or a date', [
        { field: 'start', message: 'not a date-time' },
      ]);
    if (endMs === null)
      throw invalidRequest('end: must be an RFC 3339 date-time with offset, a local date-time or a date', [
        { field: 'end', message: 'not a date-time' },
      ]);
    await ctx.tx.lock([`schedule:${resource.id}`]);
    await checkTimeOff(ctx, resource, startMs, endMs);
    const change = {
      kind: 'time_off' as const,
      start_ms: startMs,
      end_ms: endMs,
      date: null,
      hours: null,
      reason: inp.reason ?? null,
    };
    return recordScheduleChange(ctx, resource, 'off', change, [{ startMs, endMs }], 'This time off');
  },
});
