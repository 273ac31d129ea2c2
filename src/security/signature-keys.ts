/**
 * The keys of HTTP Message Signatures: which RFC 9421 algorithm a key signs or verifies with,
 * public JWKs imported once, RFC 7638 thumbprints and fresh P-256 signing keys.
 */
import { createHash, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { AlgorithmUnsupported } from './failures.js';

/** RFC 9421 §6.2 algorithm names this module implements. */
export type SignatureAlgorithm = 'ecdsa-p256-sha256' | 'ed25519';

export function algorithmOfPrivateKey(key: KeyObject): SignatureAlgorithm {
  if (key.type !== 'private') throw new TypeError('signing needs a private key');
  if (key.asymmetricKeyType === 'ed25519') return 'ed25519';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1')
    return 'ecdsa-p256-sha256';
  throw new TypeError(`no supported signature algorithm for a ${key.asymmetricKeyType} key`);
}

/** The RFC 9421 algorithm a public JWK verifies, or null when it is none we implement. */
export function algorithmOfJwk(jwk: JsonWebKey): SignatureAlgorithm | null {
  if (jwk.kty === 'EC' && jwk.crv === 'P-256' && (jwk.alg === undefined || jwk.alg === 'ES256'))
    return 'ecdsa-p256-sha256';
  if (
    jwk.kty === 'OKP' &&
    jwk.crv === 'Ed25519' &&
    (jwk.alg === undefined || jwk.alg === 'EdDSA' || jwk.alg === 'Ed25519')
  ) {
    return 'ed25519';
  }
  return null;
}

export function describeKey(jwk: JsonWebKey): string {
  return [jwk.kty, jwk.crv, jwk.alg].filter((v) => v !== undefined).join('/') || 'untyped';
}

/** Imported keys by their public members: decoding a P-256 point costs about as much as a verify. */
const importedKeys = new Map<string, KeyObject>();

export function importPublicKey(jwk: JsonWebKey): KeyObject {
  // Only the public members: a stray `d` must never turn verification into private-key use.
  const pub: JsonWebKey =
    jwk.kty === 'EC' ? { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } : { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
  const id = `${pub.kty}|${pub.crv}|${pub.x}|${pub.y ?? ''}`;
  let key = importedKeys.get(id);
  if (!key) {
    key = createPublicKey({ key: pub, format: 'jwk' });
    if (importedKeys.size >= 10_000) importedKeys.clear();
    importedKeys.set(id, key);
  }
  return key;
}

const THUMBPRINT_MEMBERS = new Map<string, readonly string[]>([
  ['EC', ['crv', 'kty', 'x', 'y']],
  ['OKP', ['crv', 'kty', 'x']],
  ['RSA', ['e', 'kty', 'n']],
]);

/**
 * RFC 7638 JWK thumbprint: base64url SHA-256 of the required members in lexicographic order, no
 * whitespace. Identifies a key as a principal. Throws `AlgorithmUnsupported` for a kty other than
 * EC, OKP or RSA, and a TypeError when a required member is missing.
 */
export function jwkThumbprint(jwk: JsonWebKey): string {
  const members = THUMBPRINT_MEMBERS.get(String(jwk.kty));
  if (members === undefined) throw new AlgorithmUnsupported(`no RFC 7638 thumbprint for kty ${String(jwk.kty)}`);
  const canonical: Record<string, string> = {};
  for (const m of members) {
    const v = (jwk as Record<string, unknown>)[m];
    if (typeof v !== 'string') throw new TypeError(`JWK member ${m} is required for a ${String(jwk.kty)} thumbprint`);
    canonical[m] = v;
  }
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
}

/** A fresh P-256 signing key; `publicJwk` (kid, kty, crv, x, y, use `sig`, alg `ES256`) is what a profile publishes in `keys`. */
export function generateSigningKey(kid: string): { kid: string; privateKey: KeyObject; publicJwk: JsonWebKey } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  return { kid, privateKey, publicJwk: { kid, kty, crv, x, y, use: 'sig', alg: 'ES256' } };
}
