import { z } from 'zod';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, ok } from '../core/define.js';
import { Out } from '../schemas.js';
import { editDocument } from './definition-edit.js';
import { mergePatch } from './definition-document.js';

type Json = Record<string, unknown>;

/**
 * Change the business's settings: a merge patch of the business file's `settings` object, whatever
 * members its schema has (a new setting is covered without touching this row), checked as the file
 * is; `null` gives a member back its default. Every process runs the new values from its next call,
 * except where a command-line flag overrides a setting in that process, and `mail_templates`, whose
 * files (only inside the operator's templates folder) are read when the server starts.
 */
export const updateSettings = defineOperation({
  name: 'update_settings',
  rest: { method: 'PATCH', path: '/admin/settings', input: 'body' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.catalog',
  dashboard: 'settings_update',
  output: { settings: Out.object },
  summary: "Change the business's settings (a merge patch of the business file's settings; null restores a default).",
  input: z.looseObject({}),
  async handle(inp: Json, ctx) {
    const { def, messages } = await editDocument(ctx, {
      apply(doc) {
        doc.settings = mergePatch(doc.settings ?? {}, inp) as Json;
        return ['settings'];
      },
    });
    return { ...ok({ settings: def.settings }), messages };
  },
});
