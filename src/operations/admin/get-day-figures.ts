import { z } from 'zod';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { BUSINESS_READ } from '../change-rows.js';
import { Out } from '../schemas.js';
import { dayRange, today } from './present.js';

/** Today's figures (or another day's): bookings by status, expected revenue, what waits for the business. */
export const getDayFigures = defineOperation({
  name: 'get_day_figures',
  rest: { method: 'GET', path: '/admin/figures', input: 'query' },
  ...BUSINESS_READ,
  dashboard: 'figures',
  output: { figures: Out.object },
  summary: "A day's figures: bookings by status, revenue booked, pending confirmations, failed deliveries.",
  input: z.object({
    date: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
      .optional(),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const date = inp.date ?? today(ctx);
    const range = dayRange(date, 'day', ctx.biz.zone);
    const recs = await ctx.tx.admin.bookingsStarting(range.fromMs, range.toMs);
    const byStatus: Record<string, number> = {};
    const revenue: Record<string, number> = {};
    for (const r of recs) {
      byStatus[r.booking.status] = (byStatus[r.booking.status] ?? 0) + 1;
      if (r.booking.status === 'canceled') continue;
      const currency = ctx.biz.services.get(r.booking.service_id)?.pricing.currency ?? 'USD';
      revenue[currency] = (revenue[currency] ?? 0) + r.priv.price_total;
    }
    const pending = (await ctx.tx.bookings.recent(500, 'pending')).length;
    const failed = (await ctx.tx.webhooks.list({ status: 'failed', limit: 500 })).length;
    return ok({
      figures: {
        date,
        bookings: recs.length,
        by_status: byStatus,
        revenue_minor: revenue,
        pending_confirmations: pending,
        failed_deliveries: failed,
      },
    });
  },
});
