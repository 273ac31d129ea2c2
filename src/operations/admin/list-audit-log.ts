import { z } from 'zod';
import { isoUtc } from '../../domain/index.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { BUSINESS_READ } from '../change-rows.js';
import { Out } from '../schemas.js';

/** The audit log: every state-changing call made as the business (who, what, on which resource, when), newest first. */
export const listAuditLog = defineOperation({
  name: 'list_audit_log',
  rest: { method: 'GET', path: '/admin/audit', input: 'query' },
  ...BUSINESS_READ,
  dashboard: 'audit_log',
  output: { entries: Out.objects },
  summary: 'The audit log of admin actions, newest first.',
  input: z.object({
    limit: z.coerce.number().int().min(1).max(500).default(100),
    before: z.coerce.number().int().positive().optional(),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const rows = await ctx.tx.admin.auditLog(inp.limit, inp.before);
    return ok({
      entries: rows.map((r) => ({
        seq: r.seq,
        at: isoUtc(r.at_ms),
        actor: r.actor,
        action: r.action,
        target: r.target,
        outcome: r.outcome,
      })),
    });
  },
});
