import { z } from 'zod';
import { errorMessage } from '../../domain/outcomes.js';
import { defineOperation, ok, outcome } from '../define.js';
import { mayAct } from '../runtime.js';
import { id } from '../schemas.js';
import { offerFreedPlace } from '../engine/waitlist.js';
/** A hold past its expiry reads as expired, whether or not anything has swept it yet. */
export function holdView(rec, now) {
    if (rec.hold.status === 'active' && rec.priv.expires_at_ms <= now)
        return { ...rec.hold, status: 'expired' };
    return rec.hold;
}
export async function loadHold(ctx, holdId) {
    const rec = await ctx.tx.holds.get(holdId);
    if (!rec || !mayAct(ctx.caller, rec.priv.principal, rec.hold.id))
        return null;
    return rec;
}
export const releaseHold = defineOperation({
    name: 'release_hold',
    tool: 'usp_availability_release',
    rest: { method: 'DELETE', path: '/availability/holds/{hold_id}', input: 'none' },
    resource: { kind: 'hold', key: 'hold_id' },
    access: 'privileged_scoped',
    capability: 'dev.usp-protocol.services.availability',
    mutating: true,
    // Release ignores preconditions (spec 5.6): releasing twice is harmless.
    conditional: false,
    writes: true,
    summary: 'Release a hold early so others can book the slot. Safe to repeat.',
    input: z.object({ hold_id: id('The hold to release.') }),
    async handle(inp, ctx) {
        const rec = await loadHold(ctx, inp.hold_id);
        if (!rec)
            return outcome(errorMessage('hold_not_found', `No hold ${JSON.stringify(inp.hold_id)} belongs to this platform.`, '$.hold_id'));
        const view = holdView(rec, ctx.now);
        if (view.status !== 'active')
            return ok({ hold: view });
        rec.hold.status = 'released';
        await ctx.tx.holds.update(rec);
        await ctx.tx.security.revokeCredentials(rec.hold.id);
        await ctx.tx.claims.removeOwner(rec.hold.id);
        const service = ctx.biz.services.get(rec.hold.service_id);
        if (service) {
            await offerFreedPlace(ctx, service, { key: rec.priv.slot_key, startMs: rec.priv.start_ms, endMs: rec.priv.end_ms, resourceIds: rec.priv.resource_ids });
        }
        return ok({ hold: rec.hold });
    },
});
//# sourceMappingURL=release-hold.js.map