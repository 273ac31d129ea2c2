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
