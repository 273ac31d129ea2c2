import { z } from 'zod';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { ProtocolError } from '../core/errors.js';
import { id, Out } from '../schemas.js';
import { announceScheduleChange } from './present.js';
import { presentChange } from './list-schedule-changes.js';

/** Take back a run-time time off or exception: the slots come back and platforms hear of it. */
export const removeScheduleChange = defineOperation({
  name: 'remove_schedule_change',
  rest: { method: 'DELETE', path: '/admin/schedule-changes/{change_id}', input: 'none' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.availability',
  destructive: true,
  idempotent: true,
  dashboard: 'schedule_change_remove',
  output: { change: Out.object, services_updated: Out.array },
  summary: 'Remove a time off or dated exception added at run time.',
  input: z.object({ change_id: id('The schedule change id.') }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const row = await ctx.tx.admin.removeScheduleChange(inp.change_id);
    if (!row) throw new ProtocolError('not_found', `No schedule change ${inp.change_id}.`);
    const services = await announceScheduleChange(ctx, row.resource_id);
    return ok({ change: presentChange(row, ctx.biz.zone), services_updated: services });
  },
});
