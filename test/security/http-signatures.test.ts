/**
 * RFC 9421 request signatures and RFC 9530 digests as USP §9.1.4 uses them. Interoperability is
 * proved against an independent implementation (http-message-signatures) in both directions and
 * against the RFC's own published example.
 */
import { createPrivateKey, type JsonWebKey } from 'node:crypto';
import { createSigner, createVerifier, httpbis } from 'http-message-signatures';
import { describe, expect, test } from 'vitest';
import { contentDigest, verifyContentDigest } from '../../src/security/content-digest.js';
import {
  signRequest,
  uspRequiredComponents,
  verifyRequestSignature,
  type VerifiableRequest,
} from '../../src/security/http-signatures.js';
import {
  key,
  publicKey,
  NOW,
  NOW_S,
  BODY,
  USP_COMPONENTS,
  resolveOurKey,
  uspRule,
  bookingRequest,
  signed,
  failureCode,
  syncFailureCode,
} from './http-signature-fixtures.js';

// ------------------------------------------------------------------------------------------------
// Interoperability
// ------------------------------------------------------------------------------------------------

describe('our ES256 signatures interoperate with an independent RFC 9421 implementation', () => {
  test('a request we sign verifies with http-message-signatures', async () => {
    const req = signed();
    expect(req.headers['Signature-Input']).toBe(
      `sig1=("@method" "@authority" "@path" "@query" "usp-agent" "idempotency-key" "content-digest" "content-type");keyid="platform-2026";created=${NOW_S};alg="ecdsa-p256-sha256"`,
    );
    const ok = await httpbis.verifyMessage(
      {
        keyLookup: async (params) =>
          params.keyid === key.kid
            ? { id: key.kid, algs: ['ecdsa-p256-sha256'], verify: createVerifier(publicKey, 'ecdsa-p256-sha256') }
            : null,
        requiredFields: USP_COMPONENTS,
        tolerance: 5,
      },
      { method: req.method, url: req.url, headers: req.headers },
    );
    expect(ok).toBe(true);
  });

  test('a request the library signs with ES256 (raw r||s) verifies with ours', async () => {
    const req = bookingRequest();
    let rawLength = 0;
    const libSigner = createSigner(key.privateKey, 'ecdsa-p256-sha256', key.kid);
    const signedReq = await httpbis.signMessage(
      {
        key: {
          ...libSigner,
          sign: async (data: Buffer) => {
            const s = await libSigner.sign(data);
            rawLength = s.length;
            return s;
          },
        },
        name: 'sig1',
        fields: USP_COMPONENTS,
        params: ['keyid', 'created', 'alg'],
        paramValues: { created: new Date(NOW_S * 1000) },
      },
      { method: req.method, url: req.url, headers: req.headers },
    );
    expect(rawLength).toBe(64);
    const result = await verifyRequestSignature(
      { ...req, headers: signedReq.headers as Record<string, string> },
      resolveOurKey,
      uspRule,
    );
    expect(result).toMatchObject({
      keyid: 'platform-2026',
      label: 'sig1',
      created: NOW_S,
      algorithm: 'ecdsa-p256-sha256',
    });
    expect(result.covered).toEqual(USP_COMPONENTS);
  });

  test('a library signature without created or alg verifies with ours (created is optional on requests)', async () => {
    const req = bookingRequest();
    const signedReq = await httpbis.signMessage(
      {
        key: createSigner(key.privateKey, 'ecdsa-p256-sha256', key.kid),
        fields: USP_COMPONENTS,
        params: ['keyid'],
        paramValues: { created: null },
      },
      { method: req.method, url: req.url, headers: req.headers },
    );
    expect(String(signedReq.headers['Signature-Input'])).not.toContain('created');
    const result = await verifyRequestSignature(
      { ...req, headers: signedReq.headers as Record<string, string> },
      resolveOurKey,
      uspRule,
    );
    expect(result.created).toBeUndefined();
  });

  test('the RFC 9421 B.2.6 example signature verifies byte for byte (Ed25519, opted in)', async () => {
    // RFC 9421 Appendix B.1.4 test-key-ed25519 and Appendix B.2.6.
    const jwk: JsonWebKey = { kty: 'OKP', crv: 'Ed25519', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs' };
    const msg: VerifiableRequest = {
      method: 'POST',
      url: 'https://example.com/foo?param=Value&Pet=dog',
      headers: {
        Host: 'example.com',
        Date: 'Tue, 20 Apr 2021 02:07:55 GMT',
        'Content-Type': 'application/json',
        'Content-Length': '18',
        'Signature-Input':
          'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
        Signature: 'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:',
      },
      body: Buffer.from('{"hello": "world"}'),
    };
    const resolve = async (kid: string) => (kid === 'test-key-ed25519' ? jwk : null);
    const opts = { now: 1618884473_000, requiredComponents: () => [] };
    const result = await verifyRequestSignature(msg, resolve, { ...opts, algorithms: ['ed25519'] });
    expect(result).toMatchObject({
      label: 'sig-b26',
      keyid: 'test-key-ed25519',
      algorithm: 'ed25519',
      created: 1618884473,
    });
    // Ed25519 is deterministic: signing the same base with the RFC's private key gives the RFC's value.
    const privateKey = createPrivateKey({
      key: { ...jwk, d: 'n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU' },
      format: 'jwk',
    });
    const ours = signRequest(
      { method: msg.method, url: msg.url, headers: msg.headers as Record<string, string> },
      { kid: 'test-key-ed25519', privateKey },
      {
        components: ['date', '@method', '@path', '@authority', 'content-type', 'content-length'],
        created: 1618884473,
        label: 'sig-b26',
      },
    );
    expect(
      await verifyRequestSignature({ ...msg, headers: { ...msg.headers, ...ours } }, resolve, {
        ...opts,
        algorithms: ['ed25519'],
      }),
    ).toMatchObject({
      algorithm: 'ed25519',
    });
    // Without the opt-in, an Ed25519 key is not an accepted request-signing key.
    expect(await failureCode(verifyRequestSignature(msg, resolve, opts))).toBe('algorithm_unsupported');
  });

  test('verification accepts a WHATWG Headers object as well as a record', async () => {
    const req = signed();
    const result = await verifyRequestSignature({ ...req, headers: new Headers(req.headers) }, resolveOurKey, uspRule);
    expect(result.keyid).toBe('platform-2026');
  });
});

// ------------------------------------------------------------------------------------------------
// Content-Digest
// ------------------------------------------------------------------------------------------------

describe('Content-Digest is computed and checked over the raw body bytes (RFC 9530)', () => {
  const hello = Buffer.from('{"hello": "world"}');

  test('the digest of {"hello": "world"} is the RFC 9530 example value', () => {
    expect(contentDigest(hello)).toBe('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:');
  });

  test('round trip, sha-512 and unknown algorithms next to a supported one are accepted', () => {
    expect(syncFailureCode(() => verifyContentDigest(contentDigest(hello), hello))).toBe('ok');
    const sha512 = 'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:';
    expect(syncFailureCode(() => verifyContentDigest(sha512, hello))).toBe('ok');
    expect(syncFailureCode(() => verifyContentDigest(`md5=:AAAA:, ${contentDigest(hello)}`, hello))).toBe('ok');
  });

  test.each([
    ['absent', undefined],
    ['null', null],
    ['not a dictionary', 'sha-256=abc def'],
    ['only unknown algorithms', 'sha-3=:AAAA:'],
    ['not a byte sequence', 'sha-256="X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE="'],
    ['a digest of other bytes', contentDigest(Buffer.from('{"hello": "world!"}'))],
  ])('a header that is %s answers digest_mismatch', (_, header) => {
    expect(syncFailureCode(() => verifyContentDigest(header, hello))).toBe('digest_mismatch');
  });

  test('a one-byte body change answers digest_mismatch before any signature or key work', async () => {
    const req = signed();
    const tampered = Buffer.from(BODY);
    tampered[tampered.length - 2] ^= 1;
    let lookups = 0;
    const code = await failureCode(
      verifyRequestSignature(
        { ...req, body: tampered },
        async (kid) => {
          lookups++;
          return resolveOurKey(kid);
        },
        uspRule,
      ),
    );
    expect(code).toBe('digest_mismatch');
    expect(lookups).toBe(0);
  });

  test('a digest that matches the body but was swapped after signing answers signature_invalid', async () => {
    const req = signed();
    const other = Buffer.from('{"service_id":"svc_other"}');
    const code = await failureCode(
      verifyRequestSignature(
        { ...req, body: other, headers: { ...req.headers, 'Content-Digest': contentDigest(other) } },
        resolveOurKey,
        uspRule,
      ),
    );
    expect(code).toBe('signature_invalid');
  });
});

// ------------------------------------------------------------------------------------------------
// Covered components
// ------------------------------------------------------------------------------------------------

describe('a request signature covers every component USP requires (§9.1.4)', () => {
  test('uspRequiredComponents lists the fixed three and each conditional one the request carries', () => {
    expect(uspRequiredComponents(bookingRequest())).toEqual(USP_COMPONENTS);
    expect(uspRequiredComponents({ url: 'https://b.example/services/list', headers: {} })).toEqual([
      '@method',
      '@authority',
      '@path',
    ]);
  });

  test('a fully covered signature verifies and reports what it covered', async () => {
    const result = await verifyRequestSignature(signed(), resolveOurKey, uspRule);
    expect(result).toMatchObject({ keyid: 'platform-2026', label: 'sig1', covered: USP_COMPONENTS, created: NOW_S });
    expect(result.jwk).toEqual(key.publicJwk);
  });

  test.each(['idempotency-key', 'usp-agent', 'content-digest', 'content-type', '@query', '@authority'])(
    '%s present on the request but not covered answers signature_invalid',
    async (left) => {
      const req = signed(USP_COMPONENTS.filter((c) => c !== left));
      expect(await failureCode(verifyRequestSignature(req, resolveOurKey, uspRule))).toBe('signature_invalid');
    },
  );

  test('@target-uri in place of @authority and @path answers signature_invalid, even when the caller requires nothing', async () => {
    const components = ['@method', '@target-uri', 'usp-agent', 'idempotency-key', 'content-digest', 'content-type'];
    const req = signed(components);
    expect(await failureCode(verifyRequestSignature(req, resolveOurKey, uspRule))).toBe('signature_invalid');
    expect(
      await failureCode(verifyRequestSignature(req, resolveOurKey, { now: NOW, requiredComponents: () => [] })),
    ).toBe('signature_invalid');
  });

  test('@target-uri in addition to @authority and @path is accepted', async () => {
    const req = signed([...USP_COMPONENTS, '@target-uri']);
    expect((await verifyRequestSignature(req, resolveOurKey, uspRule)).covered).toContain('@target-uri');
  });

  test('a request without created is accepted: USP imposes no signature timestamp on requests', async () => {
    const req = signed(USP_COMPONENTS, null);
    expect(req.headers['Signature-Input']).not.toContain('created');
    const result = await verifyRequestSignature(req, resolveOurKey, { ...uspRule, maxAgeSeconds: 300 });
    expect(result.created).toBeUndefined();
  });
});
