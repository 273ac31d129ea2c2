/** Holds as the operations read them: the caller's own hold, and its status as of now. */
import { nextHoldStatus, type HoldMove, type HoldRecord } from '../../domain/index.js';
import { mayAct, type OperationContext } from '../context.js';

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

/** Apply a move of the hold lifecycle; callers move only active holds, so a refusal is a fault. */
export function moveHold(rec: HoldRecord, m: HoldMove): void {
  const to = nextHoldStatus(rec.hold.status, m);
  if (!to) throw new Error(`hold ${rec.hold.id} is ${rec.hold.status}; it cannot take the move ${m}`);
  rec.hold.status = to;
}
