/**
 * Proofs of possession, the one checker for both kinds: `platform_key_pop` proofs (spec 10.1.6,
 * 9.2.2; RFC 9449 on REST), a compact JWS signed by a key the platform never publishes, and the
 * DPoP proofs of OAuth access tokens (RFC 9449, `lenient`, with the authorization server's algorithms). These checks are pure: they take the clock, the expected
 * binding and the presented credential, and either return the proof's key thumbprint and jti or
 * throw one PopFailure naming the step that failed. Replay (the jti cache) and the credential
 * lookup are the caller's, because they need the store.
 *
 * Written on node:crypto rather than a JOSE library: verification is synchronous (no WebCrypto
 * promise per call), which keeps proof checking close to the cost of a bare Ed25519 verify.
 */
import { constants, createPublicKey, verify as cryptoVerify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { sha256b64url } from './jcs.js';
import { jwkThumbprint } from './http-signatures.js';

export type PopFailureCode =
  | 'pop_proof_missing'
  | 'pop_proof_invalid'
  | 'pop_key_mismatch'
  | 'pop_proof_replayed'
  | 'proof_nonce_required';

export class PopFailure extends Error {
  constructor(
    readonly code: PopFailureCode,
    /** The precise cause, for the log only: never sent to the caller. */
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
    this.name = 'PopFailure';
  }
}

/** The skew allowed on `iat` either side of now (spec: 60 s). */
export const POP_IAT_WINDOW_S = 60;

export interface PresentedCredential {
  value: string;
  cnf?: { jkt: string };
}

export interface PopExpectation {
  binding: 'mcp' | 'rest';
  now: number;
  /** `usp_m` (MCP tool name) or `htm` (HTTP method). */
  method: string;
  /** MCP: every profile URI the business is reachable at. */
  audiences?: readonly string[];
  /** REST: acceptable `htu` values (scheme, host and path; no query or fragment). */
  htu?: readonly string[];
  /** MCP: the recomputed `usp_p`. */
  argsDigest?: string;
  /** Presentation: the credential the proof must be bound to (its `ath`, and `cnf.jkt` when present). */
  credential?: PresentedCredential;
  /** Nonces: when `required`, a proof without a valid nonce is challenged. */
  nonce?: { required: boolean; valid(n: string): boolean };
  /** Also accept ES256 proofs (EdDSA is always accepted). */
  allowEs256?: boolean;
  /** Accept exactly these algorithms instead (OAuth DPoP: the ones the authorization server advertises). */
  algorithms?: readonly PopAlgorithm[];
  /**
   * RFC 9449 lets a DPoP proof carry other header members and claims; `lenient` ignores them (OAuth
   * DPoP, whatever client library made the proof). The USP profile's proofs refuse them.
   */
  lenient?: boolean;
}

/** Every algorithm this verifier implements; which are accepted is the caller's choice. */
export type PopAlgorithm = 'EdDSA' | 'ES256' | 'RS256' | 'PS256';

/**
 * The proof algorithms this verifier accepts: EdDSA always, ES256 when allowed. The one source for
 * the check below, the profile's `pop_algorithms` and the `algs` of the DPoP challenge.
 */
export function popAlgorithms(allowEs256: boolean | undefined): readonly ('EdDSA' | 'ES256')[] {
  return allowEs256 ? ['EdDSA', 'ES256'] : ['EdDSA'];
}

export interface VerifiedProof {
  jkt: string;
  jti: string;
  iat: number;
  jwk: JsonWebKey;
}

const B64URL = /^[A-Za-z0-9_-]+$/;
/** A 32-byte value in base64url without padding: an Ed25519 public key, a P-256 coordinate. */
const isCoordinate = (v: unknown): boolean => typeof v === 'string' && /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/.test(v);
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];
const MCP_CLAIMS = new Set(['usp_m', 'aud', 'usp_p', 'iat', 'jti', 'ath', 'nonce']);
const REST_CLAIMS = new Set(['htm', 'htu', 'iat', 'jti', 'ath', 'nonce']);
const HEADER_MEMBERS = new Set(['typ', 'alg', 'jwk', 'kid']);

