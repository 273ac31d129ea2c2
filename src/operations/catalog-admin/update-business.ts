import { z } from 'zod';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, ok } from '../core/define.js';
import { invalidRequest } from '../core/errors.js';
import { Out } from '../schemas.js';
import { editDocument } from './definition-edit.js';
import { mergePatch } from './definition-document.js';
import { FORCE } from './category-input.js';

type Json = Record<string, unknown>;

/**
 * Change the business's own details: a merge patch of the business file's `business` object (name,
 * time zone, currency, locale; whatever members the file's schema gives it), checked as the file is.
 * Its id names the database and every published service, so it stays; its locations have their own
 * operations. A new time zone moves every local hour: bookings it would strand are refused unless
 * forced. A new currency re-denominates every service priced in the old one (amounts in minor units
 * kept as they are; each such service gets service.updated), since the file wants them equal. The spec has no event for the business's details: platforms read them from the profile,
 * and a registered business registers again.
 */
export const updateBusiness = defineOperation({
  name: 'update_business',
  rest: { method: 'PATCH', path: '/admin/business', input: 'body' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.catalog',
  dashboard: 'business_update',
  output: { business: Out.object },
  summary:
    "Change the business's details (a merge patch of the business file's business object: name, time zone, currency, locale); a new currency re-prices every service in it.",
  input: z.looseObject({ force: FORCE }),
  async handle(inp: Json & { force?: boolean }, ctx) {
    const { force, ...patch } = inp;
    if ('locations' in patch) {
      throw invalidRequest(
        'locations: change them with POST /admin/locations and PATCH /admin/locations/{location_id}',
        [{ field: 'locations', message: 'has operations of its own (/admin/locations)' }],
      );
    }
    const { def, messages } = await editDocument(ctx, {
      force,
      apply(doc) {
        const current = doc.business as Json;
        const next = mergePatch(current, patch) as Json;
        if (next.id !== current.id) {
          throw invalidRequest(
            "id: the business's id cannot change (the database and every published service are named after it)",
            [{ field: 'id', message: 'cannot change' }],
          );
        }
        doc.business = { ...next, locations: current.locations };
        // Every service is priced in the business's currency: a new one re-denominates them all (amounts kept).
        const moved: string[] = [];
        if (next.currency !== current.currency) {
          (doc.services as Json[]).forEach((svc, i) => {
            const pricing = svc.pricing as Json | undefined;
            if (pricing && pricing.currency === current.currency) {
              svc.pricing = { ...pricing, currency: next.currency };
              moved.push(`services[${i}].pricing`);
            }
          });
        }
        return ['business', ...moved];
      },
    });
    const { locations: _locations, ...details } = def.business;
    return { ...ok({ business: details }), messages };
  },
});
