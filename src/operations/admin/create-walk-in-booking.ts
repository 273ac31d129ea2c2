import { z } from 'zod';
import { errorMessage, isCapacityType } from '../../domain/index.js';
import { BUSINESS_WRITE } from '../change-rows.js';
import { defineOperation, ok, outcome, requireBusiness } from '../core/define.js';
import { checkSlot } from '../availability/slots.js';
import { serviceUnavailable, slotRefusal } from '../availability/slot-refusals.js';
import { paidBeforeAppointment } from '../payments/checkouts.js';
import { createBookingRecord } from '../bookings/lifecycle.js';
import { id, BOOKING_OUTPUT } from '../schemas.js';
import { instantOrLocal, overrideSlot, WalkInBuyer, walkInBuyer } from './walk-in-input.js';

/**
 * The front desk books for someone at the counter or on the phone, who has no platform: on a free
 * slot, or, when the business chooses (`override_rules`), at any start on any of the service's
 * resources, outside the booking window, the notice period and the opening hours. A resource is
 * never double-booked either way. Otherwise it is a booking like any other: the same record, claims,
 * events and reminders; it belongs to the business, so no platform's webhook receives them.
 */
export const createWalkInBooking = defineOperation({
  name: 'create_walk_in_booking',
  rest: { method: 'POST', path: '/admin/bookings', input: 'body' },
  ...BUSINESS_WRITE,
  capability: 'dev.usp-protocol.services.bookings',
  creates: true,
  dashboard: 'walk_in',
  output: BOOKING_OUTPUT,
  summary:
    'The front desk books a walk-in or phone client (no platform), on a free slot or, when the business chooses, over the normal rules.',
  input: z.object({
    service_id: id('The service to book.'),
    slot_id: z
      .string()
      .max(512)
      .optional()
      .describe('A free slot (from the availability query). Required unless override_rules is set with a start.'),
    start: z
      .string()
      .max(40)
      .optional()
      .describe(
        'With override_rules: the start, RFC 3339 or a local date-time YYYY-MM-DDTHH:MM in the business time zone.',
      ),
    resource_id: z
      .string()
      .max(512)
      .optional()
      .describe(
        'The staff member or resource; with override_rules it picks the combination, otherwise it must be part of the slot.',
      ),
    buyer: WalkInBuyer,
    party_size: z.number().int().min(1).max(1000).optional(),
    notes: z.string().max(2000).optional(),
    override_rules: z
      .boolean()
      .optional()
      .describe('Book outside the booking window, notice period and opening hours (never over another booking).'),
  }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const service = ctx.biz.services.get(inp.service_id);
    // The operator suspended the business: not even its own front desk books, and it is told why.
    if (service && ctx.biz.suspended) return outcome(serviceUnavailable(ctx, service.id));
    if (!service || ctx.biz.published.get(service.id)?.status !== 'active') {
      return outcome(
        errorMessage(
          'validation_error',
          `No bookable service has the id ${JSON.stringify(inp.service_id)}.`,
          '$.service_id',
        ),
      );
    }
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
    if (ctx.biz.payments === 'none' && paidBeforeAppointment(service)) {
      return outcome(
        errorMessage(
          'payment_not_configured',
          `Online payment is not set up at this business, so ${service.name} (paid when booking) cannot be booked here.`,
          '$.service_id',
        ),
      );
    }
    if (service.channel.type === 'at_buyer_location') {
      return outcome(
        errorMessage(
          'validation_error',
          'This service comes to the buyer; book it through a platform that collects the address.',
          '$.service_id',
        ),
      );
    }
    let slot;
    if (inp.override_rules) {
      // A class's sessions and a table's spots are shared: only appointments are placed freely.
      if (isCapacityType(service))
        return outcome(
          errorMessage(
            'validation_error',
            'Group classes and reservations are booked on one of their sessions; leave override_rules off.',
            '$.override_rules',
          ),
        );
      const startMs = inp.start === undefined ? undefined : instantOrLocal(inp.start, ctx.biz.zone);
      if (startMs === null)
        return outcome(
          errorMessage(
            'validation_error',
            'start: not a date-time (RFC 3339, or YYYY-MM-DDTHH:MM local time).',
            '$.start',
          ),
        );
      const r = await overrideSlot(
        ctx.tx,
        ctx.biz,
        service,
        { startMs, slotId: inp.slot_id, resourceId: inp.resource_id },
        ctx.now,
      );
      if (!r.ok)
        return outcome(
          errorMessage(
            r.field === 'start' && r.why.includes('double-booked') ? 'slot_unavailable' : 'validation_error',
            r.why,
            `$.${r.field}`,
          ),
        );
      slot = r.slot;
    } else {
      if (!inp.slot_id)
        return outcome(
          errorMessage(
            'validation_error',
            'Pick a free slot (slot_id), or book over the rules with override_rules and a start.',
            '$.slot_id',
          ),
        );
      const check = await checkSlot(ctx.tx, ctx.biz, service, inp.slot_id, partySize, ctx.now);
      if (!check.ok)
        return outcome(
          slotRefusal(check, partySize, ' Book it over the rules (override_rules) if the business agrees.'),
        );
      if (inp.resource_id && !check.slot.resourceIds.includes(inp.resource_id)) {
        return outcome(
          errorMessage(
            'validation_error',
            'resource_id is not part of that slot; pick a slot with that resource.',
            '$.resource_id',
          ),
        );
      }
      slot = check.slot;
    }
    // The booking is the business's own: no platform (and no profile a caller sent) receives its events.
    const own = { ...ctx, caller: { ...ctx.caller, principal: 'business', profile: null, account: undefined } };
    const rec = await createBookingRecord(own, {
      service,
      slot,
      buyer: walkInBuyer(inp.buyer),
      partySize,
      notes: inp.notes,
    });
    return ok({ booking: rec.booking });
  },
});
