import { z } from 'zod';
import {
  type ServiceDef,
  type SlotCandidate,
  openingHours,
  errorMessage,
  DAY_MS,
  addDays,
  isIsoDate,
  isValidTimeZone,
  localToUtcMs,
  parseInstant,
} from '../../domain/index.js';
import { ProtocolError, invalidRequest } from '../core/errors.js';
import { defineOperation, ok, outcome } from '../core/define.js';
import { candidateResourceIds, computeSlots, presentSlot, type SlotFilters } from './slots.js';
import { AHEAD_MS, availabilityKey, uncachedView, type SlotsView } from '../availability-cache.js';
import type { OperationContext } from '../core/context.js';
import { DateOrInstant, decodeCursor, encodeCursor, id, Out } from '../schemas.js';

/** Large enough that one day of one service fits one answer (the demo's busiest day has 108 slots). */
const DEFAULT_LIMIT = 200;

/** Opening hours depend only on the business definition: computed once per service. */
const hoursCache = new WeakMap<object, ReturnType<typeof openingHours>>();
function hoursOf(service: Parameters<typeof openingHours>[0], resources: Parameters<typeof openingHours>[1]) {
  let h = hoursCache.get(service);
  if (!h) hoursCache.set(service, (h = openingHours(service, resources)));
  return h;
}

const input = z.object({
  service_id: id('The service to query.'),
  start_date: DateOrInstant.describe('First day (YYYY-MM-DD) or an RFC 3339 instant.'),
  end_date: DateOrInstant.describe('Last day, inclusive, or an instant.'),
  date_bounds_timezone: z
    .string()
    .max(100)
    .optional()
    .describe('IANA zone whose days the dates are; default the business zone.'),
  timezone: z
    .string()
    .max(100)
    .optional()
    .describe('IANA zone of returned times (and of dates, without date_bounds_timezone).'),
  resource_id: z.string().max(512).optional().describe('Only slots with this staff member, room or equipment.'),
  party_size: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe('Spots needed (group classes, reservations); default 1.'),
  location_id: z.string().max(512).optional(),
  locale: z.string().max(35).optional(),
  cursor: z.string().max(2048).optional(),
  limit: z.number().int().min(1).max(500).optional(),
});

/**
 * Rate-limit cost of a query: one token per day it spans (a 31-day query costs 31, reading one
 * service 1). Dates or instants; only the calendar day of each end counts here.
 */
function queryDays(start: string, end: string): number {
  const from = Date.parse(start.slice(0, 10));
  const to = Date.parse(end.slice(0, 10));
  if (!Number.isFinite(from) || !Number.isFinite(to) || to < from) return 1;
  return Math.min(366, Math.round((to - from) / DAY_MS) + 1);
}

/**
 * The slots the query offers now: from the availability cache when it holds an answer computed
 * from the same store version that is still exact at `now`, else computed (and kept).
 */
async function offeredSlots(
  ctx: OperationContext,
  service: ServiceDef,
  fromMs: number,
  toMs: number,
  f: SlotFilters,
): Promise<SlotsView> {
  const cache = ctx.env?.availability;
  if (!cache) return uncachedView((await computeSlots(ctx.tx, ctx.biz, service, fromMs, toMs, ctx.now, f)).slots);
  // Read in the same snapshot as the claims and schedule changes computed from below.
  const version = await ctx.tx.claims.version(candidateResourceIds(service));
  const key = availabilityKey(
    ctx.biz.definitionVersion,
    service.id,
    fromMs,
    toMs,
    f.partySize,
    f.resourceId,
    f.locationId,
  );
  const hit = cache.view(key, version, ctx.now);
  if (hit) return hit;
  const computed = await computeSlots(ctx.tx, ctx.biz, service, fromMs, toMs, ctx.now, f, AHEAD_MS);
  return cache.store(key, version, ctx.now, service, fromMs, toMs, computed);
}

