/**
 * What every operation handler runs against: the business (compiled once at start), the store
 * transaction, the caller, an injected clock and id source, and the events it raises.
 */
import { randomBytes } from 'node:crypto';
import { publishService } from '../domain/catalog.js';
export const systemClock = { now: () => Date.now() };
/** A clock tests can move by hand. */
export class ManualClock {
    t;
    constructor(t) {
        this.t = t;
    }
    now() {
        return this.t;
    }
    set(ms) {
        this.t = ms;
    }
    advance(ms) {
        this.t += ms;
    }
}
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
/** Base32 of `bytes` random bytes (lower case, no padding). */
export function randomToken(bytes) {
    const buf = randomBytes(bytes);
    let bits = 0;
    let value = 0;
    let out = '';
    for (const b of buf) {
        value = (value << 8) | b;
        bits += 8;
        while (bits >= 5) {
            out += ALPHABET[(value >>> (bits - 5)) & 31];
            bits -= 5;
        }
    }
    if (bits > 0)
        out += ALPHABET[(value << (5 - bits)) & 31];
    return out;
}
export const randomIds = { next: (prefix) => `${prefix}_${randomToken(16)}` };
export function compileBusiness(def, opts = {}) {
    const services = new Map(def.services.map((s) => [s.id, s]));
    const published = new Map(def.services.map((s) => [s.id, publishService(s, def)]));
    return {
        def,
        zone: def.business.timezone,
        services,
        published,
        resources: new Map(def.resources.map((r) => [r.id, r])),
        serviceOrder: def.services.map((s) => s.id),
        sandbox: opts.sandbox ?? false,
    };
}
/** May the caller act on a resource created by `owner`? Its creator, its credential holder, or the business. */
export function mayAct(caller, owner, resourceId) {
    if (caller.business)
        return true;
    if (caller.credential && caller.credential.id === resourceId)
        return true;
    return caller.principal !== null && owner === caller.principal;
}
//# sourceMappingURL=runtime.js.map