/**
 * Holds as the operations read them: the caller's own hold, its status as of now, and the check of
 * a move against the hold map (entering the new status is `enterHoldStatus` in waitlist/offers.ts,
 * beside the waitlist that a freed place goes to).
 */
import {
  HOLD_TRANSITIONS,
  nextHoldStatus,
  type HoldMove,
  type HoldRecord,
  type HoldStatus,
} from '../../domain/index.js';
import { mayAct, type OperationContext } from '../core/context.js';
import { invalidTransition } from '../core/invalid-transition.js';

/** A hold past its expiry reads as expired, whether or not anything has swept it yet. */
export function holdView(rec: HoldRecord, now: number): HoldRecord['hold'] {
  if (rec.hold.status === 'active' && rec.priv.expires_at_ms <= now) return { ...rec.hold, status: 'expired' };
  return rec.hold;
}

export async function loadHold(ctx: OperationContext, holdId: string): Promise<HoldRecord | null> {
  const rec = await ctx.tx.holds.get(holdId);
  if (!rec || !mayAct(ctx.caller, rec.priv.principal, rec.hold.id)) return null;
  return rec;
}

const PARTICIPLE: Record<HoldMove, string> = { release: 'released', expire: 'expired', convert: 'booked' };

/**
 * Apply a move of the hold lifecycle (the record only) and return the new status, or refuse it
 * with invalid_transition naming the status and what is allowed, as a booking's move is refused.
 */
export function moveHold(rec: HoldRecord, m: HoldMove): HoldStatus {
  const status = rec.hold.status;
  const to = nextHoldStatus(status, m);
  if (!to)
    throw invalidTransition('hold', status, Object.keys(HOLD_TRANSITIONS[status]), PARTICIPLE[m], { hold: rec.hold });
  rec.hold.status = to;
  return to;
}
