/** The injected id source: random opaque ids with a readable prefix by default. */
import { base32, pooledRandomBytes } from '../../security/index.js';

export interface IdSource {
  /** A new opaque id with a readable prefix, e.g. `bkg_3k9...` (at least 128 random bits). */
  next(prefix: string): string;
}

/** Base32 of `bytes` random bytes (lower case, no padding). */
function randomToken(bytes: number): string {
  return base32(pooledRandomBytes(bytes));
}

export const randomIds: IdSource = { next: (prefix) => `${prefix}_${randomToken(16)}` };
