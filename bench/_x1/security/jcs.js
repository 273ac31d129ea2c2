/**
 * The `usp_p` argument digest of an MCP proof (spec 9.2.2): base64url(SHA-256(JCS(arguments))),
 * computed over the raw `arguments` with only `_meta.usp.authorization` removed. An emptied
 * `_meta.usp` stays `{}`. JCS (RFC 8785) is the maintained `canonicalize` library.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
export function canonicalArguments(args) {
    let copy = args;
    const meta = args._meta;
    const usp = meta && typeof meta === 'object' ? meta.usp : undefined;
    if (usp && typeof usp === 'object' && 'authorization' in usp) {
        const { authorization: _drop, ...rest } = usp;
        copy = { ...args, _meta: { ...meta, usp: rest } };
    }
    const text = canonicalize(copy);
    if (text === undefined)
        throw new Error('arguments cannot be canonicalized');
    return text;
}
export function argumentsDigest(args) {
    return createHash('sha256').update(canonicalArguments(args), 'utf8').digest('base64url');
}
export function sha256b64url(s) {
    return createHash('sha256').update(s, 'utf8').digest('base64url');
}
//# sourceMappingURL=jcs.js.map