import { z } from 'zod';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { BUSINESS_READ } from '../change-rows.js';
import { Out } from '../schemas.js';
import { presentKey } from './create-api-key.js';

/** Platform API keys issued at run time (never their values), revoked ones included. */
export const listApiKeys = defineOperation({
  name: 'list_api_keys',
  rest: { method: 'GET', path: '/admin/api-keys', input: 'none' },
  ...BUSINESS_READ,
  dashboard: 'api_keys',
  output: { api_keys: Out.objects },
  summary: 'Platform API keys issued at run time (ids, labels, dates; never the secrets).',
  input: z.object({}),
  async handle(_inp, ctx) {
    requireBusiness(ctx);
    return ok({ api_keys: (await ctx.tx.admin.platformKeys()).map(presentKey) });
  },
});
