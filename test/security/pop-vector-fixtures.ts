/** The official PoP vectors and the helpers their tests share: an in-memory SecurityRepo, a policy, K1. */
import { createPrivateKey, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import { AuthFailure, type AuthPolicy } from '../../src/security/authenticate.js';
import { argumentsDigest } from '../../src/security/jcs.js';
import { PopFailure, type PopExpectation } from '../../src/security/pop.js';
import type { CredentialRow, SecurityRepo } from '../../src/store/port.js';
import { popVectors } from '../support/spec.js';

export const AUD = 'https://business.example.com/.well-known/usp';

let byId: Map<string, any> | undefined;
const vectorsById = (): Map<string, any> => {
  byId ??= new Map(popVectors().map(({ vector }) => [vector.id as string, vector]));
  return byId;
};

/** The ids of the official PoP vectors (read once, at the first use). */
export const vectorIds = (): string[] => [...vectorsById().keys()];

/** One official PoP vector by id. */
export function vector(id: string): any {
  const x = vectorsById().get(id);
  if (!x) throw new Error(`vector ${id} is missing from tests/vectors/pop`);
  return x;
}

/** Runs `fn` and returns the PopFailure it throws (fails the test when it does not throw one). */
export function popFailure(fn: () => unknown): PopFailure {
  try {
    fn();
  } catch (e) {
    if (e instanceof PopFailure) return e;
    throw e;
  }
  throw new Error('expected a PopFailure, but the proof was accepted');
}

export async function authFailure(p: Promise<unknown>): Promise<AuthFailure> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AuthFailure) return e;
    throw e;
  }
  throw new Error('expected an AuthFailure, but the request was accepted');
}

/** An in-memory SecurityRepo: credentials by hash, a jti cache, TOFU bindings. */
export function memoryRepo(
  rows: CredentialRow[] = [],
): SecurityRepo & { jtis: Set<string>; bindings: Map<string, string> } {
  const creds = new Map(rows.map((r) => [r.value_hash, r]));
  const jtis = new Set<string>();
  const bindings = new Map<string, string>();
  return {
    jtis,
    bindings,
    async putCredential(c) {
      creds.set(c.value_hash, c);
    },
    async credential(h) {
      return creds.get(h) ?? null;
    },
    async revokeCredentials(id) {
      for (const c of creds.values()) if (c.resource_id === id) c.revoked = true;
    },
    async purgeCredentials(before) {
      let n = 0;
      for (const [h, c] of creds) if (c.expires_ms < before && creds.delete(h)) n++;
      return n;
    },
    async claimJti(j) {
      if (jtis.has(j)) return false;
      jtis.add(j);
      return true;
    },
    async boundProfile(p) {
      return bindings.get(p) ?? null;
    },
    async bindProfile(p, u) {
      bindings.set(p, u);
    },
    async purge() {},
  };
}

export function policy(o: { nonce?: string; requireNonce?: boolean } = {}): AuthPolicy {
  return {
    sandbox: false,
    adminKeyHashes: [],
    platformKeys: [],
    audiences: () => [AUD],
    origins: () => ['https://business.example.com'],
    nonces: { issue: () => 'fresh-nonce', valid: (n) => n === o.nonce },
    requireNonce: o.requireNonce ?? false,
    allowEs256: false,
    allowLoopbackProfiles: false,
    accepted: ['platform_key_pop', 'booking_scoped_credential'],
  };
}

/** What an MCP proof of vector `vec` is checked against, at its own iat. */
export const mcpExpect = (vec: any, extra: Partial<PopExpectation> = {}): PopExpectation => ({
  binding: 'mcp',
  now: vec.expected_claims.iat * 1000,
  method: vec.expected_claims.usp_m,
  audiences: [AUD],
  argsDigest:
    vec.expected_claims.usp_m === 'usp_bookings_create'
      ? argumentsDigest(vector('001-jcs-nested-buyer').canonicalization.params)
      : argumentsDigest(vector('002-jcs-meta-only').canonicalization.params),
  ...extra,
});

/** The vectors' key K1 (its private part), to sign proofs the vectors do not hold. */
export function k1Key(vec: any): {
  jwk: JsonWebKey;
  key: KeyObject;
  proof(claims: Record<string, unknown>, header?: Record<string, unknown>): string;
  signRaw(input: string): string;
} {
  const jwk = vec.key.jwk as JsonWebKey;
  const key = createPrivateKey({ key: { ...jwk, d: vec.key.private_key_d }, format: 'jwk' });
  const b64 = (x: unknown) => Buffer.from(JSON.stringify(x)).toString('base64url');
  const signRaw = (input: string) => sign(null, Buffer.from(input), key).toString('base64url');
  return {
    jwk,
    key,
    signRaw,
    proof(claims, header = { typ: 'usp-pop+jwt', alg: 'EdDSA', jwk }) {
      const input = `${b64(header)}.${b64(claims)}`;
      return `${input}.${signRaw(input)}`;
    },
  };
}
