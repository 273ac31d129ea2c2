/**
 * The official PoP test vectors (spec 10.1.6, 9.2.2; CONFORMANCE §11) through OUR verifier, with
 * the clock pinned to each vector's `iat`: canonicalization (001-003), issuance (004),
 * presentation (005), and the five rejections (006-010) with their exact codes. 007 and 008 go
 * through the orchestrator (authenticateRequest) with an in-memory store stub, because the
 * downgrade rule and the jti cache live there. The hand-made proofs signed with the vectors' own
 * K1 key, which pin the rules the vectors do not cover: pop-vectors-k1.test.ts.
 */
import { describe, expect, test } from 'vitest';
import { authenticateRequest, type AuthRequest } from '../../src/security/authenticate.js';
import { credentialHash } from '../../src/security/credentials.js';
import { jwkThumbprint } from '../../src/security/http-signatures.js';
import { argumentsDigest, canonicalArguments, sha256b64url } from '../../src/security/jcs.js';
import { verifyPopProof } from '../../src/security/pop.js';
import { REST_ERRORS } from '../../src/web/problems.js';
import { MCP_ERROR_CODES } from '../../src/bindings/mcp/errors.js';
import { describeConformance } from '../support/spec.js';
import {
  AUD,
  authFailure,
  k1Key,
  mcpExpect,
  memoryRepo,
  policy,
  popFailure,
  vector,
  vectorIds,
} from './pop-vector-fixtures.js';

