/**
 * Security check failures. Each check is a pure function that throws exactly one of these; the
 * pipeline turns `code` into the wire answer the spec names (§9.4, §10.1.1, decision D12) and logs
 * `detail`, which is for operators and never crosses the wire.
 */
export class SecurityFailure extends Error {
    detail;
    /** `detail` is the precise cause, for logs only. */
    constructor(detail) {
        super(detail);
        this.detail = detail;
        this.name = new.target.name;
    }
}
/** `Content-Digest` is absent, unparseable, names no supported algorithm, or does not match the body (RFC 9530). */
export class DigestMismatch extends SecurityFailure {
    code = 'digest_mismatch';
}
/** The request carries no `Signature` / `Signature-Input` (or not the label the caller asked for). */
export class SignatureMissing extends SecurityFailure {
    code = 'signature_missing';
}
/** The signature headers are malformed, cover too little, or the signature does not verify. */
export class SignatureInvalid extends SecurityFailure {
    code = 'signature_invalid';
}
/** `created` lies in the future beyond the allowed skew, is older than the verifier's window, or `expires` has passed. */
export class SignatureExpired extends SecurityFailure {
    code = 'signature_expired';
}
/** No usable key in the signer's profile carries the signature's `keyid`. */
export class KeyNotFound extends SecurityFailure {
    code = 'key_not_found';
}
/** The resolved key (or the `alg` parameter) names an algorithm this verifier does not accept. */
export class AlgorithmUnsupported extends SecurityFailure {
    code = 'algorithm_unsupported';
}
/** The platform profile could not be fetched: DNS, a special-use address, timeout, size cap, redirect or non-2xx. */
export class ProfileUnreachable extends SecurityFailure {
    code = 'profile_unreachable';
}
/** The platform profile is not JSON, or lacks `usp.version` (YYYY-MM-DD) and a `usp.capabilities` object. */
export class ProfileMalformed extends SecurityFailure {
    code = 'profile_malformed';
}
/** An allowlist is configured and the profile URL matches none of its prefixes. */
export class ProfileNotTrusted extends SecurityFailure {
    code = 'profile_not_trusted';
}
/** The profile URL is not absolute, not https, or carries credentials (plain http only on loopback in development). */
export class InvalidProfileUrl extends SecurityFailure {
    code = 'invalid_profile_url';
}
//# sourceMappingURL=failures.js.map