import { z } from 'zod';
import { isTerminal } from '../../domain/index.js';
import { defineOperation, ok } from '../define.js';
import { checkRevision, emitBookingEvent, loadBooking, stateConflict, touch } from '../engine/bookings.js';
import { Buyer, DeliveryAddress, id } from '../schemas.js';
import { bookingNotFound } from './get-booking.js';

export const updateBooking = defineOperation({
  name: 'update_booking',
  tool: 'usp_bookings_update',
  rest: { method: 'PUT', path: '/bookings/{booking_id}', input: 'body' },
  resource: { kind: 'booking', key: 'booking_id' },
  access: 'privileged_scoped',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: true,
  conditional: true,
  writes: true,
  summary: 'Change buyer, recipient, delivery address or notes of a booking (partial update).',
  input: z.object({
    booking_id: id('The booking id.'),
    buyer: Buyer.partial().optional(),
    recipient: Buyer.optional(),
    delivery_address: DeliveryAddress.optional(),
    notes: z.string().max(2000).optional(),
  }),
  async handle(inp, ctx) {
    const rec = await loadBooking(ctx, inp.booking_id);
    if (!rec) return bookingNotFound(inp.booking_id);
    if (isTerminal(rec.booking.status)) throw stateConflict(rec, 'updated');
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
