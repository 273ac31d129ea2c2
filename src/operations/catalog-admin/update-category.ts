import { z } from 'zod';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, ok } from '../core/define.js';
import { Out } from '../schemas.js';
import { categoriesInUse, changeCategory, keyOf } from './categories.js';
import { mergePatch } from './definition-document.js';
import { editDocument } from './definition-edit.js';
import { FORCE, SERVICE_IDS, TAXONOMY } from './category-input.js';

type Json = Record<string, unknown>;

/**
 * Change a category on every service that carries it: a merge patch of the entry (name, parent_id,
 * value, primary), and with `service_ids`, exactly which services carry it; each service changed
 * gets service.updated.
 */
export const updateCategory = defineOperation({
  name: 'update_category',
  rest: { method: 'PATCH', path: '/admin/categories/{category_id}', input: 'body' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.catalog',
  dashboard: 'category_update',
  output: { category: Out.object, service_ids: Out.array },
  summary:
    'Change a category on every service carrying it (a merge patch of the entry; service_ids sets which services carry it).',
  input: z.looseObject({
    category_id: z.string().min(1).max(128).describe('The category to change.'),
    taxonomy: TAXONOMY,
    service_ids: SERVICE_IDS.optional(),
    force: FORCE,
  }),
  async handle(inp, ctx) {
    const { category_id, taxonomy, service_ids, force, ...patch } = inp;
    const key = keyOf(category_id, taxonomy);
    const { def, messages } = await editDocument(ctx, {
      force,
      apply: (doc) => changeCategory(doc, key, (current) => mergePatch(current, patch) as Json, service_ids),
    });
    const now = categoriesInUse(def).find((c) => c.category.id === key.id && c.category.taxonomy === key.taxonomy);
    return {
      ...ok({ category: now?.category ?? { taxonomy: key.taxonomy, id: key.id }, service_ids: now?.service_ids ?? [] }),
      messages,
    };
  },
});