export const queryAvailability = defineOperation({
  name: 'query_availability',
  tool: 'usp_availability_query',
  view: 'slot_picker',
  rest: { method: 'POST', path: '/availability/query', input: 'body' },
  access: 'public',
  rate: { bucket: 'public', cost: (inp) => queryDays(inp.start_date, inp.end_date) },
  capability: 'dev.usp-protocol.services.availability',
  mutating: false,
  conditional: false,
  writes: false,
  dashboard: 'free_slots',
  page: 'booking_slots',
  output: {
    service_id: Out.string,
    applied_date_bounds_timezone: Out.string,
    business_timezone: Out.string,
    slots: Out.objects,
    opening_hours: Out.array,
    pagination: Out.object,
  },
  summary: 'Bookable time slots of a service between two dates, one slot per resource combination.',
  input,
  async handle(inp, ctx) {
    const zone = inp.timezone ?? ctx.biz.zone;
    if (!isValidTimeZone(zone))
      throw invalidRequest(`timezone ${JSON.stringify(zone)} is not an IANA time zone.`, [
        { field: 'timezone', message: 'unknown time zone' },
      ]);
    // The newer text's query timezones: date-only bounds are days of date_bounds_timezone, else of `timezone` (ours), else the business's.
    const boundsZone = inp.date_bounds_timezone ?? zone;
    if (!isValidTimeZone(boundsZone)) {
      throw invalidRequest(`date_bounds_timezone ${JSON.stringify(boundsZone)} is not an IANA time zone.`, [
        { field: 'date_bounds_timezone', message: 'unknown time zone' },
      ]);
    }
    const zones = { applied_date_bounds_timezone: boundsZone, business_timezone: ctx.biz.zone };
    const service = ctx.biz.services.get(inp.service_id);
    if (!service) {
      // An id in the body that resolves to nothing: an outcome, never the code of the 404 for a path (spec-next 9.4.1, 9.4.2).
      return outcome(
        errorMessage(
          'service_unresolved',
          `No service has the id ${JSON.stringify(inp.service_id)}; list services (usp_services_list) to find valid ids.`,
          '$.service_id',
        ),
        {
          service_id: inp.service_id,
          ...zones,
          slots: [],
        },
      );
    }
    if ((service.status ?? 'active') !== 'active') {
      const why = ctx.biz.suspendedWhy.get(service.id);
      return outcome(
        errorMessage(
          'slot_unavailable',
          `The service ${service.id} is ${service.status}: it offers no slots now.${why ? ` ${why}` : ''}`,
          '$.service_id',
        ),
        {
          service_id: service.id,
          ...zones,
          slots: [],
        },
      );
    }
    const fromMs = isIsoDate(inp.start_date)
      ? localToUtcMs(inp.start_date, '00:00', boundsZone)
      : parseInstant(inp.start_date)!;
    const toMs = isIsoDate(inp.end_date)
      ? localToUtcMs(addDays(inp.end_date, 1), '00:00', boundsZone)
      : parseInstant(inp.end_date)!;
    if (toMs <= fromMs)
      throw invalidRequest('end_date must not be before start_date.', [
        { field: 'end_date', message: 'before start_date' },
      ]);
    const maxDays = ctx.biz.def.settings.max_query_days;
    if (toMs - fromMs > maxDays * DAY_MS + 2 * 3_600_000) {
      throw new ProtocolError(
        'range_too_wide',
        `Query at most ${maxDays} days at a time; split the range into smaller queries.`,
        {
          errors: [{ field: 'end_date', message: `range exceeds ${maxDays} days` }],
          extra: { max_days: maxDays },
        },
      );
    }
    let offset = 0;
    if (inp.cursor) {
      const c = decodeCursor(inp.cursor);
      if (!c || typeof c.o !== 'number' || c.o < 0)
        throw invalidRequest('cursor is not a cursor this business issued.', [
          { field: 'cursor', message: 'unknown cursor' },
        ]);
      offset = c.o;
    }
    const limit = inp.limit ?? DEFAULT_LIMIT;
    const slots = await offeredSlots(ctx, service, fromMs, toMs, {
      partySize: inp.party_size ?? 1,
      resourceId: inp.resource_id,
      locationId: inp.location_id,
    });
    const page: Record<string, unknown>[] = [];
    const make = (s: SlotCandidate) => presentSlot(s, ctx.biz, service, zone);
    for (let i = offset; i < Math.min(offset + limit, slots.length); i++) page.push(slots.present(i, zone, make));
    const hasMore = offset + limit < slots.length;
    return ok({
      service_id: service.id,
      ...zones,
      slots: page,
      opening_hours: hoursOf(service, ctx.biz.resources),
      pagination: { cursor: hasMore ? encodeCursor({ o: offset + limit }) : null, has_more: hasMore },
    });
  },
});
