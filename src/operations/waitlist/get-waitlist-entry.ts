import { z } from 'zod';
import { defineOperation, ok } from '../core/define.js';
import { loadEntry } from './offers.js';
import { entryNotFound } from './entries.js';
import { id, ENTRY_OUTPUT } from '../schemas.js';

const CAP = 'dev.usp-protocol.services.waitlist' as const;

const byEntry = z.object({ entry_id: id('The waitlist entry id.') });

export const getWaitlistEntry = defineOperation({
  name: 'get_waitlist_entry',
  tool: 'usp_waitlist_get',
  view: 'waitlist_card',
  rest: { method: 'GET', path: '/waitlist/{entry_id}', input: 'none' },
  resource: { kind: 'waitlist_entry', key: 'entry_id' },
  access: 'privileged_scoped',
  scopes: ['usp:booking'],
  capability: CAP,
  mutating: false,
  conditional: false,
  writes: true,
  output: ENTRY_OUTPUT,
  summary: 'Read a waitlist entry: position, and the offered slot when one is offered.',
  input: byEntry,
  async handle(inp, ctx) {
    const rec = await loadEntry(ctx, inp.entry_id);
    if (!rec) throw entryNotFound(inp.entry_id);
    return ok({ entry: rec.entry });
  },
});
