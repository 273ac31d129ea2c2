import { z } from 'zod';
import { invalidRequest } from '../core/errors.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { BUSINESS_READ } from '../change-rows.js';
import { Out } from '../schemas.js';
import { buyerMatches, calendarRow, dayRange, today } from './present.js';

const STATUSES = [
  'pending',
  'requires_action',
  'confirmed',
  'in_progress',
  'completed',
  'canceled',
  'no_show',
] as const;

/** The business's bookings for a day or a week, by staff member, location, status and buyer. */
export const listBookings = defineOperation({
  name: 'list_bookings',
  rest: { method: 'GET', path: '/admin/bookings', input: 'query' },
  ...BUSINESS_READ,
  dashboard: 'bookings',
  output: { range: Out.object, bookings: Out.objects },
  summary:
    'Bookings starting on a day or in a week (business time zone), filtered by staff member, location, status or buyer.',
  input: z.object({
    date: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
      .optional()
      .describe('Local date; default today.'),
    view: z
      .enum(['day', 'week', 'all'])
      .default('day')
      .describe(
        'One day, the Monday-to-Sunday week holding the date, or all (the latest 1000, with a status or buyer filter).',
      ),
    resource_id: z.string().max(200).optional().describe('Only bookings of this staff member or resource.'),
    location_id: z.string().max(200).optional(),
    status: z.enum(STATUSES).optional(),
    buyer: z
      .string()
      .max(200)
      .optional()
      .describe('Search by buyer name, email or phone (case-insensitive, part of a word).'),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const date = inp.date ?? today(ctx);
    if (Number.isNaN(Date.parse(`${date}T00:00:00Z`)))
      throw invalidRequest(`date: ${date} is not a calendar date`, [{ field: 'date', message: 'not a calendar date' }]);
    if (inp.resource_id && !ctx.biz.resources.has(inp.resource_id)) {
      throw invalidRequest(`resource_id: no resource ${inp.resource_id} in this business`, [
        { field: 'resource_id', message: 'unknown resource' },
      ]);
    }
    if (inp.view === 'all' && !inp.status && !inp.buyer) {
      throw invalidRequest('view: all needs a status or a buyer to search for', [
        { field: 'view', message: 'all needs status or buyer' },
      ]);
    }
    const range = dayRange(date, inp.view === 'all' ? 'day' : inp.view, ctx.biz.zone);
    const recs =
      inp.view === 'all'
        ? await ctx.tx.bookings.recent(1000, inp.status)
        : await ctx.tx.admin.bookingsStarting(range.fromMs, range.toMs);
    const rows = recs.filter(
      (r) =>
        (!inp.resource_id || r.priv.resource_ids.includes(inp.resource_id)) &&
        (!inp.location_id || r.booking.location?.id === inp.location_id) &&
        (!inp.status || r.booking.status === inp.status) &&
        (!inp.buyer || buyerMatches(r, inp.buyer)),
    );
    const shown =
      inp.view === 'all'
        ? { view: 'all', time_zone: ctx.biz.zone }
        : { view: inp.view, from: range.from, to: range.to, time_zone: ctx.biz.zone };
    return ok({ range: shown, bookings: rows.map(calendarRow) });
  },
});
