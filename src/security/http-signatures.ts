/**
 * RFC 9421 HTTP Message Signatures as USP uses them (spec §9.1.4 request signing, §10.1.1 webhook
 * signing): ES256 (`ecdsa-p256-sha256`) with the fixed-width raw r||s value, `keyid` / `created` /
 * `alg` as signature parameters, and the signature base built exactly per RFC 9421 §2.5.
 * Ed25519 (`ed25519`) is implemented too, but a verifier accepts it only when asked to.
 */
import { sign as cryptoSign, verify as cryptoVerify, type JsonWebKey, type KeyObject } from 'node:crypto';
import {
  isInnerList,
  parseDictionary,
  serializeDictionary,
  serializeInnerList,
  serializeItem,
  type Dictionary,
  type InnerList,
  type Item,
  type Parameters,
} from 'structured-headers';
import { verifyContentDigest } from './content-digest.js';
import {
  algorithmOfJwk,
  algorithmOfPrivateKey,
  describeKey,
  importPublicKey,
  type SignatureAlgorithm,
} from './signature-keys.js';

export { generateSigningKey, jwkThumbprint, type SignatureAlgorithm } from './signature-keys.js';
import {
  AlgorithmUnsupported,
  KeyNotFound,
  SecurityFailure,
  SignatureExpired,
  SignatureInvalid,
  SignatureMissing,
} from './failures.js';

// ------------------------------------------------------------------------------------------------
// Types
// ------------------------------------------------------------------------------------------------

/** Header fields as a WHATWG `Headers` or a plain record (names matched case-insensitively). */
export type HeaderSource = Headers | Record<string, string>;

export interface SignableRequest {
  method: string;
  /** Absolute request URL; `@authority`, `@path`, `@query` and `@target-uri` derive from it. */
  url: string;
  headers: Record<string, string>;
  /** When given together with a `Content-Digest` header, the digest is checked before signing. */
  body?: Uint8Array;
}

export interface SigningKey {
  kid: string;
  /** A P-256 key signs `ecdsa-p256-sha256`; an Ed25519 key signs `ed25519`. */
  privateKey: KeyObject;
}

export interface SignOptions {
  /** Covered components in order: derived (`@method`, ...) or header field names (lower-cased here). */
  components: string[];
  /** `created` parameter, epoch seconds. Omitted when absent: USP makes it optional on requests, MUST on webhooks. */
  created?: number;
  /** `expires` parameter, epoch seconds. */
  expires?: number;
  /** Dictionary label; default `sig1`. */
  label?: string;
}

export interface SignatureHeaders {
  'Signature-Input': string;
  Signature: string;
}

export interface VerifiableRequest {
  method: string;
  /** Absolute request URL as the server received it (scheme, Host and request target). */
  url: string;
  headers: HeaderSource;
  /** The raw body bytes; absent means empty. */
  body?: Uint8Array;
}

export interface VerifyOptions {
  /** Current time, epoch MILLISECONDS (the `Clock` unit). */
  now: number;
  /** When given, a signature whose `created` is older than this is `signature_expired`. No default: USP imposes no window on requests. */
  maxAgeSeconds?: number;
  /** Components that must be covered, given the set present on the request (e.g. `uspRequiredComponents`). */
  requiredComponents: (present: Set<string>) => string[];
  /** Verify only this label; default: every label in order, the first that verifies wins. */
  label?: string;
  /** Accepted algorithms; default ES256 only (`ecdsa-p256-sha256`), the baseline USP and UCP share. */
  algorithms?: readonly SignatureAlgorithm[];
}

export interface VerifiedSignature {
  keyid: string;
  jwk: JsonWebKey;
  label: string;
  covered: string[];
  created?: number;
  algorithm: SignatureAlgorithm;
}

/** Allowed clock skew for a `created` in the future (spec: ±60 s, as for PoP `iat`). */
const FUTURE_SKEW_SECONDS = 60;

// ------------------------------------------------------------------------------------------------
// Message views and component derivation (RFC 9421 §2)
// ------------------------------------------------------------------------------------------------

interface MessageView {
  request?: { method: string; url: URL };
  status?: number;
  header(name: string): string | undefined;
}

/** A component cannot be derived from the message; signers get a TypeError, verifiers `signature_invalid`. */
class ComponentError extends Error {}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function normalizeFieldValue(value: string): string {
  // RFC 9421 §2.1: obs-fold becomes one space; leading and trailing whitespace is stripped.
  return value.replace(/\r?\n[ \t]+/g, ' ').replace(/^[ \t]+|[ \t]+$/g, '');
}

function isHeaders(h: HeaderSource): h is Headers {
  return typeof Headers !== 'undefined' && h instanceof Headers;
}

