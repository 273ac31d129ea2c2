/**
 * One proof checker for both kinds of DPoP: REST's platform_key_pop proofs and the DPoP proofs of
 * OAuth access tokens (the resource server calls the same verifyPopProof, lenient, with the
 * authorization server's algorithms).
 */
import { createHash } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { describe, expect, test } from 'vitest';
import { DPOP_ALGS } from '../../src/oauth/provider.js';
import { PopFailure, jwkThumbprint, verifyPopProof, type PopAlgorithm } from '../../src/security/index.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const HTU = 'https://salon.example/bookings';
const TOKEN = 'opaque-access-token';
const ath = createHash('sha256').update(TOKEN).digest('base64url');

async function proof(alg: PopAlgorithm, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) {
  const { privateKey, publicKey } = await generateKeyPair(alg, {
    extractable: true,
    ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}),
  });
  const jwk = await exportJWK(publicKey);
  const jws = await new SignJWT({
    htm: 'POST',
    htu: HTU,
    iat: Math.floor(NOW / 1000),
    jti: `j-${alg}-${Math.random()}`,
    ath,
    ...claims,
  })
    .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk, ...header })
    .sign(privateKey);
  return { jws, jkt: jwkThumbprint(jwk as never) };
}

const oauthCheck = (jws: string, jkt: string) =>
  verifyPopProof(jws, {
    binding: 'rest',
    now: NOW,
    method: 'POST',
    htu: [HTU],
    credential: { value: TOKEN, cnf: { jkt } },
    algorithms: DPOP_ALGS,
    lenient: true,
  });

describe('the OAuth resource server checks DPoP proofs with the one proof checker', () => {
  test.each(DPOP_ALGS)(
    'a %s proof the authorization server advertises verifies, bound to the token and its key',
    async (alg) => {
      const p = await proof(alg);
      expect(oauthCheck(p.jws, p.jkt).jkt).toBe(p.jkt);
    },
  );

  test('a proof made with another key than the token is bound to is pop_key_mismatch', async () => {
    const p = await proof('ES256');
    const other = await proof('ES256');
    expect(() => oauthCheck(p.jws, other.jkt)).toThrow(PopFailure);
  });

  test('a proof naming another token (ath) or another URL (htu) is refused', async () => {
    const wrongAth = await proof('ES256', { ath: 'x' });
    expect(() => oauthCheck(wrongAth.jws, wrongAth.jkt)).toThrow(/ath/);
    const wrongHtu = await proof('ES256', { htu: 'https://evil.example/bookings' });
    expect(() => oauthCheck(wrongHtu.jws, wrongHtu.jkt)).toThrow(/htu/);
  });

  test('an RS256 header over an EC key does not verify (no algorithm confusion)', async () => {
    const p = await proof('ES256');
    const [h, b, s] = p.jws.split('.');
    const header = JSON.parse(Buffer.from(h, 'base64url').toString());
    const forged = `${Buffer.from(JSON.stringify({ ...header, alg: 'RS256' })).toString('base64url')}.${b}.${s}`;
    expect(() => oauthCheck(forged, p.jkt)).toThrow(/RSA key/);
  });

  test('RFC 9449 extra claims pass on the OAuth door; the USP profile proofs still refuse them', async () => {
    const p = await proof('ES256', { exp: Math.floor(NOW / 1000) + 60 });
    expect(oauthCheck(p.jws, p.jkt).jkt).toBe(p.jkt);
    expect(() =>
      verifyPopProof(p.jws, {
        binding: 'rest',
        now: NOW,
        method: 'POST',
        htu: [HTU],
        credential: { value: TOKEN, cnf: { jkt: p.jkt } },
        allowEs256: true,
      }),
    ).toThrow(/unknown claim exp/);
  });

  test('platform_key_pop on REST still accepts only EdDSA (and ES256 when allowed), never RS256', async () => {
    const p = await proof('RS256');
    expect(() =>
      verifyPopProof(p.jws, {
        binding: 'rest',
        now: NOW,
        method: 'POST',
        htu: [HTU],
        credential: { value: TOKEN, cnf: { jkt: p.jkt } },
        allowEs256: true,
      }),
    ).toThrow(/alg RS256 not accepted/);
  });
});
