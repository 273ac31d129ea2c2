import { z } from 'zod';
import { isoUtc } from '../../domain/index.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { BUSINESS_READ } from '../change-rows.js';
import { Out } from '../schemas.js';
import { bookingsOfPerson, clientKeys } from './personal-data.js';
import { PersonInput, personFrom } from './person-input.js';

/**
 * A client as the front desk sees them, found by email or phone: every booking they made or
 * received (newest first, whichever platform or desk made it) and the business's private note.
 */
export const getClient = defineOperation({
  name: 'get_client',
  rest: { method: 'GET', path: '/admin/clients', input: 'query' },
  ...BUSINESS_READ,
  dashboard: 'client',
  output: { bookings: Out.objects, note: Out.object },
  summary: "A client's booking history (by email or phone) and the business's private note about them.",
  input: z.object(PersonInput),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const person = personFrom(inp);
    const records = await bookingsOfPerson(ctx, person);
    let note = null;
    for (const k of clientKeys(person)) {
      const n = await ctx.tx.frontdesk.clientNote(k);
      if (n) {
        note = { note: n.note, updated_at: isoUtc(n.updated_ms), updated_by: n.updated_by };
        break;
      }
    }
    return ok({
      bookings: records.map((r) => ({
        booking: r.booking,
        start_ms: r.priv.start_ms,
        end_ms: r.priv.end_ms,
        resource_ids: r.priv.resource_ids,
      })),
      note,
    });
  },
});
