/**
 * Waitlist entries as the operations move them (spec 11.1): the lifecycle's moves, the revision
 * bump of every write, and the answers for an entry the caller cannot see or a move its status forbids.
 */
import {
  errorMessage,
  nextWaitlistStatus,
  type WaitlistMove,
  type WaitlistRecord,
  type WaitlistStatus,
} from '../../domain/index.js';
import { MissingResource, ProtocolError } from '../core/errors.js';
import { newRevision, type OperationContext } from '../core/context.js';

/** An unknown entry id in the path (or another platform's entry): thrown, a 404 `entry_not_found` (spec-next 9.4.1, 11.1.6). */
export const entryNotFound = (entryId: string) =>
  new MissingResource(
    errorMessage(
      'entry_not_found',
      `No waitlist entry ${JSON.stringify(entryId)} belongs to this platform.`,
      '$.entry_id',
    ),
  );

export function entryConflict(rec: WaitlistRecord, what: string): ProtocolError {
  return new ProtocolError(
    'booking_state_conflict',
    `This waitlist entry is ${rec.entry.status}; it cannot be ${what}.`,
    {
      detailCode: 'entry_state_conflict',
      extra: { current_status: rec.entry.status },
    },
  );
}

/** An entry just written gets a new revision (spec 5.6). */
export function touchEntry(rec: WaitlistRecord, ctx: OperationContext): void {
  rec.entry.revision = newRevision(ctx);
}

const PARTICIPLE: Record<WaitlistMove, string> = {
  offer: 'offered a place',
  accept: 'accepted',
  decline: 'declined',
  expire: 'expired',
  leave: 'left',
};

/**
 * Apply a move of the entry lifecycle (the record only) and return the new status, or refuse it
 * with entry_state_conflict. Entering the new status is `enterEntryStatus` (waitlist/offers.ts).
 */
export function moveEntry(rec: WaitlistRecord, m: WaitlistMove, ctx: OperationContext): WaitlistStatus {
  const to = nextWaitlistStatus(rec.entry.status, m);
  if (!to) throw entryConflict(rec, PARTICIPLE[m]);
  rec.entry.status = to;
  touchEntry(rec, ctx);
  return to;
}
