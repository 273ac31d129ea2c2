import { z } from 'zod';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { ProtocolError } from '../core/errors.js';
import { id, Out } from '../schemas.js';

/** Everyone waiting for (or offered) a place on one service, oldest first: the business's view of the line. */
export const listServiceWaitlist = defineOperation({
  name: 'list_service_waitlist',
  rest: { method: 'GET', path: '/admin/services/{service_id}/waitlist', input: 'none' },
  access: 'business_only',
  capability: 'dev.usp-protocol.services.waitlist',
  mutating: false,
  conditional: false,
  writes: false,
  dashboard: 'waitlist',
  output: { entries: Out.objects },
  summary: "A service's waitlist: entries waiting or offered a place, oldest first.",
  input: z.object({ service_id: id('The service id.') }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    if (!ctx.biz.services.has(inp.service_id)) throw new ProtocolError('not_found', `No service ${inp.service_id}.`);
    const recs = await ctx.tx.waitlist.byService(inp.service_id, ['waiting', 'offered']);
    return ok({ entries: recs.map((r) => r.entry) });
  },
});
