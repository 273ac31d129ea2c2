/**
 * RFC 9530 `Content-Digest` over the raw body bytes (spec §9.1.4, §10.1.1): computed and checked on
 * the bytes as received, never on re-serialized JSON.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { parseDictionary } from 'structured-headers';
import { DigestMismatch } from './failures.js';
/** RFC 9530 algorithm keys we compute, mapped to node's hash names. */
const ALGORITHMS = { 'sha-256': 'sha256', 'sha-512': 'sha512' };
/** The `Content-Digest` value for `body`: `sha-256=:<base64>:` (the algorithm USP names for signers). */
export function contentDigest(body) {
    return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}
/**
 * Checks a received `Content-Digest` against the raw body. Unknown algorithms are ignored (RFC 9530
 * §2), but at least one of sha-256 / sha-512 must be present, and every one present must match.
 * Throws `DigestMismatch`; returns nothing on success.
 */
export function verifyContentDigest(header, body) {
    if (header === null || header === undefined)
        throw new DigestMismatch('Content-Digest header is absent');
    let dict;
    try {
        dict = parseDictionary(header);
    }
    catch (err) {
        throw new DigestMismatch(`Content-Digest is not an RFC 8941 dictionary: ${err.message}`);
    }
    let checked = 0;
    for (const [key, member] of dict) {
        const hash = ALGORITHMS[key];
        if (hash === undefined)
            continue;
        const value = member[0];
        if (!(value instanceof ArrayBuffer))
            throw new DigestMismatch(`Content-Digest ${key} is not a byte sequence`);
        const expected = createHash(hash).update(body).digest();
        const received = Buffer.from(value);
        if (received.length !== expected.length || !timingSafeEqual(received, expected)) {
            throw new DigestMismatch(`Content-Digest ${key} does not match the body`);
        }
        checked++;
    }
    if (checked === 0)
        throw new DigestMismatch('Content-Digest names no supported algorithm (sha-256, sha-512)');
}
//# sourceMappingURL=content-digest.js.map