/** Answers shared by the waitlist operations (spec 11.1): an entry the caller cannot see, and a move its status forbids. */
import { errorMessage, type WaitlistRecord } from '../../domain/index.js';
import { ProtocolError } from '../errors.js';
import { outcome } from '../define.js';

export const entryNotFound = (entryId: string) =>
  outcome(errorMessage('entry_not_found', `No waitlist entry ${JSON.stringify(entryId)} belongs to this platform.`, '$.entry_id'));

export function entryConflict(rec: WaitlistRecord, what: string): ProtocolError {
  return new ProtocolError('booking_state_conflict', `This waitlist entry is ${rec.entry.status}; it cannot be ${what}.`, {
    detailCode: 'entry_state_conflict',
    extra: { current_status: rec.entry.status },
  });
}
