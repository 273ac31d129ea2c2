/**
 * RFC 9421 request signatures as USP 9.1.4 uses them: each way a signature can fail has its own
 * code, and keys are named by their thumbprint (the fixtures: http-signature-fixtures.ts).
 */
import { generateKeyPairSync, sign as cryptoSign, verify as cryptoVerify, type JsonWebKey } from 'node:crypto';
import { createSigner, httpbis } from 'http-message-signatures';
import { describe, expect, test } from 'vitest';
import {
  generateSigningKey,
  jwkThumbprint,
  signRequest,
  verifyRequestSignature,
} from '../../src/security/http-signatures.js';
import {
  key,
  publicKey,
  NOW,
  NOW_S,
  USP_COMPONENTS,
  resolveOurKey,
  uspRule,
  bookingRequest,
  signed,
  failureCode,
  syncFailureCode,
} from './http-signature-fixtures.js';

// ------------------------------------------------------------------------------------------------
// Failures
// ------------------------------------------------------------------------------------------------

describe('each way a signature can fail has its own code', () => {
  test('no signature headers answers signature_missing; only one of the pair answers signature_invalid', async () => {
    expect(await failureCode(verifyRequestSignature(bookingRequest(), resolveOurKey, uspRule))).toBe(
      'signature_missing',
    );
    const req = signed();
    const { Signature: _dropped, ...onlyInput } = req.headers;
    expect(await failureCode(verifyRequestSignature({ ...req, headers: onlyInput }, resolveOurKey, uspRule))).toBe(
      'signature_invalid',
    );
  });

  test('a label the caller asks for that is not there answers signature_missing', async () => {
    expect(await failureCode(verifyRequestSignature(signed(), resolveOurKey, { ...uspRule, label: 'sig9' }))).toBe(
      'signature_missing',
    );
  });

  test('an ASN.1/DER ECDSA value over the right base answers signature_invalid', async () => {
    const req = bookingRequest();
    let base: Buffer | undefined;
    let der: Buffer | undefined;
    const derSigner = {
      id: key.kid,
      alg: 'ecdsa-p256-sha256',
      sign: async (data: Buffer) => {
        base = data;
        der = cryptoSign('sha256', data, { key: key.privateKey, dsaEncoding: 'der' });
        return der;
      },
    };
    const signedReq = await httpbis.signMessage(
      { key: derSigner, fields: USP_COMPONENTS, params: ['keyid', 'alg'] },
      { ...req },
    );
    // The value is a valid DER signature of that base: only its encoding is wrong.
    expect(cryptoVerify('sha256', base!, { key: publicKey, dsaEncoding: 'der' }, der!)).toBe(true);
    expect(der!.length).not.toBe(64);
    const code = await failureCode(
      verifyRequestSignature({ ...req, headers: signedReq.headers as Record<string, string> }, resolveOurKey, uspRule),
    );
    expect(code).toBe('signature_invalid');
  });

  test('a covered header altered in transit answers signature_invalid', async () => {
    const req = signed();
    const altered = { ...req, headers: { ...req.headers, 'Idempotency-Key': 'another-key' } };
    expect(await failureCode(verifyRequestSignature(altered, resolveOurKey, uspRule))).toBe('signature_invalid');
  });

  test('a signature by another key under our keyid answers signature_invalid', async () => {
    const other = generateSigningKey('platform-2026');
    const req = bookingRequest();
    const forged = { ...req, headers: { ...req.headers, ...signRequest(req, other, { components: USP_COMPONENTS }) } };
    expect(await failureCode(verifyRequestSignature(forged, resolveOurKey, uspRule))).toBe('signature_invalid');
  });

  test('an unknown keyid answers key_not_found', async () => {
    const stranger = generateSigningKey('stranger-1');
    const req = bookingRequest();
    const msg = { ...req, headers: { ...req.headers, ...signRequest(req, stranger, { components: USP_COMPONENTS }) } };
    expect(await failureCode(verifyRequestSignature(msg, resolveOurKey, uspRule))).toBe('key_not_found');
  });

  test.each([
    ['an RSA key', () => generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' })],
    ['an Ed25519 key', () => generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' })],
    ['a P-384 key', () => generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' })],
    ['a P-256 key declared for ES384', () => ({ ...key.publicJwk, alg: 'ES384' })],
  ])('%s where ES256 is required answers algorithm_unsupported', async (_, makeJwk) => {
    const jwk = makeJwk();
    const code = await failureCode(verifyRequestSignature(signed(), async () => jwk, uspRule));
    expect(code).toBe('algorithm_unsupported');
  });

  test('an alg parameter naming an algorithm we do not accept answers algorithm_unsupported', async () => {
    const req = bookingRequest();
    const signedReq = await httpbis.signMessage(
      {
        key: { ...createSigner(key.privateKey, 'ecdsa-p256-sha256', key.kid), alg: 'rsa-pss-sha512' },
        fields: USP_COMPONENTS,
        params: ['keyid', 'alg'],
      },
      { ...req },
    );
    const code = await failureCode(
      verifyRequestSignature({ ...req, headers: signedReq.headers as Record<string, string> }, resolveOurKey, uspRule),
    );
    expect(code).toBe('algorithm_unsupported');
  });

  test('created far in the future answers signature_expired; within 60 s of skew it verifies', async () => {
    expect(
      await failureCode(verifyRequestSignature(signed(USP_COMPONENTS, NOW_S + 3600), resolveOurKey, uspRule)),
    ).toBe('signature_expired');
    expect(await failureCode(verifyRequestSignature(signed(USP_COMPONENTS, NOW_S + 30), resolveOurKey, uspRule))).toBe(
      'verified',
    );
  });

  test('created older than maxAgeSeconds answers signature_expired only when the verifier sets a window', async () => {
    const old = signed(USP_COMPONENTS, NOW_S - 600);
    expect(await failureCode(verifyRequestSignature(old, resolveOurKey, { ...uspRule, maxAgeSeconds: 300 }))).toBe(
      'signature_expired',
    );
    expect(await failureCode(verifyRequestSignature(old, resolveOurKey, uspRule))).toBe('verified');
  });

  test('an expires parameter in the past answers signature_expired', async () => {
    const req = bookingRequest();
    const msg = {
      ...req,
      headers: { ...req.headers, ...signRequest(req, key, { components: USP_COMPONENTS, expires: NOW_S - 1 }) },
    };
    expect(await failureCode(verifyRequestSignature(msg, resolveOurKey, uspRule))).toBe('signature_expired');
  });

  test.each([
    ['Signature-Input is not a dictionary', { 'Signature-Input': 'sig1=(("@method")' }],
    ['the Signature value is not a byte sequence', { Signature: 'sig1="abc"' }],
    ['keyid is missing', { 'Signature-Input': 'sig1=("@method" "@authority" "@path");created=1' }],
    [
      'a component carries parameters',
      { 'Signature-Input': 'sig1=("@method" "@authority";req "@path");keyid="platform-2026"' },
    ],
  ])('malformed input (%s) answers signature_invalid', async (_, patch) => {
    const req = signed();
    expect(
      await failureCode(
        verifyRequestSignature({ ...req, headers: { ...req.headers, ...patch } }, resolveOurKey, {
          now: NOW,
          requiredComponents: () => [],
        }),
      ),
    ).toBe('signature_invalid');
  });

  test('with several labels the first that verifies wins', async () => {
    const req = bookingRequest();
    const good = signRequest(req, key, { components: USP_COMPONENTS, label: 'sig2' });
    const headers = {
      ...req.headers,
      'Signature-Input': `sig1=("@method");keyid="platform-2026", ${good['Signature-Input']}`,
      Signature: `sig1=:${Buffer.alloc(64).toString('base64')}:, ${good.Signature}`,
    };
    const result = await verifyRequestSignature({ ...req, headers }, resolveOurKey, uspRule);
    expect(result.label).toBe('sig2');
    expect(
      await failureCode(verifyRequestSignature({ ...req, headers }, resolveOurKey, { ...uspRule, label: 'sig1' })),
    ).toBe('signature_invalid');
  });
});

// ------------------------------------------------------------------------------------------------
// Keys
// ------------------------------------------------------------------------------------------------

describe('keys are identified by their RFC 7638 thumbprint', () => {
  test('the RFC 7638 §3.1 example key has the published thumbprint', () => {
    const rfc: JsonWebKey = {
      kty: 'RSA',
      n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
      e: 'AQAB',
      alg: 'RS256',
      kid: '2011-04-29',
    };
    expect(jwkThumbprint(rfc)).toBe('NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
  });

  test('optional members (kid, use, alg) do not change an EC thumbprint; an unknown kty answers algorithm_unsupported', () => {
    const { kty, crv, x, y } = key.publicJwk;
    expect(jwkThumbprint(key.publicJwk)).toBe(jwkThumbprint({ kty, crv, x, y }));
    expect(jwkThumbprint(key.publicJwk)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(syncFailureCode(() => jwkThumbprint({ kty: 'oct', k: 'AAAA' }))).toBe('algorithm_unsupported');
  });

  test('generateSigningKey publishes a P-256 ES256 verification key without private members', () => {
    const k = generateSigningKey('biz-webhook-2026');
    expect(k.publicJwk).toMatchObject({ kid: 'biz-webhook-2026', kty: 'EC', crv: 'P-256', use: 'sig', alg: 'ES256' });
    expect(k.publicJwk).not.toHaveProperty('d');
    expect(k.privateKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
  });
});
