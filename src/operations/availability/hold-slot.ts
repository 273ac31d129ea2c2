import { z } from 'zod';
import { errorMessage, isCapacityType } from '../../domain/index.js';
import { ProtocolError } from '../core/errors.js';
import { PLATFORM_CREATE } from '../change-rows.js';
import { defineOperation, ok, outcome } from '../core/define.js';
import { checkSlot, claimRows } from './slots.js';
import { serviceUnavailable } from './slot-refusals.js';
import { iso } from '../core/context.js';
import { id, Out } from '../schemas.js';

export const holdSlot = defineOperation({
  name: 'hold_slot',
  tool: 'usp_availability_hold',
  view: 'booking_card',
  rest: { method: 'POST', path: '/availability/holds', input: 'body' },
  ...PLATFORM_CREATE,
  rate: { bucket: 'holds' },
  capability: 'dev.usp-protocol.services.availability',
  output: { hold: Out.object, booking_scoped_credential: Out.object },
  summary: 'Hold a slot for a few minutes while the buyer completes the booking.',
  input: z.object({
    slot_id: id('A slot id from usp_availability_query.'),
    service_id: id('The service the slot belongs to.'),
    spots: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe('Spots to hold for group classes and reservations; default 1.'),
  }),
  async handle(inp, ctx) {
    const service = ctx.biz.services.get(inp.service_id);
    if (!service)
      return outcome(
        errorMessage('validation_error', `No service has the id ${JSON.stringify(inp.service_id)}.`, '$.service_id'),
      );
    if (ctx.biz.published.get(service.id)?.status !== 'active') return outcome(serviceUnavailable(ctx, service.id));
    const spots = inp.spots ?? 1;
    if (spots > 1 && !isCapacityType(service)) {
      return outcome(
        errorMessage('validation_error', 'Only group classes and reservations can hold more than one spot.', '$.spots'),
      );
    }
    const settings = ctx.biz.def.settings;
    // The platform's active holds (the limit, below) and the slot: independent reads, so a store may
    // send them in one round trip; a refusal for the limit leaves the check unused.
    const [active, check] = await ctx.tx.together(
      () => ctx.tx.holds.countActive(ctx.caller.principal, null, service.id, ctx.now),
      () => checkSlot(ctx.tx, ctx.biz, service, inp.slot_id, spots, ctx.now),
    );
    if (active >= settings.max_active_holds_per_buyer) {
      throw new ProtocolError(
        'rate_limited',
        `At most ${settings.max_active_holds_per_buyer} active holds per platform and buyer on one service; release or use one first.`,
        {
          detailCode: 'hold_limit_exceeded',
          retryAfter: 60,
        },
      );
    }
    if (!check.ok) {
      if (check.reason === 'malformed' || check.reason === 'wrong_service') {
        return outcome(
          errorMessage(
            'slot_unavailable',
            'That slot id does not belong to this service; query availability again.',
            '$.slot_id',
          ),
        );
      }
      if (check.reason === 'window')
        return outcome(
          errorMessage(
            'booking_window_violated',
            'That slot is outside the booking window of this service.',
            '$.slot_id',
          ),
        );
      // Spec 4.2: a hold for more spots than capacity.remaining is rejected with slot_unavailable
      // (capacity_exceeded is the booking's answer for a party its hold does not cover).
      if (check.reason === 'capacity')
        return outcome(errorMessage('slot_unavailable', `Fewer than ${spots} spots remain in that slot.`, '$.spots'));
      return outcome(
        errorMessage('slot_unavailable', 'That slot was just taken; query availability and pick another.', '$.slot_id'),
      );
    }
    const expiresMs = Math.min(ctx.now + settings.hold_ttl_seconds * 1000, check.slot.startMs);
    const holdId = ctx.ids.next('hld');
    await ctx.tx.claims.add(claimRows(service, check.slot, holdId, spots, true, expiresMs));
    const hold = {
      id: holdId,
      slot_id: check.slot.id,
      service_id: service.id,
      spots,
      expires_at: iso(expiresMs),
      status: 'active' as const,
    };
    await ctx.tx.holds.insert({
      hold,
      priv: {
        principal: ctx.caller.principal,
        profile: ctx.caller.profile,
        slot_key: check.slot.key,
        start_ms: check.slot.startMs,
        end_ms: check.slot.endMs,
        resource_ids: [...check.slot.resourceIds],
        expires_at_ms: expiresMs,
      },
    });
    const credential = await ctx.issueCredential('hold', holdId, expiresMs);
    return ok({ hold, ...(credential ? { booking_scoped_credential: credential } : {}) });
  },
});
