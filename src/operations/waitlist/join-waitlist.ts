/** Join a waitlist (spec 11.1); the entry is visible only to the principal that created it. */
import { z } from 'zod';
import { errorMessage, type WaitlistRecord, resolveSlotId } from '../../domain/index.js';
import { PLATFORM_CREATE } from '../change-rows.js';
import { defineOperation, ok, outcome } from '../core/define.js';
import { iso, newRevision } from '../core/context.js';
import { Buyer, id, Out } from '../schemas.js';
import { markPlatformMessages, rememberLocale } from '../notifications/mail-messages.js';
import { serviceUnavailable } from '../availability/slot-refusals.js';

const CAP = 'dev.usp-protocol.services.waitlist' as const;

/** A waitlist entry stays actionable this long (its credential's lifetime). */
const WAITLIST_CREDENTIAL_DAYS = 90;

export const joinWaitlist = defineOperation({
  name: 'join_waitlist',
  tool: 'usp_waitlist_join',
  view: 'waitlist_card',
  rest: { method: 'POST', path: '/waitlist', input: 'body' },
  ...PLATFORM_CREATE,
  rate: { bucket: 'bookings' },
  capability: CAP,
  output: { entry: Out.object, booking_scoped_credential: Out.object },
  summary: 'Put a buyer on the waitlist of a full service or slot.',
  input: z.object({
    service_id: id('The service to wait for.'),
    slot_id: z
      .string()
      .max(512)
      .optional()
      .describe('A specific full slot to wait for; omit to take any matching place.'),
    buyer: Buyer,
    party_size: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe('How many people wait together (default 1); an offer is for all of them.'),
    preferred_slots: z
      .array(
        z.object({
          start_date: z.iso.date().optional(),
          end_date: z.iso.date().optional(),
          time_of_day: z.string().max(50).optional().describe('morning, afternoon or evening'),
        }),
      )
      .max(20)
      .optional(),
  }),
  async handle(inp, ctx) {
    const service = ctx.biz.services.get(inp.service_id);
    if (!service)
      return outcome(
        errorMessage('validation_error', `No service has the id ${JSON.stringify(inp.service_id)}.`, '$.service_id'),
      );
    // A service that takes no booking now (suspended, archived) takes no one in line for it either, saying why.
    if (ctx.biz.published.get(service.id)?.status !== 'active') return outcome(serviceUnavailable(ctx, service.id));
    if (!service.capacity?.waitlist) {
      return outcome(
        errorMessage(
          'waitlist_not_available',
          'This service has no waitlist; query availability for open slots instead.',
          '$.service_id',
        ),
      );
    }
    const party = inp.party_size ?? 1;
    const most = service.capacity?.max ?? 1;
    if (party > most)
      return outcome(
        errorMessage(
          'validation_error',
          `A place here holds at most ${most}; a party of ${party} cannot wait for one.`,
          '$.party_size',
        ),
      );
    if (inp.slot_id) {
      if (!resolveSlotId(inp.slot_id, service, ctx.biz.resources))
        return outcome(errorMessage('validation_error', 'That slot id does not belong to this service.', '$.slot_id'));
    }
    const line = await ctx.tx.waitlist.byService(service.id, ['waiting', 'offered']);
    if (line.length >= ctx.biz.def.settings.max_waitlist_entries) {
      return outcome(errorMessage('waitlist_full', 'The waitlist for this service is full.'));
    }
    const rec: WaitlistRecord = {
      entry: {
        id: ctx.ids.next('wle'),
        service_id: service.id,
        buyer: inp.buyer,
        status: 'waiting',
        position: line.length + 1,
        party_size: party,
        created_at: iso(ctx.now),
        revision: newRevision(ctx),
      },
      // Queue order is (created_ms, id) and ids are random: keep created_ms strictly increasing in line so same-millisecond joins stay in join order.
      priv: {
        principal: ctx.caller.principal,
        profile: ctx.caller.profile,
        created_ms: line.reduce((m, w) => Math.max(m, w.priv.created_ms + 1), ctx.now),
      },
    };
    if (inp.slot_id) rec.entry.slot_id = inp.slot_id;
    if (inp.preferred_slots) rec.entry.preferred_slots = inp.preferred_slots;
    markPlatformMessages(ctx, rec);
    rememberLocale(ctx, rec);
    await ctx.tx.waitlist.insert(rec);
    const credential = await ctx.issueCredential(
      'waitlist_entry',
      rec.entry.id,
      ctx.now + WAITLIST_CREDENTIAL_DAYS * 86_400_000,
    );
    return ok({ entry: rec.entry, ...(credential ? { booking_scoped_credential: credential } : {}) });
  },
});
