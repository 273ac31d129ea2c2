/**
 * Proofs the PoP vectors do not hold, made with their own K1 key around vector 004 (typ, private
 * jwk members, the 60 s window, closed claims, `kid` ignored), and the newer text's vector 011
 * (a key relabelled with another curve). The vectors themselves: vectors.test.ts.
 */
import { createPrivateKey, sign } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { jwkThumbprint } from '../../src/security/http-signatures.js';
import { sha256b64url } from '../../src/security/jcs.js';
import { verifyPopProof, type PopExpectation } from '../../src/security/pop.js';
import { REST_ERRORS } from '../../src/web/problems.js';
import { describeConformance } from '../support/spec.js';
import { describeSpecNext, specNextVector } from '../support/spec-next.js';
import { AUD, k1Key, mcpExpect, popFailure, vector } from './pop-vector-fixtures.js';

describeConformance("hand-made proofs with K1, the vectors' key (spec 10.1.6)", () => {
  const v = vector;
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
      const f = popFailure(() =>
        verifyPopProof(k1.proof(claims(), { typ: 'dpop+jwt', alg: 'EdDSA', jwk: k1.jwk }), exp()),
      );
      expect(f.code).toBe('pop_proof_invalid');
      expect(f.detail).toMatch(/typ/);
      const rest = popFailure(() =>
        verifyPopProof(
          k1.proof({ htm: 'POST', htu: 'https://business.example.com/bookings', iat: claims().iat, jti: 'r1' }),
          {
            binding: 'rest',
            now: claims().iat * 1000,
            method: 'POST',
            htu: ['https://business.example.com/bookings'],
          },
        ),
      );
      expect(rest.code).toBe('pop_proof_invalid');
      expect(rest.detail).toMatch(/typ/);
    });

    test('a header jwk carrying the private member d is refused', () => {
      const k1 = k1Key(vec());
      const f = popFailure(() =>
        verifyPopProof(
          k1.proof(claims(), { typ: 'usp-pop+jwt', alg: 'EdDSA', jwk: { ...k1.jwk, d: vec().key.private_key_d } }),
          exp(),
        ),
      );
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
      for (const d of [-60, 60])
        expect(() => verifyPopProof(k1.proof({ ...claims(), iat: iat + d }), exp()), `iat ${d}`).not.toThrow();
    });

    test('an unknown claim is refused (proofs are closed)', () => {
      const k1 = k1Key(vec());
      const f = popFailure(() => verifyPopProof(k1.proof({ ...claims(), scope: 'everything' }), exp()));
      expect(f.code).toBe('pop_proof_invalid');
      expect(f.detail).toMatch(/unknown claim scope/);
    });

    test('kid in the header is ignored: the key is the header jwk, the thumbprint unchanged', () => {
      const k1 = k1Key(vec());
      const got = verifyPopProof(
        k1.proof(claims(), { typ: 'usp-pop+jwt', alg: 'EdDSA', jwk: k1.jwk, kid: 'some-other-key-id' }),
        exp(),
      );
      expect(got.jkt).toBe(vec().key.jkt);
      // A kid inside the jwk changes nothing either (RFC 7638 thumbprints use only required members).
      const got2 = verifyPopProof(
        k1.proof(claims(), { typ: 'usp-pop+jwt', alg: 'EdDSA', jwk: { ...k1.jwk, kid: 'k' } }),
        exp(),
      );
      expect(got2.jkt).toBe(vec().key.jkt);
    });

    test('ath present at issuance (no credential) is refused; usp_m and usp_p must match', () => {
      const k1 = k1Key(vec());
      expect(popFailure(() => verifyPopProof(k1.proof({ ...claims(), ath: sha256b64url('bsc_x') }), exp())).code).toBe(
        'pop_proof_invalid',
      );
      expect(
        popFailure(() => verifyPopProof(k1.proof(claims()), { ...exp(), method: 'usp_bookings_cancel' })).detail,
      ).toMatch(/usp_m/);
      expect(
        popFailure(() =>
          verifyPopProof(k1.proof(claims()), { ...exp(), argsDigest: v('002-jcs-meta-only').canonicalization.usp_p }),
        ).detail,
      ).toMatch(/usp_p/);
    });

    test('a flipped signature byte is refused', () => {
      const [h, p, s] = vec().proof.split('.');
      const sig = Buffer.from(s, 'base64url');
      sig[0] ^= 1;
      expect(popFailure(() => verifyPopProof(`${h}.${p}.${sig.toString('base64url')}`, exp())).detail).toMatch(
        /signature/,
      );
    });
  });
});

describeSpecNext(
  "the newer text's vector 011: a key relabelled with another curve is refused before its thumbprint is computed",
  () => {
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
      const key = createPrivateKey({
        key: { kty: 'OKP', crv: 'Ed25519', x: vec().key.jwk.x, d: vec().key.private_key_d },
        format: 'jwk',
      });
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
      expect(popFailure(() => verifyPopProof(relabelled(crv), exp())).detail).toBe(
        'EdDSA proofs need an Ed25519 OKP key',
      );
    });

    test('an Ed25519 label on a coordinate of another length (57 bytes, an Ed448 key) is refused by the same check, before any thumbprint', () => {
      const long = Buffer.alloc(57, 7).toString('base64url');
      expect(popFailure(() => verifyPopProof(relabelled('Ed25519', long), exp())).detail).toBe(
        'EdDSA proofs need an Ed25519 OKP key',
      );
    });
  },
);
