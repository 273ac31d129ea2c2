/**
 * createPopKey makes an Ed25519 key from 32 random bytes (no key-generation job, which on Node 20 can
 * hang the process when the GC frees it during a JWK export of the same key): each key is new, its
 * public JWK is the bare Ed25519 key whose thumbprint it carries, and what it signs verifies with it.
 */
import { createPublicKey, sign, verify } from 'node:crypto';
import { expect, test } from 'vitest';
import { createPopKey } from '../../src/client/platform-auth.js';
import { jwkThumbprint } from '../../src/security/index.js';

test('a PoP key signs what its public JWK verifies, and no two are alike', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const k = createPopKey();
    expect(Object.keys(k.publicJwk).sort()).toEqual(['crv', 'kty', 'x']);
    expect(k.publicJwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    expect(k.jkt).toBe(jwkThumbprint(k.publicJwk));
    const data = Buffer.from(`proof ${i}`);
    expect([k.privateKey.type, k.privateKey.asymmetricKeyType]).toEqual(['private', 'ed25519']);
    const signature = sign(null, data, k.privateKey);
    expect(verify(null, data, createPublicKey({ key: k.publicJwk, format: 'jwk' }), signature)).toBe(true);
    seen.add(k.jkt);
  }
  expect(seen.size).toBe(200);
});
