/** The injected id source: random opaque ids with a readable prefix by default. */
import { randomBytes } from 'node:crypto';
import { base32 } from '../../security/index.js';

export interface IdSource {
  /** A new opaque id with a readable prefix, e.g. `bkg_3k9...` (at least 128 random bits). */
  next(prefix: string): string;
}

/**
 * Random bytes are drawn from the CSPRNG in 4 KiB blocks and handed out in slices: a system call
 * per id was a visible share of a booking (each writes five or six ids).
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = POOL_BYTES;

function poolBytes(n: number): Uint8Array {
  if (n > POOL_BYTES) return randomBytes(n);
  if (used + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  const out = pool.subarray(used, used + n);
  used += n;
  return out;
}

/** Base32 of `bytes` random bytes (lower case, no padding). */
function randomToken(bytes: number): string {
  return base32(poolBytes(bytes));
}

export const randomIds: IdSource = { next: (prefix) => `${prefix}_${randomToken(16)}` };
