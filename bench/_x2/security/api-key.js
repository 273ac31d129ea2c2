/** API keys are configured as sha-256 hex digests and compared in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';
export function hashApiKey(key) {
    return createHash('sha256').update(key, 'utf8').digest('hex');
}
export function apiKeyMatches(presented, hashes) {
    const digest = Buffer.from(hashApiKey(presented), 'hex');
    let found = false;
    for (const h of hashes) {
        const candidate = Buffer.from(h, 'hex');
        if (candidate.length === digest.length && timingSafeEqual(candidate, digest))
            found = true;
    }
    return found;
}
//# sourceMappingURL=api-key.js.map