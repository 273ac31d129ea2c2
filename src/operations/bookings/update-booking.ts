import { z } from 'zod';
import { operationPermitted, errorMessage, type Message } from '../../domain/index.js';
import { defineOperation, ok, type OperationResult } from '../core/define.js';
import { PLATFORM_BOOKING_CHANGE } from '../change-rows.js';
import { checkRevision, emitBookingEvent, loadBooking, stateConflict, touch, bookingNotFound } from './lifecycle.js';
import { Buyer, DeliveryAddress, id, BOOKING_OUTPUT } from '../schemas.js';

const RESCHEDULE =
  'move it to another time with reschedule_booking (POST /bookings/{booking_id}/reschedule, MCP usp_bookings_reschedule)';
const NEW_BOOKING =
  'cancel this booking (POST /bookings/{booking_id}/cancel, MCP usp_bookings_cancel) and create a new one';
const BY_BUSINESS = 'the business sets it; no operation of a platform changes it';

/**
 * Booking members update_booking cannot change (spec 5.3.3: only buyer, recipient,
 * delivery_address and notes are mutable), each with the operation to use instead. Sending one
 * is a validation_error naming it, never a silent 200 that changed nothing.
 */
const IMMUTABLE_BOOKING_FIELDS: Readonly<Record<string, string>> = {
  status:
    'to cancel, use cancel_booking (POST /bookings/{booking_id}/cancel, MCP usp_bookings_cancel); to pay, confirm_payment; the business confirms a pending booking with confirm_booking',
  slot: RESCHEDULE,
  slot_id: RESCHEDULE,
  start: RESCHEDULE,
  end: RESCHEDULE,
  hold_id: RESCHEDULE,
  resource_id: RESCHEDULE,
  resources: RESCHEDULE,
  location: RESCHEDULE,
  location_id: RESCHEDULE,
  service_id: NEW_BOOKING,
  service_name: NEW_BOOKING,
  party_size: NEW_BOOKING,
  payment:
    'report a payment with confirm_payment (POST /bookings/{booking_id}/confirm-payment, MCP usp_bookings_confirm_payment)',
  payment_result:
    'report a payment with confirm_payment (POST /bookings/{booking_id}/confirm-payment, MCP usp_bookings_confirm_payment)',
  actions:
    'complete a payment action with confirm_payment (POST /bookings/{booking_id}/confirm-payment, MCP usp_bookings_confirm_payment)',
  cancellation: 'cancel with cancel_booking (POST /bookings/{booking_id}/cancel, MCP usp_bookings_cancel)',
  id: BY_BUSINESS,
  confirmation_mode: BY_BUSINESS,
  dispute: BY_BUSINESS,
  created_at: BY_BUSINESS,
  updated_at: BY_BUSINESS,
  expires_at: BY_BUSINESS,
  revision: 'send it as If-Match (REST) or _meta.usp.if_match (MCP) to make the update conditional',
};

/** One validation_error per immutable member present in the request, or null when there is none. */
function immutableFieldsOutcome(raw: Record<string, unknown>, booking: unknown): OperationResult | null {
  const messages: Message[] = Object.keys(raw)
    .filter((k) => Object.hasOwn(IMMUTABLE_BOOKING_FIELDS, k))
    .map((k) =>
      errorMessage(
        'validation_error',
        `${k} cannot be changed by update_booking, which changes only buyer, recipient, delivery_address and notes; ${IMMUTABLE_BOOKING_FIELDS[k]}. Nothing was changed.`,
        `$.${k}`,
      ),
    );
  return messages.length > 0 ? { data: { booking }, messages, status: 200 } : null;
}

export const updateBooking = defineOperation({
  name: 'update_booking',
  tool: 'usp_bookings_update',
  rest: { method: 'PUT', path: '/bookings/{booking_id}', input: 'body' },
  ...PLATFORM_BOOKING_CHANGE,
  output: BOOKING_OUTPUT,
  summary: 'Change buyer, recipient, delivery address or notes of a booking (partial update).',
  input: z
    .object({
      booking_id: id('The booking id.'),
      buyer: Buyer.partial().optional(),
      recipient: Buyer.optional(),
      delivery_address: DeliveryAddress.optional(),
      notes: z.string().max(2000).optional(),
    })
    // Unknown members pass through so that immutable booking members can be named and refused; others are ignored.
    .loose(),
  async handle(inp, ctx) {
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) throw bookingNotFound(inp.booking_id);
    const refused = immutableFieldsOutcome(inp, rec.booking);
    if (refused) return refused;
    if (!operationPermitted(rec.booking.status, 'update')) throw stateConflict(rec, 'updated');
    checkRevision(ctx, rec.booking.revision);
    const b = rec.booking;
    if (inp.buyer) b.buyer = { ...b.buyer, ...stripUndefined(inp.buyer) };
    if (inp.recipient) b.recipient = inp.recipient;
    if (inp.delivery_address) b.delivery_address = inp.delivery_address;
    if (inp.notes !== undefined) b.notes = inp.notes;
    touch(rec, ctx);
    await ctx.tx.bookings.update(rec);
    // Details changed while the service is being delivered (spec 5.5.3).
    if (b.status === 'in_progress') emitBookingEvent(ctx, 'booking.service_updated', rec);
    return ok({ booking: b });
  },
});

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
