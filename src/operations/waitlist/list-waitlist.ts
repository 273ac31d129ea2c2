/** List the caller's waitlist entries (spec 11.1); only its own, never another principal's. */
import { z } from 'zod';
import { invalidRequest } from '../core/errors.js';
import { defineOperation, ok } from '../core/define.js';
import { settleEntry } from './offers.js';
import { decodeCursor, encodeCursor, Out } from '../schemas.js';

const CAP = 'dev.usp-protocol.services.waitlist' as const;

const WAITLIST_STATUSES = ['waiting', 'offered', 'accepted', 'expired', 'declined', 'removed'] as const;

export const listWaitlist = defineOperation({
  name: 'list_waitlist',
  tool: 'usp_waitlist_list',
  rest: { method: 'POST', path: '/waitlist/list', input: 'body' },
  access: 'privileged_platform',
  scopes: ['usp:booking'],
  capability: CAP,
  mutating: false,
  conditional: false,
  writes: true,
  output: { entries: Out.objects, pagination: Out.object },
  summary: "List this platform's waitlist entries.",
  input: z.object({
    service_id: z.string().max(512).optional(),
    status: z.enum(WAITLIST_STATUSES).optional(),
    pagination: z
      .object({
        cursor: z.string().max(2048).nullable().optional(),
        limit: z.number().int().min(1).max(100).optional(),
      })
      .optional(),
  }),
  async handle(inp, ctx) {
    const limit = inp.pagination?.limit ?? 20;
    let after: { m: number; i: string } | undefined;
    if (inp.pagination?.cursor) {
      const c = decodeCursor(inp.pagination.cursor);
      if (!c || typeof c.m !== 'number' || typeof c.i !== 'string') {
        throw invalidRequest('pagination.cursor is not a cursor this business issued.', [
          { field: 'pagination.cursor', message: 'unknown cursor' },
        ]);
      }
      after = { m: c.m, i: c.i };
    }
    const rows = await ctx.tx.waitlist.list({
      principal: ctx.caller.business ? null : ctx.caller.principal,
      serviceId: inp.service_id,
      status: inp.status,
      afterCreatedMs: after?.m,
      afterId: after?.i,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    for (const r of page) await settleEntry(ctx, r);
    const last = page[page.length - 1];
    const more = rows.length > limit;
    const next = more && last ? encodeCursor({ m: last.priv.created_ms, i: last.entry.id }) : null;
    return ok({
      entries: page.map((r) => r.entry),
      pagination: { cursor: next, has_more: more, ...(next ? { next_cursor: next } : {}) },
    });
  },
});
