import { z } from 'zod';
import { warningMessage, type Message } from '../../domain/index.js';
import { ProtocolError } from '../core/errors.js';
import { Out } from '../schemas.js';
import { defineOperation } from '../core/define.js';
import { withHint } from './present-service.js';

/** Most ids one lookup accepts (the spec requires at least 50); published in the profile as `max_lookup_ids`. */
export const MAX_LOOKUP_IDS = 100;

export const lookupServices = defineOperation({
  name: 'lookup_services',
  tool: 'usp_services_lookup',
  rest: { method: 'POST', path: '/services/lookup', input: 'body' },
  access: 'public',
  capability: 'dev.usp-protocol.services.catalog',
  mutating: false,
  conditional: false,
  writes: false,
  output: { services: Out.objects },
  summary: `Fetch several services by id at once (up to ${MAX_LOOKUP_IDS}).`,
  input: z.object({
    ids: z
      .array(z.string().max(512))
      .min(1)
      .describe(`Service ids to fetch, at most ${MAX_LOOKUP_IDS}; duplicates are ignored.`),
    context: z.record(z.string(), z.unknown()).optional(),
  }),
  async handle(inp, ctx) {
    if (inp.ids.length > MAX_LOOKUP_IDS) {
      throw new ProtocolError(
        'limit_exceeded',
        `At most ${MAX_LOOKUP_IDS} ids can be looked up at once; ${inp.ids.length} were sent.`,
        {
          errors: [{ field: 'ids', message: `at most ${MAX_LOOKUP_IDS} items` }],
        },
      );
    }
    const seen = new Set<string>();
    const services: Record<string, unknown>[] = [];
    const messages: Message[] = [];
    for (const [i, sid] of inp.ids.entries()) {
      if (seen.has(sid)) continue;
      seen.add(sid);
      const s = ctx.biz.published.get(sid);
      if (s) services.push(await withHint(ctx, s));
      // Spec-next 9.4.2 renames the pinned text's per-id warning (one code is never both an outcome and an error).
      else
        messages.push(
          warningMessage('service_unresolved', `No service has the id ${JSON.stringify(sid)}.`, `$.ids[${i}]`),
        );
    }
    return { data: { services }, messages };
  },
});
