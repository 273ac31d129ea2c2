/**
 * The official PoP test vectors (spec 10.1.6, 9.2.2; CONFORMANCE §11) through OUR verifier, with
 * the clock pinned to each vector's `iat`: canonicalization (001-003), issuance (004),
 * presentation (005), and the five rejections (006-010) with their exact codes. 007 and 008 go
 * through the orchestrator (authenticateRequest) with an in-memory store stub, because the
 * downgrade rule and the jti cache live there. Then a few hand-made proofs signed with the
 * vectors' own K1 key pin the rules the vectors do not cover (typ, private jwk members, the
 * ±60 s window, closed claims, `kid` ignored).
 */
import { createPrivateKey, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { AuthFailure, authenticateRequest, type AuthPolicy, type AuthRequest } from '../../src/security/authenticate.js';
import { credentialHash } from '../../src/security/credentials.js';
import { jwkThumbprint } from '../../src/security/http-signatures.js';
import { argumentsDigest, canonicalArguments, sha256b64url } from '../../src/security/jcs.js';
import { PopFailure, verifyPopProof, type PopExpectation } from '../../src/security/pop.js';
import type { CredentialRow, SecurityRepo } from '../../src/store/port.js';
import { REST_ERRORS } from '../../src/web/problems.js';
import { MCP_ERROR_CODES } from '../../src/bindings/mcp/errors.js';
import { describeConformance, popVectors } from '../support/spec.js';
import { describeSpecNext, specNextVector } from '../support/spec-next.js';

const AUD = 'https://business.example.com/.well-known/usp';

function vectorsById(): Map<string, any> {
  return new Map(popVectors().map(({ vector }) => [vector.id as string, vector]));
}

/** Runs `fn` and returns the PopFailure it throws (fails the test when it does not throw one). */
function popFailure(fn: () => unknown): PopFailure {
  try {
    fn();
  } catch (e) {
    if (e instanceof PopFailure) return e;
    throw e;
  }
  throw new Error('expected a PopFailure, but the proof was accepted');
}

async function authFailure(p: Promise<unknown>): Promise<AuthFailure> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AuthFailure) return e;
    throw e;
  }
  throw new Error('expected an AuthFailure, but the request was accepted');
}

