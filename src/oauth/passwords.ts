/**
 * Buyer passwords, kept only as scrypt hashes (node:crypto) and compared in constant time. A check
 * for an email with no account still runs one full scrypt against a fixed hash, so how long a
 * login takes never tells whether the email has an account.
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCb(password.normalize('NFKC'), salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );

/** Cost 2^15, block 8: about 30-60 ms and 32 MiB per hash on a server core (OWASP's scrypt floor is 2^17 with r=8, p=1 at 128 MiB; we keep p=1 and a smaller memory bound per request). */
const PARAMS = { N: 1 << 15, r: 8, p: 1 };
const KEYLEN = 32;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEYLEN, { ...PARAMS, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** A hash nobody's password matches, checked when the email is unknown. */
let decoy: Promise<string> | undefined;

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const hash = stored ?? (await (decoy ??= hashPassword(randomBytes(24).toString('base64url'))));
  const parts = hash.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64url');
  const expected = Buffer.from(parts[5], 'base64url');
  const actual = await scrypt(password, salt, expected.length, { N, r, p, maxmem: 64 * 1024 * 1024 });
  return timingSafeEqual(actual, expected) && stored !== null;
}

/** The one rule for a buyer's new password, at sign-up and at a reset (the length is what makes it strong). */
export const PASSWORD_MIN_LENGTH = 10;

/** Why a new password is refused, in the buyer's words, or undefined when it is fine. */
export function passwordProblem(password: string): string | undefined {
  return password.length < PASSWORD_MIN_LENGTH
    ? `Choose a password of at least ${PASSWORD_MIN_LENGTH} characters.`
    : undefined;
}
