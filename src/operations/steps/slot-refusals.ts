/** A slot that failed its re-check, as the business outcome a booking operation answers. */
import { errorMessage, type Message } from '../../domain/index.js';
import type { SlotCheck } from './slots.js';

/** The message for a failed check; `windowHint` ends the booking-window sentence (what the caller may do instead). */
export function slotRefusal(check: Extract<SlotCheck, { ok: false }>, partySize: number, windowHint = ''): Message {
  switch (check.reason) {
    case 'malformed':
    case 'wrong_service':
      return errorMessage('validation_error', 'That slot id does not belong to this service; query availability again.', '$.slot_id');
    case 'window':
      return errorMessage('booking_window_violated', `That slot is outside the booking window of this service.${windowHint}`, '$.slot_id');
    case 'capacity':
      return errorMessage('capacity_exceeded', `Not enough spots remain for a party of ${partySize}.`, '$.party_size');
    default:
      return errorMessage('slot_unavailable', 'That slot is no longer available; query availability and pick another.', '$.slot_id');
  }
}
