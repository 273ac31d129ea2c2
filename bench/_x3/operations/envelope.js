export const USP_VERSION = '2026-08-20';
const cache = new Map();
export function uspEnvelope(op) {
    let env = cache.get(op.name);
    if (!env) {
        const keys = [op.capability];
        if (op.capability === 'dev.usp-protocol.services.waitlist')
            keys.unshift('dev.usp-protocol.services.bookings');
        env = { version: USP_VERSION, capabilities: Object.fromEntries(keys.map((k) => [k, [{ version: USP_VERSION }]])) };
        cache.set(op.name, env);
    }
    return env;
}
//# sourceMappingURL=envelope.js.map