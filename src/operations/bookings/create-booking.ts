import { z } from 'zod';
import { errorMessage, isCapacityType, sameSlotId } from '../../domain/index.js';
import { PLATFORM_CREATE } from '../change-rows.js';
import { defineOperation, ok, outcome } from '../core/define.js';
import { checkSlot, type SlotCheck } from '../availability/slots.js';
import { serviceUnavailable, slotRefusal } from '../availability/slot-refusals.js';
import { createBookingRecord } from './lifecycle.js';
import { Buyer, DeliveryAddress, id, BOOKING_OUTPUT } from '../schemas.js';
import { holdView, loadHold } from '../availability/holds.js';
import { mayAct } from '../core/context.js';
import { returnUrlProblem } from '../../security/index.js';
import { bookingCredentialExpiry } from './lifecycle.js';

export const createBooking = defineOperation({
  name: 'create_booking',
  tool: 'usp_bookings_create',
  view: 'booking_card',
  rest: { method: 'POST', path: '/bookings', input: 'body' },
  ...PLATFORM_CREATE,
  rate: { bucket: 'bookings' },
  capability: 'dev.usp-protocol.services.bookings',
  output: BOOKING_OUTPUT,
  summary: 'Book a slot, with or without a hold. Availability is always re-checked.',
  input: z.object({
    service_id: id('The service to book.'),
    slot_id: id('A slot id from usp_availability_query (or the held slot).'),
    hold_id: z.string().max(512).optional().describe('The hold from usp_availability_hold, if one was taken.'),
    buyer: Buyer,
    recipient: Buyer.optional().describe('The person receiving the service, when not the buyer.'),
    party_size: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe('Spots for group classes and reservations; default 1.'),
    resource_id: z.string().max(512).optional(),
    delivery_address: DeliveryAddress.optional(),
    notes: z.string().max(2000).optional(),
    post_payment_return_request: z
      .object({ url: z.url().max(2048), params: z.record(z.string(), z.string()).optional() })
      .optional()
      .describe('Where the checkout page sends the buyer back after paying or abandoning.'),
  }),
  async handle(inp, ctx) {
    const service = ctx.biz.services.get(inp.service_id);
    if (!service)
      return outcome(
        errorMessage(
          'validation_error',
          `No bookable service has the id ${JSON.stringify(inp.service_id)}.`,
          '$.service_id',
        ),
      );
    // A suspended or archived service offers no slot (spec 3.3, 3.13), and says why when the business knows.
    if (ctx.biz.published.get(service.id)?.status !== 'active') return outcome(serviceUnavailable(ctx, service.id));
    // The checkout sends the buyer's browser there: only https on the asking platform's own origin (spec 8.5.5).
    const returnTo = inp.post_payment_return_request?.url;
    const returnProblem = returnTo
      ? returnUrlProblem(returnTo, ctx.caller.business ? null : (ctx.caller.profile ?? ''), ctx.biz.allowLoopbackUrls)
      : null;
    if (returnProblem)
      return outcome(
        errorMessage(
          'validation_error',
          `post_payment_return_request.url ${returnProblem}.`,
          '$.post_payment_return_request.url',
        ),
      );
    const partySize = inp.party_size ?? 1;
    if (partySize > 1 && !isCapacityType(service)) {
      return outcome(
        errorMessage(
          'validation_error',
          'Only group classes and reservations take a party size above 1.',
          '$.party_size',
        ),
      );
    }
    if (service.channel.type === 'at_buyer_location' && !inp.delivery_address) {
      return outcome(
        errorMessage(
          'validation_error',
          'This service comes to the buyer: delivery_address is required.',
          '$.delivery_address',
        ),
      );
    }

    let hold;
    let check: SlotCheck | undefined;
    if (inp.hold_id) {
      const holdId = inp.hold_id;
      // The booking the hold may already be, the hold, and the slot checked as that hold's (what a
      // valid hold leads to): independent reads, so a store may send them in one round trip. The
      // answers below that refuse or replay leave the check unused (its locks held to commit).
      const [existing, loaded, checked] = await ctx.tx.together(
        () => ctx.tx.bookings.byHold(holdId),
        () => loadHold(ctx, holdId),
        () => checkSlot(ctx.tx, ctx.biz, service, inp.slot_id, partySize, ctx.now, [holdId]),
      );
      // The same hold booked twice answers with the booking it already became (spec 5.3.1).
      if (existing && mayAct(ctx.caller, existing.priv.principal, existing.booking.id))
        return ok({ booking: existing.booking });
      hold = loaded;
      check = checked;
      if (!hold)
        return outcome(
          errorMessage(
            'validation_error',
            `No hold ${JSON.stringify(inp.hold_id)} belongs to this platform.`,
            '$.hold_id',
          ),
        );
      const view = holdView(hold, ctx.now);
      // A lapsed hold (expired or released) is hold_expired while its slot is still bookable, else slot_unavailable (spec-next 4.2.1).
      if (view.status === 'expired' || view.status === 'released') {
        const still = checked;
        const why = view.status === 'expired' ? 'The hold expired' : 'The hold was released';
        if (still.ok) return outcome(errorMessage('hold_expired', `${why}; hold the slot again.`, '$.hold_id'));
        return outcome(
          errorMessage(
            'slot_unavailable',
            `${why} and the slot has been taken since; query availability and pick another.`,
            '$.slot_id',
          ),
        );
      }
      if (view.status !== 'active')
        return outcome(
          errorMessage('validation_error', `The hold is ${view.status} and cannot be booked.`, '$.hold_id'),
        );
      if (!sameSlotId(hold.hold.slot_id, inp.slot_id) || hold.hold.service_id !== service.id) {
        return outcome(
          errorMessage(
            'validation_error',
            'The hold is for a different slot; pass the slot_id that was held.',
            '$.slot_id',
          ),
        );
      }
      if (partySize > hold.hold.spots) {
        return outcome(
          errorMessage(
            'capacity_exceeded',
            `The hold covers ${hold.hold.spots} spot(s), fewer than the party of ${partySize}.`,
            '$.party_size',
          ),
        );
      }
    }

    // A hold found by its id is that id's: the check made above counted it as its own.
    check ??= await checkSlot(ctx.tx, ctx.biz, service, inp.slot_id, partySize, ctx.now, hold ? [hold.hold.id] : []);
    if (!check.ok) return outcome(slotRefusal(check, partySize));
    if (inp.resource_id && !check.slot.resourceIds.includes(inp.resource_id)) {
      return outcome(
        errorMessage(
          'validation_error',
          'resource_id is not part of that slot; pick a slot with that resource.',
          '$.resource_id',
        ),
      );
    }
    const rec = await createBookingRecord(ctx, {
      service,
      slot: check.slot,
      buyer: inp.buyer,
      recipient: inp.recipient,
      partySize,
      deliveryAddress: inp.delivery_address,
      notes: inp.notes,
      hold,
      postPaymentReturn: inp.post_payment_return_request,
    });
    const credential = await ctx.issueCredential('booking', rec.booking.id, bookingCredentialExpiry(rec));
    return ok({ booking: rec.booking, ...(credential ? { booking_scoped_credential: credential } : {}) });
  },
});
