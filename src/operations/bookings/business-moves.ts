/**
 * The business's own moves on a booking that need nothing but the booking: start it, complete it,
 * mark a no-show. Business-only rows on the admin REST paths, the CLI and (complete, no-show) the
 * dashboard; each is one legal move of the booking's transition map (applyBusinessMove).
 */
import { z } from 'zod';
import { defineOperation, type DashboardAction } from '../define.js';
import { BUSINESS_BOOKING_CHANGE } from '../steps/change-rows.js';
import { applyBusinessMove } from '../steps/booking-lifecycle.js';
import { id } from '../schemas.js';

type Move = 'start' | 'complete' | 'no_show';

function businessMove(move: Move, row: { name: string; segment: string; cli: string; dashboard?: DashboardAction; summary: string }) {
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

export const startBooking = businessMove('start', {
  name: 'start_booking',
  segment: 'start',
  cli: 'start',
  summary: 'The business marks a confirmed booking as in progress.',
});

export const completeBooking = businessMove('complete', {
  name: 'complete_booking',
  segment: 'complete',
  cli: 'complete',
  dashboard: 'complete',
  summary: 'The business marks a booking as completed.',
});

export const markNoShow = businessMove('no_show', {
  name: 'mark_no_show',
  segment: 'no-show',
  cli: 'no-show',
  dashboard: 'no_show',
  summary: 'The business marks the buyer as a no-show.',
});
