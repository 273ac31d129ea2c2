import { z } from 'zod';
import { formatInstant, isoUtc } from '../../domain/index.js';
import type { ScheduleChangeRow } from '../../store/index.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { Out } from '../schemas.js';

/** A run-time schedule change as the admin API answers it. */
export function presentChange(r: ScheduleChangeRow, zone: string): Record<string, unknown> {
  const base = {
    id: r.id,
    resource_id: r.resource_id,
    kind: r.kind,
    reason: r.reason,
    created_at: isoUtc(r.created_ms),
    created_by: r.created_by,
  };
  return r.kind === 'time_off'
    ? { ...base, start: formatInstant(r.start_ms!, zone), end: formatInstant(r.end_ms!, zone) }
    : { ...base, date: r.date, hours: r.hours ?? [] };
}

/** Time off and dated exceptions added at run time (those in the business file are in the file). */
export const listScheduleChanges = defineOperation({
  name: 'list_schedule_changes',
  rest: { method: 'GET', path: '/admin/schedule-changes', input: 'query' },
  access: 'business_only',
  capability: 'dev.usp-protocol.services.availability',
  mutating: false,
  conditional: false,
  writes: false,
  dashboard: 'schedule_changes',
  output: { changes: Out.objects },
  summary: 'Time off and dated exceptions added at run time, optionally for one staff member or resource.',
  input: z.object({ resource_id: z.string().max(200).optional() }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const rows = await ctx.tx.admin.scheduleChanges(inp.resource_id ? [inp.resource_id] : undefined);
    return ok({ changes: rows.map((r) => presentChange(r, ctx.biz.zone)) });
  },
});
