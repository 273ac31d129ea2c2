import { z } from 'zod';
import { errorMessage } from '../../domain/index.js';
import { defineOperation, ok, outcome } from '../core/define.js';
import { id, Out } from '../schemas.js';
import { enterHoldStatus } from '../waitlist/offers.js';
import { holdView, loadHold } from './holds.js';

export const releaseHold = defineOperation({
  name: 'release_hold',
  tool: 'usp_availability_release',
  rest: { method: 'DELETE', path: '/availability/holds/{hold_id}', input: 'none' },
  resource: { kind: 'hold', key: 'hold_id' },
  access: 'privileged_scoped',
  scopes: ['usp:booking'],
  capability: 'dev.usp-protocol.services.availability',
  mutating: true,
  // Release ignores preconditions (spec 5.6): releasing twice is harmless.
  conditional: false,
  writes: true,
  destructive: true,
  idempotent: true,
  output: { hold: Out.object },
  summary: 'Release a hold early so others can book the slot. Safe to repeat.',
  input: z.object({ hold_id: id('The hold to release.') }),
  async handle(inp, ctx) {
    const rec = await loadHold(ctx, inp.hold_id);
    if (!rec)
      return outcome(
        errorMessage('hold_not_found', `No hold ${JSON.stringify(inp.hold_id)} belongs to this platform.`, '$.hold_id'),
      );
    const view = holdView(rec, ctx.now);
    if (view.status !== 'active') return ok({ hold: view });
    await enterHoldStatus(ctx, rec, 'release');
    return ok({ hold: rec.hold });
  },
});
