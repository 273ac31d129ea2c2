/**
 * The row the business's own moves on a booking share, those that need nothing but the booking:
 * start it (`start-booking.ts`), complete it (`complete-booking.ts`), mark a no-show
 * (`mark-no-show.ts`). Business-only rows on the admin REST paths, the CLI and (complete, no-show)
 * the dashboard; each is one legal move of the booking's transition map (applyBusinessMove).
 */
import { z } from 'zod';
import { defineOperation, type DashboardAction } from '../core/define.js';
import { BUSINESS_BOOKING_CHANGE } from '../change-rows.js';
import { applyBusinessMove } from './lifecycle.js';
import { id } from '../schemas.js';

export type Move = 'start' | 'complete' | 'no_show';

export function businessMove(
  move: Move,
  row: { name: string; segment: string; cli: string; dashboard?: DashboardAction; summary: string },
) {
  return defineOperation({
    name: row.name,
    rest: { method: 'POST', path: `/admin/bookings/{booking_id}/${row.segment}`, input: 'none' },
    ...BUSINESS_BOOKING_CHANGE,
    dashboard: row.dashboard,
    cli: row.cli,
    summary: row.summary,
    input: z.object({ booking_id: id('The booking id.') }),
    handle: (inp, ctx) => applyBusinessMove(ctx, inp.booking_id, move),
  });
}
