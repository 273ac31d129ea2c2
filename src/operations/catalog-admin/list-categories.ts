import { z } from 'zod';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { Out } from '../schemas.js';
import { categoriesInUse } from './categories.js';

/** The categories the services carry (those with an id), each with the services that carry it. */
export const listCategories = defineOperation({
  name: 'list_categories',
  rest: { method: 'GET', path: '/admin/categories', input: 'query' },
  access: 'business_only',
  capability: 'dev.usp-protocol.services.catalog',
  mutating: false,
  conditional: false,
  writes: false,
  dashboard: 'categories',
  output: { categories: Out.objects },
  summary: 'List the categories on the services, each with the services that carry it.',
  input: z.object({}),
  async handle(_inp, ctx) {
    requireBusiness(ctx);
    return ok({ categories: categoriesInUse(ctx.biz.def).map((c) => ({ ...c.category, service_ids: c.service_ids })) });
  },
});
