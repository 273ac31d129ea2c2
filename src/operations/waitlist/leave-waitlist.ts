import { BY_ENTRY, ENTRY_CHANGE } from '../change-rows.js';
import { defineOperation, ok } from '../core/define.js';
import { checkRevision } from '../bookings/lifecycle.js';
import { enterEntryStatus, loadEntry } from './offers.js';
import { nextWaitlistStatus } from '../../domain/index.js';
import { entryConflict, entryNotFound } from './entries.js';
import { ENTRY_OUTPUT } from '../schemas.js';

export const leaveWaitlist = defineOperation({
  name: 'leave_waitlist',
  tool: 'usp_waitlist_leave',
  rest: { method: 'DELETE', path: '/waitlist/{entry_id}', input: 'none' },
  ...ENTRY_CHANGE,
  destructive: true,
  output: ENTRY_OUTPUT,
  summary: 'Take a buyer off the waitlist.',
  input: BY_ENTRY,
  async handle(inp, ctx) {
    const rec = await loadEntry(ctx, inp.entry_id);
    if (!rec) throw entryNotFound(inp.entry_id);
    if (rec.entry.status === 'removed') return ok({ entry: rec.entry });
    // With an open offer, leaving declines it first; otherwise the map says whether the entry may leave.
    if (rec.entry.status !== 'offered' && !nextWaitlistStatus(rec.entry.status, 'leave'))
      throw entryConflict(rec, 'left after its offer was accepted');
    checkRevision(ctx, rec.entry.revision);
    if (rec.entry.status === 'offered') await enterEntryStatus(ctx, rec, 'decline');
    await enterEntryStatus(ctx, rec, 'leave');
    return ok({ entry: rec.entry });
  },
});
