/**
 * What a platform does to authenticate to a USP business, in a few small functions: make a
 * throwaway Ed25519 key, prove possession of it on MCP (`_meta.usp.authorization.proof`) or REST
 * (`DPoP`), present a booking-scoped credential, and sign REST requests with RFC 9421. Used by
 * this project's tests; written to be read and copied by platform authors.
 */
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { argumentsDigest } from '../security/jcs.js';
import { contentDigest } from '../security/content-digest.js';
import { generateSigningKey, jwkThumbprint, signRequest } from '../security/http-signatures.js';
/** A fresh Ed25519 key. Keep it for as long as you keep the credentials bound to it. */
export function createPopKey() {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const jwk = publicKey.export({ format: 'jwk' });
    const publicJwk = { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
    return { privateKey, publicJwk, jkt: jwkThumbprint(publicJwk) };
}
const b64 = (v) => Buffer.from(JSON.stringify(v), 'utf8').toString('base64url');
function compactJws(header, claims, key) {
    const input = `${b64(header)}.${b64(claims)}`;
    return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`;
}
/**
 * An MCP proof for one tool call: `usp_m` the tool, `aud` the business profile URI, `usp_p` the
 * digest of the arguments exactly as they will be sent (with `_meta.usp.authorization` left out).
 */
export function mcpProof(key, tool, args, aud, o = {}) {
    const claims = {
        usp_m: tool,
        aud,
        usp_p: argumentsDigest(args),
        iat: o.iat ?? Math.floor(Date.now() / 1000),
        jti: o.jti ?? randomUUID(),
    };
    if (o.credential)
        claims.ath = createHash('sha256').update(o.credential).digest('base64url');
    if (o.nonce)
        claims.nonce = o.nonce;
    return compactJws({ typ: 'usp-pop+jwt', alg: 'EdDSA', jwk: key.publicJwk }, claims, key.privateKey);
}
/**
 * Arguments ready to send with `platform_key_pop`: the proof covers everything else in the
 * arguments, so add `_meta.usp.profile` (and any idempotency key) before calling this.
 */
export function withMcpProof(key, tool, args, aud, o = {}) {
    const proof = mcpProof(key, tool, args, aud, o);
    const meta = args._meta ?? {};
    const usp = meta.usp ?? {};
    const authorization = { mechanism: 'platform_key_pop', proof };
    if (o.credential)
        authorization.credential = o.credential;
    return { ...args, _meta: { ...meta, usp: { ...usp, authorization } } };
}
/** An RFC 9449 DPoP proof for one REST request (`htu` is the URL without query or fragment). */
export function dpopProof(key, method, url, o = {}) {
    const u = new URL(url);
    const claims = {
        htm: method.toUpperCase(),
        htu: `${u.origin}${u.pathname}`,
        iat: o.iat ?? Math.floor(Date.now() / 1000),
        jti: o.jti ?? randomUUID(),
    };
    if (o.credential)
        claims.ath = createHash('sha256').update(o.credential).digest('base64url');
    if (o.nonce)
        claims.nonce = o.nonce;
    return compactJws({ typ: 'dpop+jwt', alg: 'EdDSA', jwk: key.publicJwk }, claims, key.privateKey);
}
/** Headers for a REST call with DPoP: the proof, and `Authorization: DPoP <credential>` when presenting one. */
export function dpopHeaders(key, method, url, o = {}) {
    const h = { DPoP: dpopProof(key, method, url, o) };
    if (o.credential)
        h.Authorization = `DPoP ${o.credential}`;
    return h;
}
export function createSigningIdentity(kid) {
    return generateSigningKey(kid);
}
/**
 * Sign a REST request (RFC 9421, ES256): adds `Content-Digest` for a body, and covers
 * `@method`, `@authority`, `@path` plus `@query`, `usp-agent`, `idempotency-key`, `content-digest`
 * and `content-type` when the request has them. Returns the headers to send (input headers included).
 */
export function signedHeaders(id, method, url, headers, body, created = Math.floor(Date.now() / 1000)) {
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    const out = { ...headers };
    if (bytes && bytes.byteLength > 0)
        out['Content-Digest'] = contentDigest(bytes);
    const lower = new Set(Object.keys(out).map((k) => k.toLowerCase()));
    const components = ['@method', '@authority', '@path'];
    if (new URL(url).search)
        components.push('@query');
    for (const h of ['usp-agent', 'idempotency-key', 'content-digest', 'content-type'])
        if (lower.has(h))
            components.push(h);
    const sig = signRequest({ method, url, headers: out, body: bytes }, { kid: id.kid, privateKey: id.privateKey }, { components, created });
    return { ...out, ...sig };
}
//# sourceMappingURL=platform-auth.js.map