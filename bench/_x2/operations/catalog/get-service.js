import { z } from 'zod';
import { ProtocolError } from '../errors.js';
import { defineOperation, ok } from '../define.js';
import { id } from '../schemas.js';
import { withHint } from './present.js';
export const getService = defineOperation({
    name: 'get_service',
    tool: 'usp_services_get',
    rest: { method: 'GET', path: '/services/{service_id}', input: 'none' },
    access: 'public',
    capability: 'dev.usp-protocol.services.catalog',
    mutating: false,
    conditional: false,
    writes: false,
    summary: 'Get one service with its policies, pricing and availability hint.',
    input: z.object({ service_id: id('The service id, as listed by usp_services_list.') }),
    async handle(inp, ctx) {
        const s = ctx.biz.published.get(inp.service_id);
        if (!s) {
            throw new ProtocolError('not_found', `No service has the id ${JSON.stringify(inp.service_id)}; list services to find valid ids.`, {
                detailCode: 'service_not_found',
            });
        }
        return ok({ service: await withHint(ctx, s) });
    },
});
//# sourceMappingURL=get-service.js.map