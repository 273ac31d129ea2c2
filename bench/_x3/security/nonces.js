/**
 * Proof nonces (spec 10.1.6: a business MAY challenge for one). Stateless: a nonce is a timestamp
 * with an HMAC over it, so any process holding the secret can check it without a lookup.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
export function hmacNonces(secret, lifetimeMs = 5 * 60_000) {
    const mac = (t) => createHmac('sha256', secret).update(t).digest('base64url').slice(0, 22);
    return {
        issue(nowMs) {
            const t = nowMs.toString(36);
            return `${t}.${mac(t)}`;
        },
        valid(nonce, nowMs) {
            const [t, m] = nonce.split('.');
            if (!t || !m)
                return false;
            const expected = Buffer.from(mac(t));
            const given = Buffer.from(m);
            if (expected.length !== given.length || !timingSafeEqual(expected, given))
                return false;
            const issued = parseInt(t, 36);
            return Number.isFinite(issued) && nowMs - issued <= lifetimeMs && issued - nowMs <= 60_000;
        },
    };
}
//# sourceMappingURL=nonces.js.map