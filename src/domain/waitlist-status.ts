/**
 * The waitlist entry lifecycle (spec 11.1) as an explicit transition map. A waiting entry is
 * offered a freed place; the offer is accepted (a booking), declined or expires. An entry leaves
 * the list while waiting or after its offer closed (leaving with an open offer declines it first);
 * accepted and removed are final.
 */
export type WaitlistStatus = 'waiting' | 'offered' | 'accepted' | 'expired' | 'declined' | 'removed';

export type WaitlistMove =
  | 'offer' // a place freed and this entry is first in line for it
  | 'accept' // the buyer takes the offered place (booked in the same step)
  | 'decline' // the buyer turns the offer down
  | 'expire' // the offer window passed
  | 'leave'; // the buyer comes off the list

export const WAITLIST_TRANSITIONS: Readonly<Record<WaitlistStatus, Partial<Record<WaitlistMove, WaitlistStatus>>>> = {
  waiting: { offer: 'offered', leave: 'removed' },
  offered: { accept: 'accepted', decline: 'declined', expire: 'expired' },
  declined: { leave: 'removed' },
  expired: { leave: 'removed' },
  accepted: {},
  removed: {},
};

/** The status a move leads to, or null when the map forbids it. */
export function nextWaitlistStatus(from: WaitlistStatus, move: WaitlistMove): WaitlistStatus | null {
  return WAITLIST_TRANSITIONS[from][move] ?? null;
}

/**
 * What entering a status does, whichever operation made the move. The operations apply this
 * table in one place (operations/waitlist/entries.ts `enterEntryStatus`); no operation
 * writes these effects itself.
 * - `event`: the webhook event raised, after the entry is stored.
 * - `offer`: `close` ends the open offer (its expiry goes, and its hold is released, or expires
 *   with it, passing the place down the line); `taken` ends it as accepted (its expiry goes, its
 *   hold became the booking); `keep` leaves it (a new offer is set by the move).
 * - `leavesLine`: the entry is out of the line: its credential stops working and the entries
 *   behind it move up (`waitlist.position_changed`).
 */
export interface WaitlistEntryEffects {
  event?: string;
  offer: 'close' | 'taken' | 'keep';
  leavesLine: boolean;
}

export const WAITLIST_ENTRY_EFFECTS: Readonly<Record<WaitlistStatus, WaitlistEntryEffects>> = {
  waiting: { offer: 'keep', leavesLine: false },
  offered: { event: 'waitlist.spot_offered', offer: 'keep', leavesLine: false },
  accepted: { event: 'waitlist.converted', offer: 'taken', leavesLine: true },
  declined: { offer: 'close', leavesLine: true },
  expired: { event: 'waitlist.expired', offer: 'close', leavesLine: true },
  removed: { offer: 'keep', leavesLine: true },
};
