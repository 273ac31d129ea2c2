/**
 * The answers authentication gives when it refuses: each check's own failure (a proof of possession,
 * a signature or profile check, an access token) folded into the one AuthFailure the wire shows,
 * with its public text; the precise cause goes to `logDetail` only.
 */
import { SecurityFailure } from './failures.js';
import type { PopFailure } from './pop.js';
import {
  type AuthFailure,
  authFailure as fail,
  type AuthFailureCode,
  type AuthPolicy,
  type OAuthTokenInfo,
} from './auth-contract.js';

export const POP_PUBLIC: Record<string, string> = {
  pop_proof_missing: 'A proof of possession is required with this credential.',
  pop_proof_invalid: 'The proof of possession is not valid.',
  pop_key_mismatch: 'The proof was not made with the key this credential is bound to.',
  pop_proof_replayed: 'This proof was already used; make a new one for every call.',
  proof_nonce_required: 'Repeat the call with a proof that carries the nonce given.',
};

/** A proof-of-possession failure as the wire shows it (a fresh nonce when the proof must carry one). */
export function popError(e: PopFailure, policy: AuthPolicy, now: number): AuthFailure {
  const extra: Record<string, unknown> = {};
  if (e.code === 'proof_nonce_required') extra.nonce = policy.nonces.issue(now);
  return fail('pop_proof_required', e.code, POP_PUBLIC[e.code], e.detail, extra);
}

/** The one answer for a token that is not good here; the precise cause goes to the log. */
export function refuseToken(logDetail: string): never {
  throw fail(
    'authentication_required',
    'invalid_token',
    'The access token is not valid here: unknown, expired, revoked, for another resource, or without its proof.',
    logDetail,
  );
}

/** RFC 6750 section 3.1: the token is good but was not granted what this call needs (403 on HTTP). */
export function insufficientScope(needed: readonly string[], info: OAuthTokenInfo): AuthFailure {
  const named = needed.length === 1 ? `the scope ${needed[0]}` : `one of the scopes ${needed.join(', ')}`;
  return fail(
    'insufficient_scope',
    'insufficient_scope',
    `This call needs ${named}, which this access token was not granted; authorize again asking for scope ${needed[0]}.`,
    `oauth client ${info.clientId} has scopes [${info.scopes.join(' ')}], needs one of [${needed.join(' ')}]`,
    // The scope to ask for (the row's first), named in the challenge.
    { scope: needed[0] },
  );
}

export const businessOnly = (logDetail: string) =>
  fail(
    'authentication_required',
    'business_credential_required',
    'Only the business itself may do this; authenticate with the business API key.',
    logDetail,
  );

const SECURITY_PUBLIC: Record<string, string> = {
  signature_missing: 'This request must be signed (RFC 9421).',
  signature_invalid: 'The request signature does not verify.',
  signature_expired: 'The request signature is too old.',
  key_not_found: "The signing key is not in the platform profile's keys.",
  digest_mismatch: 'Content-Digest does not match the request body.',
  algorithm_unsupported: 'The signature algorithm is not supported (use ES256).',
  profile_unreachable: 'The platform profile could not be fetched.',
  profile_malformed: 'The platform profile is not a valid USP platform profile.',
  profile_not_trusted: 'The platform profile is not on this business allowlist.',
  invalid_profile_url: 'The platform profile URL is not acceptable.',
};

/** Run a check that throws SecurityFailure, and fold its failure into the one wire answer. */
export async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof SecurityFailure)) throw e;
    const code: AuthFailureCode =
      e.code === 'digest_mismatch' ||
      e.code === 'algorithm_unsupported' ||
      e.code.startsWith('profile_') ||
      e.code === 'invalid_profile_url'
        ? (e.code as AuthFailureCode)
        : 'signature_invalid';
    throw fail(
      code,
      e.code,
      SECURITY_PUBLIC[e.code] ?? 'Authentication failed.',
      e.detail,
      e.code.startsWith('signature') || e.code === 'key_not_found' ? { mechanism: 'http_message_signature' } : {},
    );
  }
}
