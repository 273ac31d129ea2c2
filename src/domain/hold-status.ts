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

/**
 * What entering a status does, whichever operation made the move. The operations apply this
 * table in one place (operations/availability/holds.ts `enterHoldStatus`); no operation writes these
 * effects itself. Holds raise no events.
 * - `claims`: `free` removes the hold's claims, revokes its credential and offers the freed place
 *   to the waitlist; `transfer` passes the claims to the booking that took the hold's place (which
 *   is recorded on the hold); `keep` leaves them.
 */
export interface HoldEntryEffects {
  claims: 'free' | 'transfer' | 'keep';
}

export const HOLD_ENTRY_EFFECTS: Readonly<Record<HoldStatus, HoldEntryEffects>> = {
  active: { claims: 'keep' },
  released: { claims: 'free' },
  expired: { claims: 'free' },
  converted: { claims: 'transfer' },
};
