/** API keys are configured as sha-256 hex digests and compared in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Platform keys issued at run time (the admin API) start with this; configured ones may be any value. */
export const ISSUED_KEY_PREFIX = 'uspk_';

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function apiKeyMatches(presented: string, hashes: readonly string[]): boolean {
  const digest = Buffer.from(hashApiKey(presented), 'hex');
  let found = false;
  for (const h of hashes) {
    const candidate = Buffer.from(h, 'hex');
    if (candidate.length === digest.length && timingSafeEqual(candidate, digest)) found = true;
  }
  return found;
}
