/**
 * Search services across registered businesses (spec 6.3) with the hard filters of 6.3.1. Each
 * result names its business and when it was indexed; it is a snapshot, not the business's word.
 */
import { z } from 'zod';
import { minorAmount } from '../../domain/index.js';
import { defineRegistryOperation, ok, outcome } from '../core/define.js';
import { Out } from '../schemas.js';
import { iso } from '../core/context.js';
import { RangeMatch, searchFields } from './schemas.js';
import { page, planSearch } from './search.js';

export const searchServices = defineRegistryOperation({
  name: 'search_services',
  tool: 'usp_registry_search_services',
  rest: { method: 'POST', path: '/registry/search_services', input: 'body' },
  access: 'public',
  capability: 'dev.usp-protocol.discovery.registry',
  mutating: false,
  conditional: false,
  writes: false,
  output: { services: Out.objects, pagination: Out.object },
  summary: 'Search services across registered businesses; at least one filter is required.',
  input: z.object({
    ...searchFields,
    price_range: z
      .object({
        min: minorAmount(0).optional(),
        max: minorAmount(0).optional(),
        currency: z.string().max(10).optional(),
        match: RangeMatch.optional(),
      })
      .optional()
      .describe('Price interval in minor units of one currency (no conversion); match defaults to overlap.'),
    duration_range: z
      .object({
        min_minutes: z.number().int().min(0).optional(),
        max_minutes: z.number().int().min(0).optional(),
        match: RangeMatch.optional(),
      })
      .optional()
      .describe('Duration interval in minutes; match defaults to overlap.'),
  }),
  async handle(inp, ctx) {
    const planned = planSearch(inp, 'service');
    if (!planned.ok) return outcome(planned.message, { services: [], pagination: { cursor: null, has_more: false } });
    const hits = await ctx.tx.registry.searchServices(planned.filter, planned.offset, planned.limit + 1);
    const { items, pagination } = page(hits, planned);
    return ok({
      services: items.map(({ service, business }) => ({
        ...service.result,
        business: {
          id: business.id,
          profile_url: business.profile_url,
          deployment_mode: business.deployment_mode,
          name: business.entry.name,
        },
        last_indexed_at: iso(service.indexed_ms),
      })),
      pagination,
    });
  },
});
