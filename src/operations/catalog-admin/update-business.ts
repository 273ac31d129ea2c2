import { z } from 'zod';
import { defineOperation, ok } from '../define.js';
import { invalidRequest } from '../errors.js';
import { Out } from '../schemas.js';
import { editDocument } from '../steps/definition-edit.js';
import { mergePatch } from '../steps/definition-document.js';

type Json = Record<string, unknown>;

/**
 * Change the business's own details: a merge patch of the business file's `business` object (name,
 * time zone, currency, locale; whatever members the file's schema gives it), checked as the file is.
 * Its id names the database and every published service, so it stays; its locations have their own
 * operations. A new time zone moves every local hour: bookings it would strand are refused unless
 * forced. The spec has no event for the business's details: platforms read them from the profile,
 * and a registered business registers again.
 */
export const updateBusiness = defineOperation({
  name: 'update_business',
  rest: { method: 'PATCH', path: '/admin/business', input: 'body' },
  access: 'business_only',
  capability: 'dev.usp-protocol.services.catalog',
  mutating: true,
  conditional: false,
  writes: true,
  dashboard: 'business_update',
  output: { business: Out.object },
  summary: "Change the business's details (a merge patch of the business file's business object: name, time zone, currency, locale).",
  input: z.looseObject({
    force: z.boolean().optional().describe('Store the change even when it strands live bookings: they stay as booked and are named in a warning.'),
  }),
  async handle(inp: Json & { force?: boolean }, ctx) {
    const { force, ...patch } = inp;
    if ('locations' in patch) {
      throw invalidRequest('locations: change them with POST /admin/locations and PATCH /admin/locations/{location_id}', [
        { field: 'locations', message: 'has operations of its own (/admin/locations)' },
      ]);
    }
    const { def, messages } = await editDocument(ctx, {
      force,
      apply(doc) {
        const current = doc.business as Json;
        const next = mergePatch(current, patch) as Json;
        if (next.id !== current.id) {
          throw invalidRequest("id: the business's id cannot change (the database and every published service are named after it)", [{ field: 'id', message: 'cannot change' }]);
        }
        doc.business = { ...next, locations: current.locations };
        return ['business'];
      },
    });
    const { locations: _locations, ...details } = def.business;
    return { ...ok({ business: details }), messages };
  },
});