function headerReader(headers: HeaderSource): (name: string) => string | undefined {
  if (isHeaders(headers)) {
    return (name) => {
      const v = headers.get(name);
      return v === null ? undefined : normalizeFieldValue(v);
    };
  }
  return (name) => {
    const values: string[] = [];
    for (const [k, v] of Object.entries(headers)) {
      if (k.toLowerCase() === name && typeof v === 'string') values.push(normalizeFieldValue(v));
    }
    // RFC 9421 §2.1: several field lines combine with ", ".
    return values.length === 0 ? undefined : values.join(', ');
  };
}

function headerNames(headers: HeaderSource): string[] {
  if (isHeaders(headers)) return [...headers.keys()];
  return Object.keys(headers).map((k) => k.toLowerCase());
}

function requestView(method: string, url: URL, headers: HeaderSource): MessageView {
  return { request: { method, url }, header: headerReader(headers) };
}

function componentValue(id: string, view: MessageView): string {
  if (id.startsWith('@')) {
    if (id === '@status') {
      if (view.status === undefined) throw new ComponentError('@status exists only on responses');
      return String(view.status);
    }
    const req = view.request;
    if (req === undefined) throw new ComponentError(`${id} cannot be derived from a response`);
    const { url } = req;
    switch (id) {
      case '@method':
        // RFC 9421 §2.2.1: the method as sent, no case change.
        if (!TOKEN.test(req.method)) throw new ComponentError('the method is not an HTTP token');
        return req.method;
      case '@target-uri': {
        const target = new URL(url.href);
        target.hash = '';
        return target.href;
      }
      case '@authority':
        // WHATWG URL already lower-cases the host and drops the scheme's default port (RFC 9421 §2.2.3).
        return url.host;
      case '@scheme':
        return url.protocol.slice(0, -1);
      case '@request-target':
        return `${url.pathname || '/'}${url.search}`;
      case '@path':
        return url.pathname || '/';
      case '@query':
        // RFC 9421 §2.2.7: an absent or empty query is the lone "?".
        return url.search || '?';
      default:
        throw new ComponentError(`unsupported derived component ${id}`);
    }
  }
  const value = view.header(id);
  if (value === undefined) throw new ComponentError(`covered header ${id} is absent`);
  if (/[\r\n]/.test(value)) throw new ComponentError(`header ${id} contains a line break`);
  return value;
}

/** RFC 9421 §2.5: one `"name": value` line per covered component, then `"@signature-params"` last. */
function signatureBase(covered: readonly string[], input: InnerList, view: MessageView): string {
  const lines = covered.map((id) => `${serializeItem([id, new Map()])}: ${componentValue(id, view)}`);
  lines.push(`"@signature-params": ${serializeInnerList(input)}`);
  return lines.join('\n');
}

/** Every component identifier a request can supply: the derived ones, `@query` when a query is present, and each header. */
function presentComponents(url: URL, headers: HeaderSource): Set<string> {
  const present = new Set(['@method', '@authority', '@path', '@target-uri', '@scheme', '@request-target']);
  if (url.search !== '') present.add('@query');
  for (const name of headerNames(headers)) present.add(name);
  return present;
}

const USP_CONDITIONAL = ['@query', 'usp-agent', 'idempotency-key', 'content-digest', 'content-type'] as const;

/**
 * The USP covered-component rule (§9.1.4): `@method`, `@authority`, `@path` always, plus `@query`,
 * `usp-agent`, `idempotency-key`, `content-digest` and `content-type` whenever the request carries
 * them. Accepts the request itself or the `present` set handed to `requiredComponents`.
 */
export function uspRequiredComponents(input: Set<string> | { url: string; headers: HeaderSource }): string[] {
  const present = input instanceof Set ? input : presentComponents(new URL(input.url), input.headers);
  return ['@method', '@authority', '@path', ...USP_CONDITIONAL.filter((c) => present.has(c))];
}

// ------------------------------------------------------------------------------------------------
// Signing
// ------------------------------------------------------------------------------------------------

