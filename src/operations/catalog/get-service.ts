import { z } from 'zod';
import { errorMessage } from '../../domain/index.js';
import { defineOperation, ok } from '../core/define.js';
import { MissingResource } from '../core/errors.js';
import { id, Out } from '../schemas.js';
import { withHint } from './present-service.js';

export const getService = defineOperation({
  name: 'get_service',
  tool: 'usp_services_get',
  rest: { method: 'GET', path: '/services/{service_id}', input: 'none' },
  access: 'public',
  capability: 'dev.usp-protocol.services.catalog',
  mutating: false,
  conditional: false,
  writes: false,
  output: { service: Out.object },
  summary: 'Get one service with its policies, pricing and availability hint.',
  input: z.object({ service_id: id('The service id, as listed by usp_services_list.') }),
  async handle(inp, ctx) {
    const s = ctx.biz.published.get(inp.service_id);
    // An unknown id in the path is a 404 service_not_found, whatever its form (spec-next 3.12.3, 9.4.3).
    if (!s) {
      throw new MissingResource(
        errorMessage(
          'service_not_found',
          `No service has the id ${JSON.stringify(inp.service_id)}; list services (usp_services_list) to find valid ids.`,
          '$.service_id',
        ),
      );
    }
    return ok({ service: await withHint(ctx, s) });
  },
});