describeConformance('PoP test vectors reproduce through our verifier (spec 10.1.6, 9.2.2)', () => {
  const v = vector;

  test('all ten vectors are present', () => {
    expect(vectorIds().sort()).toEqual([
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
      const withAuth = {
        ...params,
        _meta: {
          ...meta,
          usp: { ...(meta.usp ?? {}), authorization: { mechanism: 'platform_key_pop', proof: 'x.y.z' } },
        },
      };
      expect(canonicalArguments(withAuth)).toBe(jcs);
      expect(argumentsDigest(withAuth)).toBe(usp_p);
      // The input is not mutated.
      expect(withAuth._meta.usp.authorization).toBeDefined();
    });
  });

  test('002: an emptied _meta.usp stays {} (003) while profile/idempotency_key stay inside (001)', () => {
    expect(canonicalArguments({ a: 1, _meta: { usp: { authorization: { mechanism: 'platform_key_pop' } } } })).toBe(
      '{"_meta":{"usp":{}},"a":1}',
    );
    expect(canonicalArguments(v('001-jcs-nested-buyer').canonicalization.params)).toContain('"idempotency_key"');
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
    expect(() =>
      verifyPopProof(vec.proof, mcpExpect(vec, { now: (vec.expected_claims.iat + 60) * 1000 })),
    ).not.toThrow();
    expect(
      popFailure(() => verifyPopProof(vec.proof, mcpExpect(vec, { now: (vec.expected_claims.iat + 61) * 1000 }))).code,
    ).toBe('pop_proof_invalid');
  });

  test('005 presentation: accepted with its credential (step 1 stubbed), ath and the challenged nonce', () => {
    const vec = v('005-proof-presentation-ath-nonce');
    expect(vec.expect).toBe('accept');
    expect(sha256b64url(vec.credential.value)).toBe(vec.expected_claims.ath);
    const got = verifyPopProof(vec.proof, mcpExpect(vec, { credential: credentialOf(vec), nonce: nonceOf(vec) }));
    expect(got.jkt).toBe(vec.credential.cnf.jkt);
    expect(got.jti).toBe(vec.expected_claims.jti);
    // The same proof with a different nonce expected is challenged, not accepted.
    const challenged = popFailure(() =>
      verifyPopProof(
        vec.proof,
        mcpExpect(vec, { credential: credentialOf(vec), nonce: { required: true, valid: () => false } }),
      ),
    );
    expect(challenged.code).toBe('proof_nonce_required');
    // ath binds the credential: another credential value with the same cnf is refused.
    const other = popFailure(() =>
      verifyPopProof(
        vec.proof,
        mcpExpect(vec, { credential: { value: 'bsc_someothervalue000000000000', cnf: vec.credential.cnf } }),
      ),
    );
    expect(other.code).toBe('pop_proof_invalid');
  });

  test('006 cross-key replay -> pop_key_mismatch (401), and only the thumbprint check catches it', () => {
    const vec = v('006-cross-key-replay');
    expect(vec.expect).toBe('reject');
    const f = popFailure(() =>
      verifyPopProof(vec.proof, mcpExpect(vec, { credential: credentialOf(vec), nonce: nonceOf(vec) })),
    );
    expect(f.code).toBe(vec.reject_code);
    expect(f.code).toBe('pop_key_mismatch');
    // Everything else about the proof is valid: without the cnf comparison it would pass.
    const unbound = verifyPopProof(
      vec.proof,
      mcpExpect(vec, { credential: { value: vec.credential.value }, nonce: nonceOf(vec) }),
    );
    expect(unbound.jkt).toBe(vec.key.jkt);
    expect(unbound.jkt).not.toBe(vec.credential.cnf.jkt);
    expect(REST_ERRORS.pop_proof_required.status).toBe(vec.http_status);
  });

  test('006 through the orchestrator: pop_key_mismatch on the pop_proof_required wire code (-32001)', async () => {
    const vec = v('006-cross-key-replay');
    const { repo, req } = presentation(vec, {
      mechanism: 'platform_key_pop',
      credential: vec.credential.value,
      proof: vec.proof,
    });
    const f = await authFailure(
      authenticateRequest(
        req,
        policy({ nonce: vec.expected_claims.nonce }),
        async () => repo,
        vec.expected_claims.iat * 1000,
      ),
    );
    expect(f.code).toBe('pop_proof_required');
    expect(f.detailCode).toBe('pop_key_mismatch');
    expect(MCP_ERROR_CODES[f.code]).toBe(-32001);
    expect(REST_ERRORS[f.code].status).toBe(vec.http_status);
  });

  /** A scoped MCP cancel of bkg_001 presenting the vector's credential, the store holding it as valid (step 1 stubbed). */
  function presentation(
    vec: any,
    authorization: { mechanism: string; credential?: string; proof?: string },
  ): { repo: ReturnType<typeof memoryRepo>; req: AuthRequest } {
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
    expect(
      popFailure(() =>
        verifyPopProof(vec.proof, {
          binding: 'mcp',
          now: at,
          method: 'usp_bookings_cancel',
          credential: credentialOf(vec),
        }),
      ).code,
    ).toBe('pop_proof_missing');
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
        http: {
          method: 'POST',
          url: 'https://business.example.com/bookings/bkg_001/cancel',
          headers: { authorization: `${scheme} ${vec.credential.value}` },
        },
      };
      const f = await authFailure(
        authenticateRequest(req, policy(), async () => repo, Date.parse('2026-09-12T09:00:00Z')),
      );
      expect(f.detailCode, scheme).toBe('pop_proof_missing');
    }
  });

  test('008 replay: presenting 005 twice through the orchestrator -> the second is pop_proof_replayed', async () => {
    const vec = v('008-replayed-jti');
    expect(vec.replay_of).toBe('005-proof-presentation-ath-nonce');
    expect(vec.proof).toBe(v('005-proof-presentation-ath-nonce').proof);
    const { repo, req } = presentation(vec, {
      mechanism: 'platform_key_pop',
      credential: vec.credential.value,
      proof: vec.proof,
    });
    const pol = policy({ nonce: vec.expected_claims.nonce, requireNonce: true });
    const now = vec.expected_claims.iat * 1000;
    const first = await authenticateRequest(req, pol, async () => repo, now);
    expect(first).toMatchObject({
      authenticated: true,
      principal: `jkt:${vec.key.jkt}`,
      jkt: vec.key.jkt,
      credential: { kind: 'booking', id: 'bkg_001' },
    });
    const f = await authFailure(authenticateRequest(req, pol, async () => repo, now + 1000));
    expect(f.detailCode).toBe(vec.reject_code);
    expect(f.detailCode).toBe('pop_proof_replayed');
    expect(REST_ERRORS[f.code].status).toBe(vec.http_status);
  });

  test('008 applies to reads too: a replayed get proof is refused', async () => {
    const k1 = k1Key(v('004-proof-issuance-no-ath'));
    const vec = v('005-proof-presentation-ath-nonce');
    const base = v('002-jcs-meta-only').canonicalization.params;
    const authorizationOf = (proof: string) => ({
      mechanism: 'platform_key_pop',
      credential: vec.credential.value,
      proof,
    });
    const iat = vec.expected_claims.iat;
    const proof = k1.proof({
      usp_m: 'usp_bookings_get',
      aud: AUD,
      usp_p: argumentsDigest(base),
      iat,
      jti: 'read-1',
      ath: vec.expected_claims.ath,
    });
    const { repo, req } = presentation(vec, authorizationOf(proof));
    req.mcp!.tool = 'usp_bookings_get';
    await expect(authenticateRequest(req, policy(), async () => repo, iat * 1000)).resolves.toMatchObject({
      authenticated: true,
    });
    expect((await authFailure(authenticateRequest(req, policy(), async () => repo, iat * 1000))).detailCode).toBe(
      'pop_proof_replayed',
    );
  });

  test('009 aud mismatch -> pop_proof_invalid; the same proof is fine at the business it was made for', () => {
    const vec = v('009-aud-mismatch');
    expect(vec.expect).toBe('reject');
    const f = popFailure(() =>
      verifyPopProof(vec.proof, mcpExpect(vec, { credential: credentialOf(vec), nonce: nonceOf(vec) })),
    );
    expect(f.code).toBe(vec.reject_code);
    expect(f.detail).toMatch(/aud/);
    expect(() =>
      verifyPopProof(
        vec.proof,
        mcpExpect(vec, { audiences: [vec.expected_claims.aud], credential: credentialOf(vec), nonce: nonceOf(vec) }),
      ),
    ).not.toThrow();
  });

  test('010 alg none -> pop_proof_invalid, decided on the algorithm before any signature check', async () => {
    const vec = v('010-alg-none');
    expect(vec.expect).toBe('reject');
    expect(vec.proof.endsWith('.')).toBe(true);
    const f = popFailure(() =>
      verifyPopProof(
        vec.proof,
        mcpExpect(vec, { credential: { value: 'bsc_7f3c1a9e4b2d8065f1ae93c7', cnf: { jkt: vec.key.jkt } } }),
      ),
    );
    expect(f.code).toBe(vec.reject_code);
    expect(f.detail).toMatch(/alg none/);
    // Even with a (K1-made) signature appended, alg none stays refused for its algorithm.
    const [h, p] = vec.proof.split('.');
    const signed = `${h}.${p}.${k1Key(v('004-proof-issuance-no-ath')).signRaw(`${h}.${p}`)}`;
    expect(popFailure(() => verifyPopProof(signed, mcpExpect(vec))).detail).toMatch(/alg none/);
    // Through the orchestrator it is a proof failure, not invalid_request.
    const dummy = { credential: { value: 'bsc_7f3c1a9e4b2d8065f1ae93c7', cnf: { jkt: vec.key.jkt } } };
    const { repo, req } = presentation(dummy, {
      mechanism: 'platform_key_pop',
      credential: dummy.credential.value,
      proof: vec.proof,
    });
    const af = await authFailure(authenticateRequest(req, policy(), async () => repo, vec.expected_claims.iat * 1000));
    expect(af.code).toBe('pop_proof_required');
    expect(af.detailCode).toBe('pop_proof_invalid');
    expect(REST_ERRORS[af.code].status).toBe(vec.http_status);
  });
});