function decodeJson(part: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new PopFailure('pop_proof_invalid', `${what} is not base64url JSON`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new PopFailure('pop_proof_invalid', `${what} is not an object`);
  return v as Record<string, unknown>;
}

const keyCache = new Map<string, KeyObject>();

function publicKeyOf(jwk: JsonWebKey, jkt: string): KeyObject {
  let key = keyCache.get(jkt);
  if (!key) {
    try {
      key = createPublicKey({ key: jwk, format: 'jwk' });
    } catch {
      throw new PopFailure('pop_proof_invalid', 'header jwk is not a usable public key');
    }
    if (keyCache.size > 10_000) keyCache.clear();
    keyCache.set(jkt, key);
  }
  return key;
}

/**
 * Verify a proof in the order the spec fixes (steps 2 and 4-11; the caller did 1 and 3 and does
 * 12). At issuance (`credential` absent) the thumbprint is returned for the caller to record.
 */
export function verifyPopProof(proof: string | null | undefined, exp: PopExpectation): VerifiedProof {
  // Step 2: a sender-constrained credential is never accepted without its proof.
  if (proof === undefined || proof === null || proof === '') {
    throw new PopFailure(
      'pop_proof_missing',
      exp.credential?.cnf ? 'cnf-bound credential presented without a proof' : 'no proof presented',
    );
  }
  // Step 4: parse and typ.
  const parts = proof.split('.');
  if (parts.length !== 3 || !parts.every((p, i) => (i === 2 ? p === '' || B64URL.test(p) : B64URL.test(p)))) {
    throw new PopFailure('pop_proof_invalid', 'not a compact JWS');
  }
  const header = decodeJson(parts[0], 'header');
  if (!exp.lenient)
    for (const k of Object.keys(header))
      if (!HEADER_MEMBERS.has(k)) throw new PopFailure('pop_proof_invalid', `unknown header member ${k}`);
  const wantTyp = exp.binding === 'mcp' ? 'usp-pop+jwt' : 'dpop+jwt';
  if (header.typ !== wantTyp) throw new PopFailure('pop_proof_invalid', `typ ${String(header.typ)} is not ${wantTyp}`);
  // Step 5: algorithm (never none), and a bare public key.
  const alg = header.alg;
  if (!((exp.algorithms ?? popAlgorithms(exp.allowEs256)) as readonly unknown[]).includes(alg))
    throw new PopFailure('pop_proof_invalid', `alg ${String(alg)} not accepted`);
  const jwk = header.jwk as Record<string, unknown> | undefined;
  if (!jwk || typeof jwk !== 'object' || Array.isArray(jwk))
    throw new PopFailure('pop_proof_invalid', 'header has no jwk');
  if (PRIVATE_MEMBERS.some((m) => m in jwk))
    throw new PopFailure('pop_proof_invalid', 'header jwk carries private key members');
  // The curve, and a coordinate of that curve's length, before the thumbprint (newer vector 011): the
  // thumbprint covers crv, so one key relabelled with another curve would present as another platform.
  if (alg === 'EdDSA' && (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || !isCoordinate(jwk.x))) {
    throw new PopFailure('pop_proof_invalid', 'EdDSA proofs need an Ed25519 OKP key');
  }
  if (alg === 'ES256' && (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !isCoordinate(jwk.x) || !isCoordinate(jwk.y))) {
    throw new PopFailure('pop_proof_invalid', 'ES256 proofs need a P-256 key');
  }
  if ((alg === 'RS256' || alg === 'PS256') && jwk.kty !== 'RSA')
    throw new PopFailure('pop_proof_invalid', `${alg} proofs need an RSA key`);
  // `kid` is ignored: the key comes from the header, never from a key set.
  let jkt: string;
  try {
    jkt = jwkThumbprint(jwk as JsonWebKey);
  } catch {
    throw new PopFailure('pop_proof_invalid', 'cannot compute the jwk thumbprint');
  }
  // Step 6: the key must be the one the credential was bound to.
  if (exp.credential?.cnf && exp.credential.cnf.jkt !== jkt)
    throw new PopFailure('pop_key_mismatch', 'proof key is not the credential cnf.jkt');
  // Step 7: signature.
  if (parts[2] === '') throw new PopFailure('pop_proof_invalid', 'empty signature');
  const key = publicKeyOf(jwk as JsonWebKey, jkt);
  const data = Buffer.from(`${parts[0]}.${parts[1]}`, 'ascii');
  const sig = Buffer.from(parts[2], 'base64url');
  const ok = verifySignature(alg as PopAlgorithm, data, key, sig);
  if (!ok) throw new PopFailure('pop_proof_invalid', 'signature does not verify');

  const claims = decodeJson(parts[1], 'payload');
  const allowed = exp.binding === 'mcp' ? MCP_CLAIMS : REST_CLAIMS;
  if (!exp.lenient)
    for (const k of Object.keys(claims))
      if (!allowed.has(k)) throw new PopFailure('pop_proof_invalid', `unknown claim ${k}`);
  // Step 8: target.
  if (exp.binding === 'mcp') {
    if (typeof claims.aud !== 'string' || !(exp.audiences ?? []).includes(claims.aud))
      throw new PopFailure('pop_proof_invalid', `aud ${String(claims.aud)} is not this business`);
    // Step 9: method and arguments.
    if (claims.usp_m !== exp.method)
      throw new PopFailure('pop_proof_invalid', `usp_m ${String(claims.usp_m)} is not ${exp.method}`);
    if (typeof claims.usp_p !== 'string' || claims.usp_p !== exp.argsDigest)
      throw new PopFailure('pop_proof_invalid', 'usp_p does not match the arguments');
  } else {
    if (typeof claims.htm !== 'string' || claims.htm.toUpperCase() !== exp.method.toUpperCase())
      throw new PopFailure('pop_proof_invalid', 'htm does not match');
    if (typeof claims.htu !== 'string' || !(exp.htu ?? []).includes(stripQuery(claims.htu)))
      throw new PopFailure('pop_proof_invalid', `htu ${String(claims.htu)} does not match`);
  }
  // Step 10: ath binds the credential (presentation only; absent at issuance).
  if (exp.credential) {
    if (claims.ath !== sha256b64url(exp.credential.value))
      throw new PopFailure('pop_proof_invalid', 'ath does not match the credential');
  } else if (claims.ath !== undefined) {
    throw new PopFailure('pop_proof_invalid', 'ath present without a credential');
  }
  // Step 11: freshness and nonce.
  if (typeof claims.iat !== 'number' || !Number.isInteger(claims.iat))
    throw new PopFailure('pop_proof_invalid', 'iat missing');
  if (Math.abs(claims.iat - Math.floor(exp.now / 1000)) > POP_IAT_WINDOW_S)
    throw new PopFailure('pop_proof_invalid', 'iat outside the window');
  if (exp.nonce?.required && (typeof claims.nonce !== 'string' || !exp.nonce.valid(claims.nonce))) {
    throw new PopFailure('proof_nonce_required', claims.nonce === undefined ? 'nonce required' : 'nonce not valid');
  }
  if (typeof claims.jti !== 'string' || claims.jti.length === 0 || claims.jti.length > 256)
    throw new PopFailure('pop_proof_invalid', 'jti missing');
  return { jkt, jti: claims.jti, iat: claims.iat, jwk: jwk as JsonWebKey };
}

function verifySignature(alg: PopAlgorithm, data: Buffer, key: KeyObject, sig: Buffer): boolean {
  try {
    switch (alg) {
      case 'EdDSA':
        return cryptoVerify(null, data, key, sig);
      case 'ES256':
        return cryptoVerify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig);
      case 'RS256':
        return cryptoVerify('sha256', data, key, sig);
      case 'PS256':
        return cryptoVerify('sha256', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }, sig);
    }
  } catch {
    // A key of another type than the algorithm (a crafted header) does not verify.
    return false;
  }
}

export function stripQuery(u: string): string {
  const i = u.search(/[?#]/);
  return i >= 0 ? u.slice(0, i) : u;
}
