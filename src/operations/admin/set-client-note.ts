import { z } from 'zod';
import { isoUtc } from '../../domain/index.js';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { Out } from '../schemas.js';
import { clientKeys } from './personal-data.js';
import { PersonInput, personFrom } from './person-input.js';

/**
 * The business's private note about a client (never shown to a platform or the buyer, except in
 * the buyer's own data export): kept under the client's email, else their phone; an empty note
 * removes it. The answer does not repeat the note or the person, so no stored copy of it names them.
 */
export const setClientNote = defineOperation({
  name: 'set_client_note',
  rest: { method: 'PUT', path: '/admin/clients/note', input: 'body' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.bookings',
  idempotent: true,
  dashboard: 'client_note',
  output: { saved: Out.object },
  summary: 'Write (or, empty, remove) the private note the business keeps about a client.',
  input: z.object({ ...PersonInput, note: z.string().max(5000).describe('The note; empty removes it.') }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const keys = clientKeys(personFrom(inp));
    const note = inp.note.trim();
    if (note === '') {
      for (const k of keys) await ctx.tx.frontdesk.deleteClientNote(k);
      return ok({ saved: { removed: true } });
    }
    // One note per person: under the email when there is one, any note under the phone folded into it.
    await ctx.tx.frontdesk.putClientNote({
      client_key: keys[0],
      note,
      updated_ms: ctx.now,
      updated_by: ctx.caller.actor ?? 'business',
    });
    for (const k of keys.slice(1)) await ctx.tx.frontdesk.deleteClientNote(k);
    return ok({ saved: { updated_at: isoUtc(ctx.now) } });
  },
});
