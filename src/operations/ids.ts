/** The injected id source: random opaque ids with a readable prefix by default. */
import { randomBytes } from 'node:crypto';
import { base32 } from '../security/index.js';

export interface IdSource {
  /** A new opaque id with a readable prefix, e.g. `bkg_3k9...` (at least 128 random bits). */
  next(prefix: string): string;
}

/** Base32 of `bytes` random bytes (lower case, no padding). */
export function randomToken(bytes: number): string {
  return base32(randomBytes(bytes));
}

export const randomIds: IdSource = { next: (prefix) => `${prefix}_${randomToken(16)}` };
