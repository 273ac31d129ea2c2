import { z } from 'zod';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, ok } from '../core/define.js';
import { Out } from '../schemas.js';
import { addCategory, categoriesInUse, keyOf } from './categories.js';
import { editDocument } from './definition-edit.js';
import { SERVICE_IDS, TAXONOMY } from './category-input.js';

/**
 * Add a category to services: the body is the category entry as the business file writes it in a
 * service's `categories` (id, name, parent_id, value, primary) and the services to put it on; the
 * services get service.updated.
 */
export const createCategory = defineOperation({
  name: 'create_category',
  rest: { method: 'POST', path: '/admin/categories', input: 'body' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.catalog',
  creates: true,
  dashboard: 'category_create',
  output: { category: Out.object, service_ids: Out.array },
  summary: 'Add a category (a services[].categories entry) to the services named; they get service.updated.',
  input: z.looseObject({
    id: z.string().min(1).max(128).describe('The category id, unique within its taxonomy.'),
    taxonomy: TAXONOMY,
    service_ids: SERVICE_IDS.min(1, 'must name at least one service'),
  }),
  async handle(inp, ctx) {
    const { service_ids, taxonomy, id, ...entry } = inp;
    const key = keyOf(id, taxonomy);
    const { def } = await editDocument(ctx, { apply: (doc) => addCategory(doc, key, entry, service_ids) });
    const made = categoriesInUse(def).find((c) => c.category.id === key.id && c.category.taxonomy === key.taxonomy);
    return ok({
      category: made?.category ?? { ...entry, taxonomy: key.taxonomy, id },
      service_ids: made?.service_ids ?? service_ids,
    });
  },
});
