/**
 * RFC 9421 request signatures and RFC 9530 digests as USP §9.1.4 uses them. Interoperability is
 * proved against an independent implementation (http-message-signatures) in both directions and
 * against the RFC's own published example.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign as cryptoSign, verify as cryptoVerify, type JsonWebKey } from 'node:crypto';
import { createSigner, createVerifier, httpbis } from 'http-message-signatures';
import { describe, expect, test } from 'vitest';
import { contentDigest, verifyContentDigest } from '../../src/security/content-digest.js';
import { SecurityFailure } from '../../src/security/failures.js';
import {
  generateSigningKey,
  jwkThumbprint,
  signRequest,
  uspRequiredComponents,
  verifyRequestSignature,
  type VerifiableRequest,
  type VerifyOptions,
} from '../../src/security/http-signatures.js';

// ------------------------------------------------------------------------------------------------
// Fixtures
// ------------------------------------------------------------------------------------------------

const key = generateSigningKey('platform-2026');
const publicKey = createPublicKey({ key: key.publicJwk, format: 'jwk' });
const NOW = Date.now();
const NOW_S = Math.floor(NOW / 1000);

const BODY = Buffer.from('{"service_id":"svc_haircut_001","slot_id":"slot_20260315_0900"}');

/** Every component USP requires of this request (it carries a query and all four headers). */
const USP_COMPONENTS = ['@method', '@authority', '@path', '@query', 'usp-agent', 'idempotency-key', 'content-digest', 'content-type'];

function bookingRequest(body: Uint8Array = BODY): { method: string; url: string; headers: Record<string, string>; body: Uint8Array } {
  return {
    method: 'POST',
    url: 'https://business.example.com/bookings?locale=en-GB',
    headers: {
      Host: 'business.example.com',
      'Content-Type': 'application/json',
      'USP-Agent': 'profile="https://agent.example/profiles/scheduling-agent.json"',
      'Idempotency-Key': '550e8400-e29b-41d4-a716-446655440000',
      'Content-Digest': contentDigest(body),
    },
    body,
  };
}

const resolveOurKey = async (kid: string): Promise<JsonWebKey | null> => (kid === key.kid ? key.publicJwk : null);

const uspRule: VerifyOptions = { now: NOW, requiredComponents: uspRequiredComponents };

/** `created: null` signs without a created parameter. */
function signed(components = USP_COMPONENTS, created: number | null = NOW_S) {
  const req = bookingRequest();
  const sig = signRequest(req, key, { components, ...(created !== null ? { created } : {}) });
  return { ...req, headers: { ...req.headers, ...sig } };
}

async function failureCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SecurityFailure) return err.code;
    throw err;
  }
  return 'verified';
}

function syncFailureCode(fn: () => void): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof SecurityFailure) return err.code;
    throw err;
  }
  return 'ok';
}

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
        keyLookup: async (params) => (params.keyid === key.kid ? { id: key.kid, algs: ['ecdsa-p256-sha256'], verify: createVerifier(publicKey, 'ecdsa-p256-sha256') } : null),
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
    const result = await verifyRequestSignature({ ...req, headers: signedReq.headers as Record<string, string> }, resolveOurKey, uspRule);
    expect(result).toMatchObject({ keyid: 'platform-2026', label: 'sig1', created: NOW_S, algorithm: 'ecdsa-p256-sha256' });
    expect(result.covered).toEqual(USP_COMPONENTS);
  });

  test('a library signature without created or alg verifies with ours (created is optional on requests)', async () => {
    const req = bookingRequest();
    const signedReq = await httpbis.signMessage(
      { key: createSigner(key.privateKey, 'ecdsa-p256-sha256', key.kid), fields: USP_COMPONENTS, params: ['keyid'], paramValues: { created: null } },
      { method: req.method, url: req.url, headers: req.headers },
    );
    expect(String(signedReq.headers['Signature-Input'])).not.toContain('created');
    const result = await verifyRequestSignature({ ...req, headers: signedReq.headers as Record<string, string> }, resolveOurKey, uspRule);
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
        'Signature-Input': 'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
        Signature: 'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:',
      },
      body: Buffer.from('{"hello": "world"}'),
    };
    const resolve = async (kid: string) => (kid === 'test-key-ed25519' ? jwk : null);
    const opts = { now: 1618884473_000, requiredComponents: () => [] };
    const result = await verifyRequestSignature(msg, resolve, { ...opts, algorithms: ['ed25519'] });
    expect(result).toMatchObject({ label: 'sig-b26', keyid: 'test-key-ed25519', algorithm: 'ed25519', created: 1618884473 });
    // Ed25519 is deterministic: signing the same base with the RFC's private key gives the RFC's value.
    const privateKey = createPrivateKey({ key: { ...jwk, d: 'n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU' }, format: 'jwk' });
    const ours = signRequest(
      { method: msg.method, url: msg.url, headers: msg.headers as Record<string, string> },
      { kid: 'test-key-ed25519', privateKey },
      {
        components: ['date', '@method', '@path', '@authority', 'content-type', 'content-length'],
        created: 1618884473,
        label: 'sig-b26',
      },
    );
    expect(await verifyRequestSignature({ ...msg, headers: { ...msg.headers, ...ours } }, resolve, { ...opts, algorithms: ['ed25519'] })).toMatchObject({
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
    const code = await failureCode(verifyRequestSignature({ ...req, body: other, headers: { ...req.headers, 'Content-Digest': contentDigest(other) } }, resolveOurKey, uspRule));
    expect(code).toBe('signature_invalid');
  });
});

