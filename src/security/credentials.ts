/**
 * Booking-scoped credentials (spec 10.1.6, profile.json BookingScopedCredential): `bsc_` plus 160
 * random bits, issued on creation as a sibling of the resource, bound to the caller's key with
 * `cnf.jkt` when it proved one, valid for the resource's actionable window, invalidated at
 * terminal state. Only a hash of the value is stored.
 */
import { hash } from 'node:crypto';
import { pooledRandomBytes } from './random-pool.js';
import type { SecurityRepo } from '../store/index.js';
import { isoUtc, type CredentialKind } from '../domain/index.js';

export interface IssuedCredential {
  value: string;
  expires_at: string;
  cnf?: { jkt: string };
}

export function credentialHash(value: string): string {
  // One-shot: a Hash object per call cost three times as much (a booking hashes three values).
  return hash('sha256', value, 'base64url');
}

export async function issueCredential(
  repo: SecurityRepo,
  args: { kind: CredentialKind; resourceId: string; jkt: string | null; principal: string | null; expiresMs: number },
): Promise<IssuedCredential> {
  // 20 random bytes = 160 bits, base32 (32 chars): never derived from the resource id.
  const value = `bsc_${base32(pooledRandomBytes(20))}`;
  await repo.putCredential({
    value_hash: credentialHash(value),
    resource_kind: args.kind,
    resource_id: args.resourceId,
    jkt: args.jkt,
    principal: args.principal,
    expires_ms: args.expiresMs,
    revoked: false,
  });
  const out: IssuedCredential = { value, expires_at: isoUtc(args.expiresMs) };
  if (args.jkt) out.cnf = { jkt: args.jkt };
  return out;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** Lower-case base32 without padding (ids and credential values). */
export function base32(buf: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of buf) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}