/** An in-memory SecurityRepo: credentials by hash, a jti cache, TOFU bindings. */
function memoryRepo(rows: CredentialRow[] = []): SecurityRepo & { jtis: Set<string>; bindings: Map<string, string> } {
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

function policy(o: { nonce?: string; requireNonce?: boolean } = {}): AuthPolicy {
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

describeConformance('PoP test vectors reproduce through our verifier (spec 10.1.6, 9.2.2)', () => {
  const V = vectorsById();
  const v = (id: string) => {
    const x = V.get(id);
    if (!x) throw new Error(`vector ${id} is missing from tests/vectors/pop`);
    return x;
  };

  test('all ten vectors are present', () => {
    expect([...V.keys()].sort()).toEqual([
      '001-jcs-nested-buyer',
      '002-jcs-meta-only',
      '003-jcs-unicode-empty-meta',
      '004-proof-issuance-no-ath',
      '005-proof-presentation-ath-nonce',
      '006-cross-key-replay',
      '007-downgrade-cnf-without-proof',
      '008-replayed-jti',
      '009-aud-mismatch',
      '010-alg-none',
    ]);
  });

  describe.each(['001-jcs-nested-buyer', '002-jcs-meta-only', '003-jcs-unicode-empty-meta'])('%s', (id) => {
    test('canonicalArguments gives the vector jcs byte for byte, and argumentsDigest its usp_p', () => {
      const { params, jcs, usp_p } = v(id).canonicalization;
      expect(v(id).expect).toBe('accept');
      expect(canonicalArguments(params)).toBe(jcs);
      expect(argumentsDigest(params)).toBe(usp_p);
    });

    test('adding _meta.usp.authorization changes nothing: only that member is stripped', () => {
      const { params, jcs, usp_p } = v(id).canonicalization;
      const meta = params._meta ?? {};
      const withAuth = { ...params, _meta: { ...meta, usp: { ...(meta.usp ?? {}), authorization: { mechanism: 'platform_key_pop', proof: 'x.y.z' } } } };
      expect(canonicalArguments(withAuth)).toBe(jcs);
      expect(argumentsDigest(withAuth)).toBe(usp_p);
      // The input is not mutated.
      expect(withAuth._meta.usp.authorization).toBeDefined();
    });
  });

  test('002: an emptied _meta.usp stays {} (003) while profile/idempotency_key stay inside (001)', () => {
    expect(canonicalArguments({ a: 1, _meta: { usp: { authorization: { mechanism: 'platform_key_pop' } } } })).toBe('{"_meta":{"usp":{}},"a":1}');
    expect(canonicalArguments(v('001-jcs-nested-buyer').canonicalization.params)).toContain('"idempotency_key"');
  });

  const mcpExpect = (vec: any, extra: Partial<PopExpectation> = {}): PopExpectation => ({
    binding: 'mcp',
    now: vec.expected_claims.iat * 1000,
    method: vec.expected_claims.usp_m,
    audiences: [AUD],
    argsDigest:
      vec.expected_claims.usp_m === 'usp_bookings_create'
        ? argumentsDigest(v('001-jcs-nested-buyer').canonicalization.params)
        : argumentsDigest(v('002-jcs-meta-only').canonicalization.params),
    ...extra,
  });
  const credentialOf = (vec: any) => ({ value: vec.credential.value, cnf: vec.credential.cnf });
  const nonceOf = (vec: any) => ({ required: true, valid: (n: string) => n === vec.expected_claims.nonce });

  test('004 issuance: accepted with no credential and no ath; the key thumbprint is returned to be recorded', () => {
    const vec = v('004-proof-issuance-no-ath');
    expect(vec.expect).toBe('accept');
    expect(vec.expected_claims.ath).toBeUndefined();
    expect(jwkThumbprint(vec.key.jwk)).toBe(vec.key.jkt);
    const got = verifyPopProof(vec.proof, mcpExpect(vec));
    expect(got.jkt).toBe(vec.key.jkt);
    expect(got.jti).toBe(vec.expected_claims.jti);
    expect(got.iat).toBe(vec.expected_claims.iat);
    // The usp_p it carries is exactly 001's digest.
    expect(vec.expected_claims.usp_p).toBe(v('001-jcs-nested-buyer').canonicalization.usp_p);
  });

  test('004 is refused once the clock leaves the ±60 s window around its iat', () => {
    const vec = v('004-proof-issuance-no-ath');
    expect(() => verifyPopProof(vec.proof, mcpExpect(vec, { now: (vec.expected_claims.iat + 60) * 1000 }))).not.toThrow();
    expect(popFailure(() => verifyPopProof(vec.proof, mcpExpect(vec, { now: (vec.expected_claims.iat + 61) * 1000 }))).code).toBe('pop_proof_invalid');
  });

  test('005 presentation: accepted with its credential (step 1 stubbed), ath and the challenged nonce', () => {
    const vec = v('005-proof-presentation-ath-nonce');
    expect(vec.expect).toBe('accept');
    expect(sha256b64url(vec.credential.value)).toBe(vec.expected_claims.ath);
    const got = verifyPopProof(vec.proof, mcpExpect(vec, { credential: credentialOf(vec), nonce: nonceOf(vec) }));
    expect(got.jkt).toBe(vec.credential.cnf.jkt);
    expect(got.jti).toBe(vec.expected_claims.jti);
    // The same proof with a different nonce expected is challenged, not accepted.
    const challenged = popFailure(() => verifyPopProof(vec.proof, mcpExpect(vec, { credential: credentialOf(vec), nonce: { required: true, valid: () => false } })));
    expect(challenged.code).toBe('proof_nonce_required');
    // ath binds the credential: another credential value with the same cnf is refused.
    const other = popFailure(() => verifyPopProof(vec.proof, mcpExpect(vec, { credential: { value: 'bsc_someothervalue000000000000', cnf: vec.credential.cnf } })));
    expect(other.code).toBe('pop_proof_invalid');
  });

  test('006 cross-key replay -> pop_key_mismatch (401), and only the thumbprint check catches it', () => {
    const vec = v('006-cross-key-replay');
    expect(vec.expect).toBe('reject');
    const f = popFailure(() => verifyPopProof(vec.proof, mcpExpect(vec, { credential: credentialOf(vec), nonce: nonceOf(vec) })));
    expect(f.code).toBe(vec.reject_code);
    expect(f.code).toBe('pop_key_mismatch');
    // Everything else about the proof is valid: without the cnf comparison it would pass.
    const unbound = verifyPopProof(vec.proof, mcpExpect(vec, { credential: { value: vec.credential.value }, nonce: nonceOf(vec) }));
    expect(unbound.jkt).toBe(vec.key.jkt);
    expect(unbound.jkt).not.toBe(vec.credential.cnf.jkt);
    expect(REST_ERRORS.pop_proof_required.status).toBe(vec.http_status);
  });

  test('006 through the orchestrator: pop_key_mismatch on the pop_proof_required wire code (-32001)', async () => {
    const vec = v('006-cross-key-replay');
    const { repo, req } = presentation(vec, { mechanism: 'platform_key_pop', credential: vec.credential.value, proof: vec.proof });
    const f = await authFailure(authenticateRequest(req, policy({ nonce: vec.expected_claims.nonce }), async () => repo, vec.expected_claims.iat * 1000));
    expect(f.code).toBe('pop_proof_required');
    expect(f.detailCode).toBe('pop_key_mismatch');
    expect(MCP_ERROR_CODES[f.code]).toBe(-32001);
    expect(REST_ERRORS[f.code].status).toBe(vec.http_status);
  });

  /** A scoped MCP cancel of bkg_001 presenting the vector's credential, the store holding it as valid (step 1 stubbed). */
  function presentation(vec: any, authorization: { mechanism: string; credential?: string; proof?: string }): { repo: ReturnType<typeof memoryRepo>; req: AuthRequest } {
    const base = v('002-jcs-meta-only').canonicalization.params;
    const repo = memoryRepo([
      {
        value_hash: credentialHash(vec.credential.value),
        resource_kind: 'booking',
        resource_id: base.booking_id,
        jkt: vec.credential.cnf.jkt,
        principal: `jkt:${vec.credential.cnf.jkt}`,
        // Step 1 stubbed: the vector credential expired before its iat, so the stored row does not.
        expires_ms: Date.parse('2100-01-01T00:00:00Z'),
        revoked: false,
      },
    ]);
    const rawArguments = { ...base, _meta: { usp: { ...base._meta.usp, authorization } } };
    const req: AuthRequest = {
      access: 'privileged_scoped',
      binding: 'mcp',
      resource: { kind: 'booking', id: base.booking_id },
      profile: base._meta.usp.profile,
      mcp: { tool: 'usp_bookings_cancel', rawArguments, authorization },
    };
    return { repo, req };
  }

  test('007 downgrade: a cnf credential with proof null under mechanism booking_scoped_credential -> pop_proof_missing', async () => {
    const vec = v('007-downgrade-cnf-without-proof');
    expect(vec.expect).toBe('reject');
    expect(vec.proof).toBeNull();
    expect(vec.declared_mechanism).toBe('booking_scoped_credential');
    const { repo, req } = presentation(vec, { mechanism: vec.declared_mechanism, credential: vec.credential.value });
    const at = Date.parse('2026-09-12T09:00:00Z');
    const f = await authFailure(authenticateRequest(req, policy(), async () => repo, at));
    expect(f.detailCode).toBe(vec.reject_code);
    expect(f.code).toBe('pop_proof_required');
    expect(REST_ERRORS[f.code].status).toBe(vec.http_status);
    // Nothing was bound or claimed for a refused call.
    expect(repo.bindings.size).toBe(0);
    expect(repo.jtis.size).toBe(0);
    // The pure verifier agrees for a null proof with a cnf credential.
    expect(popFailure(() => verifyPopProof(vec.proof, { binding: 'mcp', now: at, method: 'usp_bookings_cancel', credential: credentialOf(vec) })).code).toBe('pop_proof_missing');
  });

  test('007 on REST: Authorization: DPoP <cnf credential> with no DPoP header -> pop_proof_missing, no bearer fallback', async () => {
    const vec = v('007-downgrade-cnf-without-proof');
    const { repo } = presentation(vec, { mechanism: 'booking_scoped_credential' });
    for (const scheme of ['DPoP', 'Bearer']) {
      const req: AuthRequest = {
        access: 'privileged_scoped',
        binding: 'rest',
        resource: { kind: 'booking', id: 'bkg_001' },
        profile: 'https://agent.example/p.json',
        http: { method: 'POST', url: 'https://business.example.com/bookings/bkg_001/cancel', headers: { authorization: `${scheme} ${vec.credential.value}` } },
      };
      const f = await authFailure(authenticateRequest(req, policy(), async () => repo, Date.parse('2026-09-12T09:00:00Z')));
      expect(f.detailCode, scheme).toBe('pop_proof_missing');
    }
  });

  test('008 replay: presenting 005 twice through the orchestrator -> the second is pop_proof_replayed', async () => {
    const vec = v('008-replayed-jti');
    expect(vec.replay_of).toBe('005-proof-presentation-ath-nonce');
    expect(vec.proof).toBe(v('005-proof-presentation-ath-nonce').proof);
    const { repo, req } = presentation(vec, { mechanism: 'platform_key_pop', credential: vec.credential.value, proof: vec.proof });
    const pol = policy({ nonce: vec.expected_claims.nonce, requireNonce: true });
    const now = vec.expected_claims.iat * 1000;
    const first = await authenticateRequest(req, pol, async () => repo, now);
    expect(first).toMatchObject({ authenticated: true, principal: `jkt:${vec.key.jkt}`, jkt: vec.key.jkt, credential: { kind: 'booking', id: 'bkg_001' } });
    const f = await authFailure(authenticateRequest(req, pol, async () => repo, now + 1000));
    expect(f.detailCode).toBe(vec.reject_code);
    expect(f.detailCode).toBe('pop_proof_replayed');
    expect(REST_ERRORS[f.code].status).toBe(vec.http_status);
  });

  test('008 applies to reads too: a replayed get proof is refused', async () => {
    const k1 = k1Key(v('004-proof-issuance-no-ath'));
    const vec = v('005-proof-presentation-ath-nonce');
    const base = v('002-jcs-meta-only').canonicalization.params;
    const authorizationOf = (proof: string) => ({ mechanism: 'platform_key_pop', credential: vec.credential.value, proof });
    const iat = vec.expected_claims.iat;
    const proof = k1.proof({ usp_m: 'usp_bookings_get', aud: AUD, usp_p: argumentsDigest(base), iat, jti: 'read-1', ath: vec.expected_claims.ath });
    const { repo, req } = presentation(vec, authorizationOf(proof));
    req.mcp!.tool = 'usp_bookings_get';
    await expect(authenticateRequest(req, policy(), async () => repo, iat * 1000)).resolves.toMatchObject({ authenticated: true });
    expect((await authFailure(authenticateRequest(req, policy(), async () => repo, iat * 1000))).detailCode).toBe('pop_proof_replayed');
  });

  test('009 aud mismatch -> pop_proof_invalid; the same proof is fine at the business it was made for', () => {
    const vec = v('009-aud-mismatch');
    expect(vec.expect).toBe('reject');
    const f = popFailure(() => verifyPopProof(vec.proof, mcpExpect(vec, { credential: credentialOf(vec), nonce: nonceOf(vec) })));
    expect(f.code).toBe(vec.reject_code);
    expect(f.detail).toMatch(/aud/);
    expect(() => verifyPopProof(vec.proof, mcpExpect(vec, { audiences: [vec.expected_claims.aud], credential: credentialOf(vec), nonce: nonceOf(vec) }))).not.toThrow();
  });

  test('010 alg none -> pop_proof_invalid, decided on the algorithm before any signature check', async () => {
    const vec = v('010-alg-none');
    expect(vec.expect).toBe('reject');
    expect(vec.proof.endsWith('.')).toBe(true);
    const f = popFailure(() => verifyPopProof(vec.proof, mcpExpect(vec, { credential: { value: 'bsc_7f3c1a9e4b2d8065f1ae93c7', cnf: { jkt: vec.key.jkt } } })));
    expect(f.code).toBe(vec.reject_code);
    expect(f.detail).toMatch(/alg none/);
    // Even with a (K1-made) signature appended, alg none stays refused for its algorithm.
    const [h, p] = vec.proof.split('.');
    const signed = `${h}.${p}.${k1Key(v('004-proof-issuance-no-ath')).signRaw(`${h}.${p}`)}`;
    expect(popFailure(() => verifyPopProof(signed, mcpExpect(vec))).detail).toMatch(/alg none/);
    // Through the orchestrator it is a proof failure, not invalid_request.
    const dummy = { credential: { value: 'bsc_7f3c1a9e4b2d8065f1ae93c7', cnf: { jkt: vec.key.jkt } } };
    const { repo, req } = presentation(dummy, { mechanism: 'platform_key_pop', credential: dummy.credential.value, proof: vec.proof });
    const af = await authFailure(authenticateRequest(req, policy(), async () => repo, vec.expected_claims.iat * 1000));
    expect(af.code).toBe('pop_proof_required');
    expect(af.detailCode).toBe('pop_proof_invalid');
    expect(REST_ERRORS[af.code].status).toBe(vec.http_status);
  });

  // ----------------------------------------------------------------------------------------------
  // Hand-made proofs with K1 (the vectors' private key), around vector 004
  // ----------------------------------------------------------------------------------------------

  function k1Key(vec: any): { jwk: JsonWebKey; key: KeyObject; proof(claims: Record<string, unknown>, header?: Record<string, unknown>): string; signRaw(input: string): string } {
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

  describe('hand-made K1 proofs around vector 004', () => {
    const vec = () => v('004-proof-issuance-no-ath');
    const claims = () => ({ ...vec().expected_claims });
    const exp = () => mcpExpect(vec());

    test('re-signing 004 claims with K1 reproduces an accepted proof (the harness signs like the vectors)', () => {
      const k1 = k1Key(vec());
      expect(verifyPopProof(k1.proof(claims()), exp()).jkt).toBe(vec().key.jkt);
    });

    test('typ dpop+jwt is refused on MCP (and usp-pop+jwt on REST): neither proof replays as the other', () => {
      const k1 = k1Key(vec());
      const f = popFailure(() => verifyPopProof(k1.proof(claims(), { typ: 'dpop+jwt', alg: 'EdDSA', jwk: k1.jwk }), exp()));
      expect(f.code).toBe('pop_proof_invalid');
      expect(f.detail).toMatch(/typ/);
      const rest = popFailure(() =>
        verifyPopProof(k1.proof({ htm: 'POST', htu: 'https://business.example.com/bookings', iat: claims().iat, jti: 'r1' }), {
          binding: 'rest',
          now: claims().iat * 1000,
          method: 'POST',
          htu: ['https://business.example.com/bookings'],
        }),
      );
      expect(rest.code).toBe('pop_proof_invalid');
      expect(rest.detail).toMatch(/typ/);
    });

    test('a header jwk carrying the private member d is refused', () => {
      const k1 = k1Key(vec());
      const f = popFailure(() => verifyPopProof(k1.proof(claims(), { typ: 'usp-pop+jwt', alg: 'EdDSA', jwk: { ...k1.jwk, d: vec().key.private_key_d } }), exp()));
      expect(f.code).toBe('pop_proof_invalid');
      expect(f.detail).toMatch(/private/);
    });

    test('iat 61 s off either way is refused; 60 s is inside the window', () => {
      const k1 = k1Key(vec());
      const iat = claims().iat;
      for (const d of [-61, 61, -3600]) {
        const f = popFailure(() => verifyPopProof(k1.proof({ ...claims(), iat: iat + d }), exp()));
        expect(f.code, `iat ${d}`).toBe('pop_proof_invalid');
        expect(f.detail).toMatch(/iat/);
      }
      for (const d of [-60, 60]) expect(() => verifyPopProof(k1.proof({ ...claims(), iat: iat + d }), exp()), `iat ${d}`).not.toThrow();
    });

    test('an unknown claim is refused (proofs are closed)', () => {
      const k1 = k1Key(vec());
      const f = popFailure(() => verifyPopProof(k1.proof({ ...claims(), scope: 'everything' }), exp()));
      expect(f.code).toBe('pop_proof_invalid');
      expect(f.detail).toMatch(/unknown claim scope/);
    });

    test('kid in the header is ignored: the key is the header jwk, the thumbprint unchanged', () => {
      const k1 = k1Key(vec());
      const got = verifyPopProof(k1.proof(claims(), { typ: 'usp-pop+jwt', alg: 'EdDSA', jwk: k1.jwk, kid: 'some-other-key-id' }), exp());
      expect(got.jkt).toBe(vec().key.jkt);
      // A kid inside the jwk changes nothing either (RFC 7638 thumbprints use only required members).
      const got2 = verifyPopProof(k1.proof(claims(), { typ: 'usp-pop+jwt', alg: 'EdDSA', jwk: { ...k1.jwk, kid: 'k' } }), exp());
      expect(got2.jkt).toBe(vec().key.jkt);
    });

    test('ath present at issuance (no credential) is refused; usp_m and usp_p must match', () => {
      const k1 = k1Key(vec());
      expect(popFailure(() => verifyPopProof(k1.proof({ ...claims(), ath: sha256b64url('bsc_x') }), exp())).code).toBe('pop_proof_invalid');
      expect(popFailure(() => verifyPopProof(k1.proof(claims()), { ...exp(), method: 'usp_bookings_cancel' })).detail).toMatch(/usp_m/);
      expect(popFailure(() => verifyPopProof(k1.proof(claims()), { ...exp(), argsDigest: v('002-jcs-meta-only').canonicalization.usp_p })).detail).toMatch(/usp_p/);
    });

    test('a flipped signature byte is refused', () => {
      const [h, p, s] = vec().proof.split('.');
      const sig = Buffer.from(s, 'base64url');
      sig[0] ^= 1;
      expect(popFailure(() => verifyPopProof(`${h}.${p}.${sig.toString('base64url')}`, exp())).detail).toMatch(/signature/);
    });
  });
});

describeSpecNext("the newer text's vector 011: a key relabelled with another curve is refused before its thumbprint is computed", () => {
  const vec = () => specNextVector('pop/011-crv-substitution');
  const exp = (): PopExpectation => ({
    binding: 'mcp',
    now: vec().expected_claims.iat * 1000,
    method: vec().expected_claims.usp_m,
    audiences: [AUD],
    argsDigest: vec().expected_claims.usp_p,
  });
  /** Signs the vector's claims with its key bytes, the header jwk labelled `crv`. */
  const relabelled = (crv: string, x: string = vec().key.jwk.x): string => {
    const key = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x: vec().key.jwk.x, d: vec().key.private_key_d }, format: 'jwk' });
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const input = `${b64({ typ: 'usp-pop+jwt', alg: 'EdDSA', jwk: { kty: 'OKP', crv, x } })}.${b64(vec().expected_claims)}`;
    return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`;
  };

  test('011 is refused with its reject_code (pop_proof_invalid, 401), by the curve check and not by the thumbprint', () => {
    expect(vec().expect).toBe('reject');
    const f = popFailure(() => verifyPopProof(vec().proof, exp()));
    expect(f.code).toBe(vec().reject_code);
    expect(f.detail).toBe('EdDSA proofs need an Ed25519 OKP key');
    expect(REST_ERRORS.pop_proof_required.status).toBe(vec().http_status);
  });

  test('the relabelled key would present as another platform: its thumbprint is the vector jkt, not the Ed25519 one', () => {
    expect(jwkThumbprint(vec().key.jwk)).toBe(vec().key.jkt);
    expect(jwkThumbprint({ ...vec().key.jwk, crv: 'Ed25519' })).not.toBe(vec().key.jkt);
  });

  test('the same key bytes and claims under their true curve are accepted: only the label is refused', () => {
    const got = verifyPopProof(relabelled('Ed25519'), exp());
    expect(got.jkt).toBe(jwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: vec().key.jwk.x }));
  });

  test.each(['X448', 'X25519', 'Ed448'])('relabelled %s: refused by the curve check', (crv) => {
    expect(popFailure(() => verifyPopProof(relabelled(crv), exp())).detail).toBe('EdDSA proofs need an Ed25519 OKP key');
  });

  test('an Ed25519 label on a coordinate of another length (57 bytes, an Ed448 key) is refused by the same check, before any thumbprint', () => {
    const long = Buffer.alloc(57, 7).toString('base64url');
    expect(popFailure(() => verifyPopProof(relabelled('Ed25519', long), exp())).detail).toBe('EdDSA proofs need an Ed25519 OKP key');
  });
});