function signView(view: MessageView, key: SigningKey, opts: SignOptions): SignatureHeaders {
  const algorithm = algorithmOfPrivateKey(key.privateKey);
  const components = opts.components.map((c) => (c.startsWith('@') ? c : c.toLowerCase()));
  if (new Set(components).size !== components.length) throw new TypeError('a component may be covered only once');
  if (components.includes('@signature-params')) throw new TypeError('@signature-params cannot be covered');
  const params: Parameters = new Map();
  params.set('keyid', key.kid);
  for (const [name, value] of [
    ['created', opts.created],
    ['expires', opts.expires],
  ] as const) {
    if (value === undefined) continue;
    if (!Number.isInteger(value)) throw new TypeError(`${name} must be an integer number of seconds`);
    params.set(name, value);
  }
  params.set('alg', algorithm);
  const items: Item[] = components.map((c) => [c, new Map()]);
  const input: InnerList = [items, params];
  let base: string;
  try {
    base = signatureBase(components, input, view);
  } catch (err) {
    if (err instanceof ComponentError) throw new TypeError(err.message);
    throw err;
  }
  const data = Buffer.from(base, 'utf8');
  const signature =
    algorithm === 'ed25519'
      ? cryptoSign(null, data, key.privateKey)
      : cryptoSign('sha256', data, { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  const label = opts.label ?? 'sig1';
  return {
    'Signature-Input': serializeDictionary(new Map([[label, input]])),
    Signature: serializeDictionary(new Map([[label, [signature, new Map()] as Item]])),
  };
}

function checkBodyDigest(headers: Record<string, string>, body: Uint8Array | undefined): void {
  if (body === undefined) return;
  const digest = headerReader(headers)('content-digest');
  if (digest !== undefined) verifyContentDigest(digest, body);
}

/**
 * Signs a request (RFC 9421 §3.1) and returns the two header values to add. `keyid`, `created` (when
 * given) and `alg` ride as signature parameters. Throws a TypeError for a local mistake (a covered
 * header that is absent, an unsupported key) and `DigestMismatch` when `body` contradicts the
 * `Content-Digest` header being signed.
 */
export function signRequest(msg: SignableRequest, key: SigningKey, opts: SignOptions): SignatureHeaders {
  checkBodyDigest(msg.headers, msg.body);
  return signView(requestView(msg.method, new URL(msg.url), msg.headers), key, opts);
}

// ------------------------------------------------------------------------------------------------
// Verification
// ------------------------------------------------------------------------------------------------

function parseSignatureField(name: string, raw: string): Dictionary {
  try {
    return parseDictionary(raw);
  } catch (err) {
    throw new SignatureInvalid(`${name} is not an RFC 8941 dictionary: ${(err as Error).message}`);
  }
}

function integerParam(params: Parameters, name: string): number | undefined {
  const v = params.get(name);
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new SignatureInvalid(`${name} must be an integer`);
  return v;
}

/**
 * Verifies an inbound request's RFC 9421 signature (spec §9.1.4). Order: both signature fields
 * present (`signature_missing`); `Content-Digest` against the raw body before any signature work
 * (`digest_mismatch`); then per label: structure, covered components (`requiredComponents`, and
 * `@target-uri` only alongside `@authority` and `@path`), freshness of `created` / `expires` when
 * present (`signature_expired`; `created` itself is never required), `keyid` resolution
 * (`key_not_found`), key algorithm (`algorithm_unsupported`) and the signature itself (a 64-byte
 * raw value; DER fails as `signature_invalid`). With several labels the first that verifies wins;
 * if none does, the first label's failure is thrown. Errors from `resolveKey` propagate.
 */
export async function verifyRequestSignature(
  msg: VerifiableRequest,
  resolveKey: (keyid: string) => Promise<JsonWebKey | null>,
  opts: VerifyOptions,
): Promise<VerifiedSignature> {
  const url = new URL(msg.url);
  const view = requestView(msg.method, url, msg.headers);
  const inputRaw = view.header('signature-input');
  const signatureRaw = view.header('signature');
  if (inputRaw === undefined && signatureRaw === undefined) {
    throw new SignatureMissing('the request has no Signature or Signature-Input header');
  }
  if (inputRaw === undefined || signatureRaw === undefined) {
    throw new SignatureInvalid('Signature and Signature-Input must both be present');
  }
  // RFC 9530 before RFC 9421: a body that does not match its digest is malformed, whoever signed it.
  const digest = view.header('content-digest');
  if (digest !== undefined) verifyContentDigest(digest, msg.body ?? new Uint8Array(0));

  const inputs = parseSignatureField('Signature-Input', inputRaw);
  const signatures = parseSignatureField('Signature', signatureRaw);
  if (opts.label !== undefined && !inputs.has(opts.label)) {
    throw new SignatureMissing(`no signature labelled ${opts.label}`);
  }
  const labels = opts.label !== undefined ? [opts.label] : [...inputs.keys()];
  if (labels.length === 0) throw new SignatureMissing('Signature-Input lists no signature');

  const ctx: VerifyContext = {
    view,
    present: presentComponents(url, msg.headers),
    inputs,
    signatures,
    resolveKey,
    opts,
  };
  let firstFailure: SecurityFailure | undefined;
  for (const label of labels) {
    try {
      return await verifyLabel(label, ctx);
    } catch (err) {
      if (!(err instanceof SecurityFailure)) throw err;
      firstFailure ??= err;
    }
  }
  throw firstFailure ?? new SignatureInvalid('no signature verified');
}

interface VerifyContext {
  view: MessageView;
  present: Set<string>;
  inputs: Dictionary;
  signatures: Dictionary;
  resolveKey: (keyid: string) => Promise<JsonWebKey | null>;
  opts: VerifyOptions;
}

async function verifyLabel(label: string, ctx: VerifyContext): Promise<VerifiedSignature> {
  const { opts } = ctx;
  const input = ctx.inputs.get(label);
  if (input === undefined || !isInnerList(input))
    throw new SignatureInvalid(`Signature-Input ${label} is not an inner list`);
  const sigMember = ctx.signatures.get(label);
  if (sigMember === undefined) throw new SignatureInvalid(`no Signature value for label ${label}`);
  if (isInnerList(sigMember) || !(sigMember[0] instanceof ArrayBuffer)) {
    throw new SignatureInvalid(`Signature ${label} is not a byte sequence`);
  }
  const signature = new Uint8Array(sigMember[0]);

  const [items, params] = input;
  const covered: string[] = [];
  for (const [name, itemParams] of items) {
    if (typeof name !== 'string') throw new SignatureInvalid('component identifiers must be strings');
    if (itemParams.size > 0) throw new SignatureInvalid(`component parameters are not supported (${name})`);
    if (name === '@signature-params') throw new SignatureInvalid('@signature-params cannot be covered');
    if (!name.startsWith('@') && name !== name.toLowerCase())
      throw new SignatureInvalid(`field name ${name} is not lower-case`);
    if (covered.includes(name)) throw new SignatureInvalid(`component ${name} is covered twice`);
    covered.push(name);
  }
  const keyid = params.get('keyid');
  if (typeof keyid !== 'string' || keyid === '') throw new SignatureInvalid('the keyid parameter is required');
  const created = integerParam(params, 'created');
  const expires = integerParam(params, 'expires');
  const alg = params.get('alg');
  if (alg !== undefined && typeof alg !== 'string') throw new SignatureInvalid('alg must be a string');

  // §9.1.4 covered components; @target-uri may be added, never substituted.
  for (const required of opts.requiredComponents(ctx.present)) {
    if (!covered.includes(required)) throw new SignatureInvalid(`${required} is present but not covered`);
  }
  if (covered.includes('@target-uri') && !(covered.includes('@authority') && covered.includes('@path'))) {
    throw new SignatureInvalid('@target-uri does not replace @authority and @path');
  }

  const nowSeconds = Math.floor(opts.now / 1000);
  if (created !== undefined) {
    if (created > nowSeconds + FUTURE_SKEW_SECONDS) throw new SignatureExpired('created lies in the future');
    if (opts.maxAgeSeconds !== undefined && nowSeconds - created > opts.maxAgeSeconds) {
      throw new SignatureExpired(`created is older than ${opts.maxAgeSeconds} s`);
    }
  }
  if (expires !== undefined && nowSeconds > expires) throw new SignatureExpired('the signature has expired');

  const accepted: readonly SignatureAlgorithm[] = opts.algorithms ?? ['ecdsa-p256-sha256'];
  if (alg !== undefined && !(accepted as readonly string[]).includes(alg)) {
    throw new AlgorithmUnsupported(`alg ${alg} is not accepted`);
  }
  const jwk = await ctx.resolveKey(keyid);
  if (jwk === null) throw new KeyNotFound(`no usable key with kid ${keyid}`);
  const algorithm = algorithmOfJwk(jwk);
  if (algorithm === null || !accepted.includes(algorithm)) {
    throw new AlgorithmUnsupported(`key ${keyid} (${describeKey(jwk)}) is not an accepted signing key`);
  }
  if (alg !== undefined && alg !== algorithm) throw new SignatureInvalid(`alg ${alg} does not match key ${keyid}`);

  let base: string;
  try {
    base = signatureBase(covered, input, ctx.view);
  } catch (err) {
    if (err instanceof ComponentError) throw new SignatureInvalid(err.message);
    throw err;
  }
  // Both algorithms produce exactly 64 bytes; an ASN.1/DER ECDSA value (70-72 bytes) is refused here.
  if (signature.length !== 64)
    throw new SignatureInvalid(`signature is ${signature.length} bytes, not a 64-byte raw value`);
  let publicKey: KeyObject;
  try {
    publicKey = importPublicKey(jwk);
  } catch (err) {
    throw new SignatureInvalid(`key ${keyid} cannot be imported: ${(err as Error).message}`);
  }
  const data = Buffer.from(base, 'utf8');
  const ok =
    algorithm === 'ed25519'
      ? cryptoVerify(null, data, publicKey, signature)
      : cryptoVerify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
  if (!ok) throw new SignatureInvalid('the signature does not verify');
  return { keyid, jwk, label, covered, ...(created !== undefined ? { created } : {}), algorithm };
}
