/**
 * What a platform does to authenticate to a USP business, in a few small functions: make a
 * throwaway Ed25519 key, prove possession of it on MCP (`_meta.usp.authorization.proof`) or REST
 * (`DPoP`), present a booking-scoped credential, and sign REST requests with RFC 9421. Used by
 * this project's tests; written to be read and copied by platform authors.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  randomBytes,
  randomUUID,
  sign,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { argumentsDigest, contentDigest, generateSigningKey, jwkThumbprint, signRequest } from '../security/index.js';

export interface PopKey {
  privateKey: KeyObject;
  /** The bare public JWK that travels in every proof header. */
  publicJwk: JsonWebKey;
  /** Its RFC 7638 thumbprint: the identity the business records (cnf.jkt). */
  jkt: string;
}

/** An Ed25519 private key's PKCS #8 DER up to its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A fresh Ed25519 key. Keep it for as long as you keep the credentials bound to it. */
export function createPopKey(): PopKey {
  // Made from 32 random bytes, not by generateKeyPairSync: on Node 20 a key-generation job that the
  // garbage collector frees while the same key's JWK is being exported waits for a lock the export
  // holds, and the process hangs for good (CI's benchmark smoke run did, 2026-12-06). No job, no wait.
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, randomBytes(32)]),
    format: 'der',
    type: 'pkcs8',
  });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as JsonWebKey;
  const publicJwk = { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
  return { privateKey, publicJwk, jkt: jwkThumbprint(publicJwk) };
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8').toString('base64url');

function compactJws(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject): string {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`;
}

export interface ProofOptions {
  /** Seconds since the epoch; defaults to now. */
  iat?: number;
  jti?: string;
  /** The nonce from a `proof_nonce_required` challenge. */
  nonce?: string;
  /** The booking-scoped credential being presented (adds `ath`). */
  credential?: string;
}

/**
 * An MCP proof for one tool call: `usp_m` the tool, `aud` the business profile URI, `usp_p` the
 * digest of the arguments exactly as they will be sent (with `_meta.usp.authorization` left out).
 */
export function mcpProof(
  key: PopKey,
  tool: string,
  args: Record<string, unknown>,
  aud: string,
  o: ProofOptions = {},
): string {
  const claims: Record<string, unknown> = {
    usp_m: tool,
    aud,
    usp_p: argumentsDigest(args),
    iat: o.iat ?? Math.floor(Date.now() / 1000),
    jti: o.jti ?? randomUUID(),
  };
  if (o.credential) claims.ath = createHash('sha256').update(o.credential).digest('base64url');
  if (o.nonce) claims.nonce = o.nonce;
  return compactJws({ typ: 'usp-pop+jwt', alg: 'EdDSA', jwk: key.publicJwk }, claims, key.privateKey);
}

/**
 * Arguments ready to send with `platform_key_pop`: the proof covers everything else in the
 * arguments, so add `_meta.usp.profile` (and any idempotency key) before calling this.
 */
export function withMcpProof(
  key: PopKey,
  tool: string,
  args: Record<string, unknown>,
  aud: string,
  o: ProofOptions = {},
): Record<string, unknown> {
  const proof = mcpProof(key, tool, args, aud, o);
  const meta = (args._meta as Record<string, unknown> | undefined) ?? {};
  const usp = (meta.usp as Record<string, unknown> | undefined) ?? {};
  const authorization: Record<string, string> = { mechanism: 'platform_key_pop', proof };
  if (o.credential) authorization.credential = o.credential;
  return { ...args, _meta: { ...meta, usp: { ...usp, authorization } } };
}

/** An RFC 9449 DPoP proof for one REST request (`htu` is the URL without query or fragment). */
export function dpopProof(key: PopKey, method: string, url: string, o: ProofOptions = {}): string {
  const u = new URL(url);
  const claims: Record<string, unknown> = {
    htm: method.toUpperCase(),
    htu: `${u.origin}${u.pathname}`,
    iat: o.iat ?? Math.floor(Date.now() / 1000),
    jti: o.jti ?? randomUUID(),
  };
  if (o.credential) claims.ath = createHash('sha256').update(o.credential).digest('base64url');
  if (o.nonce) claims.nonce = o.nonce;
  return compactJws({ typ: 'dpop+jwt', alg: 'EdDSA', jwk: key.publicJwk }, claims, key.privateKey);
}

/** Headers for a REST call with DPoP: the proof, and `Authorization: DPoP <credential>` when presenting one. */
export function dpopHeaders(key: PopKey, method: string, url: string, o: ProofOptions = {}): Record<string, string> {
  const h: Record<string, string> = { DPoP: dpopProof(key, method, url, o) };
  if (o.credential) h.Authorization = `DPoP ${o.credential}`;
  return h;
}

export interface SigningIdentity {
  kid: string;
  privateKey: KeyObject;
  /** Publish this in your platform profile's `keys` (and `signing_keys`). */
  publicJwk: JsonWebKey;
}

export function createSigningIdentity(kid: string): SigningIdentity {
  return generateSigningKey(kid);
}

/**
 * Sign a REST request (RFC 9421, ES256): adds `Content-Digest` for a body, and covers
 * `@method`, `@authority`, `@path` plus `@query`, `usp-agent`, `idempotency-key`, `content-digest`
 * and `content-type` when the request has them. Returns the headers to send (input headers included).
 */
export function signedHeaders(
  id: SigningIdentity,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: string | Uint8Array,
  created = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const out: Record<string, string> = { ...headers };
  if (bytes && bytes.byteLength > 0) out['Content-Digest'] = contentDigest(bytes);
  const lower = new Set(Object.keys(out).map((k) => k.toLowerCase()));
  const components = ['@method', '@authority', '@path'];
  if (new URL(url).search) components.push('@query');
  for (const h of ['usp-agent', 'idempotency-key', 'content-digest', 'content-type'])
    if (lower.has(h)) components.push(h);
  const sig = signRequest(
    { method, url, headers: out, body: bytes },
    { kid: id.kid, privateKey: id.privateKey },
    { components, created },
  );
  return { ...out, ...sig };
}
