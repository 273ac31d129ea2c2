import { availabilityHint } from '../engine/availability.js';
/** The published service with its availability hint computed from real availability. */
export async function withHint(ctx, s) {
    const def = ctx.biz.services.get(s.id);
    if (!def || (s.status ?? 'active') !== 'active')
        return { ...s };
    return { ...s, availability_hint: await availabilityHint(ctx.tx, ctx.biz, def, ctx.now) };
}
//# sourceMappingURL=present.js.map