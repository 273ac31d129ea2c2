/**
 * The hold lifecycle (spec 4.3) as an explicit transition map: an active hold is released by its
 * holder, expires, or becomes a booking; every other state is final. A hold past its expiry reads
 * as expired before anything moves it.
 */
export type HoldStatus = 'active' | 'expired' | 'released' | 'converted';

export type HoldMove =
  | 'release' // the holder gives it back (or the waitlist offer it backed is declined)
  | 'expire' // its time ran out (or the waitlist offer it backed expired)
  | 'convert'; // a booking (or a reschedule) took its place

export const HOLD_TRANSITIONS: Readonly<Record<HoldStatus, Partial<Record<HoldMove, HoldStatus>>>> = {
  active: { release: 'released', expire: 'expired', convert: 'converted' },
  expired: {},
  released: {},
  converted: {},
};

/** The status a move leads to, or null when the map forbids it. */
export function nextHoldStatus(from: HoldStatus, move: HoldMove): HoldStatus | null {
  return HOLD_TRANSITIONS[from][move] ?? null;
}
