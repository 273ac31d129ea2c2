/** Search registered businesses (spec 6.2) by place, vertical, category, text and deployment mode. */
import { z } from 'zod';
import { defineRegistryOperation, ok, outcome } from '../core/define.js';
import { Out } from '../schemas.js';
import { presentEntry } from './indexing.js';
import { searchFields } from './schemas.js';
import { page, planSearch } from './search.js';

export const searchBusinesses = defineRegistryOperation({
  name: 'search_businesses',
  tool: 'usp_registry_search_business',
  rest: { method: 'POST', path: '/registry/search_business', input: 'body' },
  access: 'public',
  capability: 'dev.usp-protocol.discovery.registry',
  mutating: false,
  conditional: false,
  writes: false,
  output: { businesses: Out.objects, pagination: Out.object },
  summary: 'Search registered businesses; at least one filter is required.',
  input: z.object({
    ...searchFields,
    deployment_mode: z
      .enum(['standalone', 'ucp_native'])
      .optional()
      .describe('Only businesses of this deployment mode.'),
  }),
  async handle(inp, ctx) {
    const planned = planSearch(inp, 'business');
    if (!planned.ok) return outcome(planned.message, { businesses: [], pagination: { cursor: null, has_more: false } });
    const rows = await ctx.tx.registry.searchBusinesses(planned.filter, planned.offset, planned.limit + 1);
    const { items, pagination } = page(rows, planned);
    return ok({ businesses: items.map(presentEntry), pagination });
  },
});
