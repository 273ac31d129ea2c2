/** The signing key, the booking request and the helpers of the RFC 9421 tests. */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { contentDigest } from '../../src/security/content-digest.js';
import { SecurityFailure } from '../../src/security/failures.js';
import {
  generateSigningKey,
  signRequest,
  uspRequiredComponents,
  type VerifyOptions,
} from '../../src/security/http-signatures.js';

export const key = generateSigningKey('platform-2026');
export const publicKey = createPublicKey({ key: key.publicJwk, format: 'jwk' });
export const NOW = Date.now();
export const NOW_S = Math.floor(NOW / 1000);

export const BODY = Buffer.from('{"service_id":"svc_haircut_001","slot_id":"slot_20260315_0900"}');

/** Every component USP requires of this request (it carries a query and all four headers). */
export const USP_COMPONENTS = [
  '@method',
  '@authority',
  '@path',
  '@query',
  'usp-agent',
  'idempotency-key',
  'content-digest',
  'content-type',
];

export function bookingRequest(body: Uint8Array = BODY): {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
} {
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

export const resolveOurKey = async (kid: string): Promise<JsonWebKey | null> =>
  kid === key.kid ? key.publicJwk : null;

export const uspRule: VerifyOptions = { now: NOW, requiredComponents: uspRequiredComponents };

/** `created: null` signs without a created parameter. */
export function signed(components = USP_COMPONENTS, created: number | null = NOW_S) {
  const req = bookingRequest();
  const sig = signRequest(req, key, { components, ...(created !== null ? { created } : {}) });
  return { ...req, headers: { ...req.headers, ...sig } };
}

export async function failureCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SecurityFailure) return err.code;
    throw err;
  }
  return 'verified';
}

export function syncFailureCode(fn: () => void): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof SecurityFailure) return err.code;
    throw err;
  }
  return 'ok';
}
