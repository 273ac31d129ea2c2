/**
 * Security check failures. Each check is a pure function that throws exactly one of these; the
 * pipeline turns `code` into the wire answer the spec names (§9.4, §10.1.1: 401 for a bad signature, 400 for a bad digest or algorithm) and logs
 * `detail`, which is for operators and never crosses the wire.
 */

export type SecurityFailureCode =
  | 'digest_mismatch'
  | 'signature_missing'
  | 'signature_invalid'
  | 'signature_expired'
  | 'key_not_found'
  | 'algorithm_unsupported'
  | 'profile_unreachable'
  | 'profile_malformed'
  | 'profile_not_trusted'
  | 'invalid_profile_url';

export abstract class SecurityFailure extends Error {
  abstract readonly code: SecurityFailureCode;

  /** `detail` is the precise cause, for logs only. */
  constructor(readonly detail: string) {
    super(detail);
    this.name = new.target.name;
  }
}

/** A failure class for one code: each check's failure is one of these, told apart by `instanceof` or `code`. */
function failureClass<C extends SecurityFailureCode>(code: C) {
  return class extends SecurityFailure {
    override readonly code: C = code;
  };
}

/** `Content-Digest` is absent, unparseable, names no supported algorithm, or does not match the body (RFC 9530). */
export class DigestMismatch extends failureClass('digest_mismatch') {}

/** The request carries no `Signature` / `Signature-Input` (or not the label the caller asked for). */
export class SignatureMissing extends failureClass('signature_missing') {}

/** The signature headers are malformed, cover too little, or the signature does not verify. */
export class SignatureInvalid extends failureClass('signature_invalid') {}

/** `created` lies in the future beyond the allowed skew, is older than the verifier's window, or `expires` has passed. */
export class SignatureExpired extends failureClass('signature_expired') {}

/** No usable key in the signer's profile carries the signature's `keyid`. */
export class KeyNotFound extends failureClass('key_not_found') {}

/** The resolved key (or the `alg` parameter) names an algorithm this verifier does not accept. */
export class AlgorithmUnsupported extends failureClass('algorithm_unsupported') {}

/** The platform profile could not be fetched: DNS, a special-use address, timeout, size cap, redirect or non-2xx. */
export class ProfileUnreachable extends failureClass('profile_unreachable') {}

/** The platform profile is not JSON, or lacks `usp.version` (YYYY-MM-DD) and a `usp.capabilities` object. */
export class ProfileMalformed extends failureClass('profile_malformed') {}

/** An allowlist is configured and the profile URL matches none of its prefixes. */
export class ProfileNotTrusted extends failureClass('profile_not_trusted') {}

/** The profile URL is not absolute, not https, or carries credentials (plain http only on loopback in development). */
export class InvalidProfileUrl extends failureClass('invalid_profile_url') {}
