import { z } from 'zod';
import { errorMessage, nextWaitlistStatus } from '../../domain/index.js';
import { defineOperation, ok, outcome } from '../define.js';
import { checkRevision } from '../steps/booking-lifecycle.js';
import { endOffer, loadEntry } from '../steps/waitlist-offers.js';
import { entryConflict, entryNotFound } from '../steps/waitlist-entries.js';
import { id, ENTRY_OUTPUT } from '../schemas.js';

const CAP = 'dev.usp-protocol.services.waitlist' as const;

const byEntry = z.object({ entry_id: id('The waitlist entry id.') });

export const declineWaitlistOffer = defineOperation({
  name: 'decline_waitlist_offer',
  tool: 'usp_waitlist_decline',
  view: 'waitlist_card',
  rest: { method: 'POST', path: '/waitlist/{entry_id}/decline', input: 'body' },
  resource: { kind: 'waitlist_entry', key: 'entry_id' },
  access: 'privileged_scoped',
  scopes: ['usp:booking'],
  capability: CAP,
  page: 'waitlist_offer_decline',
  mutating: true,
  conditional: true,
  writes: true,
  destructive: true,
  output: ENTRY_OUTPUT,
  summary: 'Decline the offered place; it goes to the next buyer in line.',
  input: byEntry,
  async handle(inp, ctx) {
    const rec = await loadEntry(ctx, inp.entry_id);
    if (!rec) return entryNotFound(inp.entry_id);
    if (rec.entry.status === 'declined') return ok({ entry: rec.entry });
    if (rec.entry.status === 'expired') return outcome(errorMessage('offer_expired', 'The offer had already expired.'), { entry: rec.entry });
    if (!nextWaitlistStatus(rec.entry.status, 'decline')) throw entryConflict(rec, 'declined: there is no open offer');
    checkRevision(ctx, rec.entry.revision);
    await endOffer(ctx, rec, 'declined');
    return ok({ entry: rec.entry });
  },
});
