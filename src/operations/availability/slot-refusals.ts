/** A slot that failed its re-check, as the business outcome a booking operation answers. */
import { errorMessage, type Message } from '../../domain/index.js';
import type { SlotCheck } from './slots.js';
import type { Business } from '../business.js';

/**
 * A suspended or archived service takes no hold or booking (spec 3.3, 3.13): `slot_unavailable`,
 * saying why when the business knows (no online payment for a service paid when booking).
 */
export function serviceUnavailable(ctx: { biz: Business }, serviceId: string): Message {
  const status = ctx.biz.published.get(serviceId)?.status ?? 'suspended';
  const why = ctx.biz.suspendedWhy.get(serviceId);
  return errorMessage(
    'slot_unavailable',
    `The service ${serviceId} is ${status}: it takes no booking now.${why ? ` ${why}` : ''}`,
    '$.service_id',
  );
}

/** The message for a failed check; `windowHint` ends the booking-window sentence (what the caller may do instead). */
export function slotRefusal(check: Extract<SlotCheck, { ok: false }>, partySize: number, windowHint = ''): Message {
  switch (check.reason) {
    case 'malformed':
    case 'wrong_service':
      return errorMessage(
        'validation_error',
        'That slot id does not belong to this service; query availability again.',
        '$.slot_id',
      );
    case 'window':
      return errorMessage(
        'booking_window_violated',
        `That slot is outside the booking window of this service.${windowHint}`,
        '$.slot_id',
      );
    case 'capacity':
      return errorMessage('capacity_exceeded', `Not enough spots remain for a party of ${partySize}.`, '$.party_size');
    default:
      return errorMessage(
        'slot_unavailable',
        'That slot is no longer available; query availability and pick another.',
        '$.slot_id',
      );
  }
}
