import { errorMessage, nextWaitlistStatus } from '../../domain/index.js';
import { BY_ENTRY, ENTRY_CHANGE } from '../change-rows.js';
import { defineOperation, ok, outcome } from '../core/define.js';
import { checkRevision } from '../bookings/lifecycle.js';
import { enterEntryStatus, loadEntry } from './offers.js';
import { entryConflict, entryNotFound } from './entries.js';
import { ENTRY_OUTPUT } from '../schemas.js';

export const declineWaitlistOffer = defineOperation({
  name: 'decline_waitlist_offer',
  tool: 'usp_waitlist_decline',
  view: 'waitlist_card',
  rest: { method: 'POST', path: '/waitlist/{entry_id}/decline', input: 'body' },
  ...ENTRY_CHANGE,
  page: 'waitlist_offer_decline',
  destructive: true,
  output: ENTRY_OUTPUT,
  summary: 'Decline the offered place; it goes to the next buyer in line.',
  input: BY_ENTRY,
  async handle(inp, ctx) {
    const rec = await loadEntry(ctx, inp.entry_id);
    if (!rec) throw entryNotFound(inp.entry_id);
    if (rec.entry.status === 'declined') return ok({ entry: rec.entry });
    if (rec.entry.status === 'expired')
      return outcome(errorMessage('offer_expired', 'The offer had already expired.'), { entry: rec.entry });
    if (!nextWaitlistStatus(rec.entry.status, 'decline')) throw entryConflict(rec, 'declined: there is no open offer');
    checkRevision(ctx, rec.entry.revision);
    await enterEntryStatus(ctx, rec, 'decline');
    return ok({ entry: rec.entry });
  },
});
