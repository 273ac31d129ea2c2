import { z } from 'zod';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { ProtocolError } from '../core/errors.js';
import { id, Out } from '../schemas.js';
import { presentKey } from './create-api-key.js';

/** Revoke a platform API key issued at run time: the next call with it is refused. */
export const revokeApiKey = defineOperation({
  name: 'revoke_api_key',
  rest: { method: 'POST', path: '/admin/api-keys/{key_id}/revoke', input: 'none' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.bookings',
  destructive: true,
  dashboard: 'api_key_revoke',
  output: { api_key: Out.object },
  summary: 'Revoke a platform API key.',
  input: z.object({ key_id: id('The key id.') }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const revoked = await ctx.tx.admin.revokePlatformKey(inp.key_id, ctx.now);
    const row = (await ctx.tx.admin.platformKeys()).find((k) => k.id === inp.key_id);
    if (!row) throw new ProtocolError('not_found', `No API key ${inp.key_id}.`);
    if (!revoked)
      throw new ProtocolError('invalid_request', `API key ${inp.key_id} is already revoked.`, {
        detailCode: 'already_revoked',
      });
    return ok({ api_key: presentKey(row) });
  },
});
