import { z } from 'zod';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, ok } from '../core/define.js';
import { Out } from '../schemas.js';
import { keyOf, removeCategory } from './categories.js';
import { editDocument } from './definition-edit.js';
import { TAXONOMY } from './category-input.js';

/** Take a category off every service that carries it (the services stay, and get service.updated). */
export const deleteCategory = defineOperation({
  name: 'delete_category',
  rest: { method: 'DELETE', path: '/admin/categories/{category_id}', input: 'query' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.catalog',
  destructive: true,
  dashboard: 'category_delete',
  output: { category_id: Out.string, taxonomy: Out.string, service_ids: Out.array },
  summary: 'Take a category off every service that carries it; the services get service.updated.',
  input: z.object({ category_id: z.string().min(1).max(128).describe('The category to remove.'), taxonomy: TAXONOMY }),
  async handle(inp, ctx) {
    const key = keyOf(inp.category_id, inp.taxonomy);
    let from: string[] = [];
    await editDocument(ctx, {
      apply(doc) {
        from = removeCategory(doc, key);
        return [];
      },
    });
    return ok({ category_id: key.id, taxonomy: key.taxonomy, service_ids: from });
  },
});