// ------------------------------------------------------------------------------------------------
// Covered components
// ------------------------------------------------------------------------------------------------

describe('a request signature covers every component USP requires (§9.1.4)', () => {
  test('uspRequiredComponents lists the fixed three and each conditional one the request carries', () => {
    expect(uspRequiredComponents(bookingRequest())).toEqual(USP_COMPONENTS);
    expect(uspRequiredComponents({ url: 'https://b.example/services/list', headers: {} })).toEqual(['@method', '@authority', '@path']);
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
    expect(await failureCode(verifyRequestSignature(req, resolveOurKey, { now: NOW, requiredComponents: () => [] }))).toBe('signature_invalid');
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

// ------------------------------------------------------------------------------------------------
// Failures
// ------------------------------------------------------------------------------------------------

describe('each way a signature can fail has its own code', () => {
  test('no signature headers answers signature_missing; only one of the pair answers signature_invalid', async () => {
    expect(await failureCode(verifyRequestSignature(bookingRequest(), resolveOurKey, uspRule))).toBe('signature_missing');
    const req = signed();
    const { Signature: _dropped, ...onlyInput } = req.headers;
    expect(await failureCode(verifyRequestSignature({ ...req, headers: onlyInput }, resolveOurKey, uspRule))).toBe('signature_invalid');
  });

  test('a label the caller asks for that is not there answers signature_missing', async () => {
    expect(await failureCode(verifyRequestSignature(signed(), resolveOurKey, { ...uspRule, label: 'sig9' }))).toBe('signature_missing');
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
    const signedReq = await httpbis.signMessage({ key: derSigner, fields: USP_COMPONENTS, params: ['keyid', 'alg'] }, { ...req });
    // The value is a valid DER signature of that base: only its encoding is wrong.
    expect(cryptoVerify('sha256', base!, { key: publicKey, dsaEncoding: 'der' }, der!)).toBe(true);
    expect(der!.length).not.toBe(64);
    const code = await failureCode(verifyRequestSignature({ ...req, headers: signedReq.headers as Record<string, string> }, resolveOurKey, uspRule));
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
      { key: { ...createSigner(key.privateKey, 'ecdsa-p256-sha256', key.kid), alg: 'rsa-pss-sha512' }, fields: USP_COMPONENTS, params: ['keyid', 'alg'] },
      { ...req },
    );
    const code = await failureCode(verifyRequestSignature({ ...req, headers: signedReq.headers as Record<string, string> }, resolveOurKey, uspRule));
    expect(code).toBe('algorithm_unsupported');
  });

  test('created far in the future answers signature_expired; within 60 s of skew it verifies', async () => {
    expect(await failureCode(verifyRequestSignature(signed(USP_COMPONENTS, NOW_S + 3600), resolveOurKey, uspRule))).toBe('signature_expired');
    expect(await failureCode(verifyRequestSignature(signed(USP_COMPONENTS, NOW_S + 30), resolveOurKey, uspRule))).toBe('verified');
  });

  test('created older than maxAgeSeconds answers signature_expired only when the verifier sets a window', async () => {
    const old = signed(USP_COMPONENTS, NOW_S - 600);
    expect(await failureCode(verifyRequestSignature(old, resolveOurKey, { ...uspRule, maxAgeSeconds: 300 }))).toBe('signature_expired');
    expect(await failureCode(verifyRequestSignature(old, resolveOurKey, uspRule))).toBe('verified');
  });

  test('an expires parameter in the past answers signature_expired', async () => {
    const req = bookingRequest();
    const msg = { ...req, headers: { ...req.headers, ...signRequest(req, key, { components: USP_COMPONENTS, expires: NOW_S - 1 }) } };
    expect(await failureCode(verifyRequestSignature(msg, resolveOurKey, uspRule))).toBe('signature_expired');
  });

  test.each([
    ['Signature-Input is not a dictionary', { 'Signature-Input': 'sig1=(("@method")' }],
    ['the Signature value is not a byte sequence', { Signature: 'sig1="abc"' }],
    ['keyid is missing', { 'Signature-Input': 'sig1=("@method" "@authority" "@path");created=1' }],
    ['a component carries parameters', { 'Signature-Input': 'sig1=("@method" "@authority";req "@path");keyid="platform-2026"' }],
  ])('malformed input (%s) answers signature_invalid', async (_, patch) => {
    const req = signed();
    expect(await failureCode(verifyRequestSignature({ ...req, headers: { ...req.headers, ...patch } }, resolveOurKey, { now: NOW, requiredComponents: () => [] }))).toBe(
      'signature_invalid',
    );
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
    expect(await failureCode(verifyRequestSignature({ ...req, headers }, resolveOurKey, { ...uspRule, label: 'sig1' }))).toBe('signature_invalid');
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
