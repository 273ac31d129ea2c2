/**
 * Slowing password guessing without handing anyone a lockout to use against the owner. Failures
 * are counted per key (a client address; an account as seen from one address); past a few free
 * ones, each further failure makes that key wait twice as long as the last (1 s, 2 s, 4 s, ... at
 * most `maxMs`). A key that is waiting is refused before its password is even checked. Nothing is
 * kept per account alone, so strangers failing at an account do not stop its owner, who signs in
 * from another address at once. In-memory per process, bounded; a courtesy like the rate limits.
 */
import { createHash } from 'node:crypto';

export interface LoginBackoff {
  /** Milliseconds until any of `keys` may try again; 0 when all may. */
  wait(keys: readonly string[], nowMs: number): number;
  /** Count a failure against every key; returns the longest wait it now imposes (0 while free). */
  fail(keys: readonly string[], nowMs: number): number;
  /** Forget `keys` (a success: the owner from this address is no longer suspect). */
  clear(keys: readonly string[]): void;
  /** Keys held (bounded by `maxEntries`). */
  size(): number;
}

export interface LoginBackoffOptions {
  /** Failures a key may make before it waits at all. Default 3. */
  free?: number;
  /** The first wait. Default 1 s. */
  baseMs?: number;
  /** The longest wait. Default 15 minutes. */
  maxMs?: number;
  /** A key with no failure for this long starts afresh. Default 24 hours. */
  forgetMs?: number;
  /** Most keys kept; the least recently failed go first. Default 100,000. */
  maxEntries?: number;
}

export function loginBackoff(opts: LoginBackoffOptions = {}): LoginBackoff {
  const free = opts.free ?? 3;
  const baseMs = opts.baseMs ?? 1000;
  const maxMs = opts.maxMs ?? 15 * 60_000;
  const forgetMs = opts.forgetMs ?? 24 * 3600_000;
  const maxEntries = opts.maxEntries ?? 100_000;
  // Insertion order is failure order: re-inserting on each failure keeps the stalest first.
  const keys = new Map<string, { failures: number; lastMs: number; untilMs: number }>();
  const live = (k: string, now: number) => {
    const e = keys.get(k);
    if (e && now - e.lastMs > forgetMs) {
      keys.delete(k);
      return undefined;
    }
    return e;
  };
  return {
    wait(ks, now) {
      let w = 0;
      for (const k of ks) w = Math.max(w, (live(k, now)?.untilMs ?? 0) - now);
      return Math.max(0, w);
    },
    fail(ks, now) {
      let w = 0;
      for (const k of new Set(ks)) {
        const failures = (live(k, now)?.failures ?? 0) + 1;
        const delay = failures <= free ? 0 : Math.min(maxMs, baseMs * 2 ** Math.min(failures - free - 1, 30));
        keys.delete(k);
        keys.set(k, { failures, lastMs: now, untilMs: now + delay });
        w = Math.max(w, delay);
      }
      while (keys.size > maxEntries) keys.delete(keys.keys().next().value as string);
      return w;
    },
    clear(ks) {
      for (const k of ks) keys.delete(k);
    },
    size: () => keys.size,
  };
}

/**
 * A plain count per key in a fixed window (sign-ups per email, code checks per address): `take`
 * answers the milliseconds to wait when the key has used its `limit` in the current window.
 */
export interface WindowCounter {
  take(key: string, nowMs: number): number;
}

export function windowCounter(limit: number, windowMs: number, maxEntries = 100_000): WindowCounter {
  const windows = new Map<string, { startMs: number; count: number }>();
  return {
    take(key, now) {
      let w = windows.get(key);
      if (!w || now - w.startMs >= windowMs) w = { startMs: now, count: 0 };
      windows.delete(key);
      windows.set(key, w);
      while (windows.size > maxEntries) windows.delete(windows.keys().next().value as string);
      if (w.count >= limit) return w.startMs + windowMs - now;
      w.count++;
      return 0;
    },
  };
}

/** The doors people sign in at: the buyer's account pages (OAuth) and the business's dashboard. */
export type AccountDoor = 'oauth' | 'dashboard';
/** Which limit refused an attempt. */
export type LockoutLimit =
  | 'address'
  | 'account'
  | 'signup_email'
  | 'signup_address'
  | 'verify_address'
  | 'reset_address';

/** What sign-in and sign-up report for the operator's counters (no personal data). */
export type AccountEvent =
  | { kind: 'sign_in_failed'; door: AccountDoor }
  | { kind: 'locked_out'; door: AccountDoor; limit: LockoutLimit }
  | { kind: 'sign_up'; stage: 'started' | 'completed' | 'code_rejected' }
  | { kind: 'password_reset'; stage: PasswordResetStage };

/** A password reset's steps: asked for (any email), a link mailed, a repeat inside the cooldown, the password changed, a dead link used. */
export type PasswordResetStage = 'requested' | 'mailed' | 'held' | 'completed' | 'link_rejected';

/**
 * A reference to an email the operator can look up without the log holding the address: the first
 * 16 hex digits of its SHA-256, lower-cased and trimmed (`printf %s EMAIL | sha256sum | cut -c1-16`).
 */
export function emailRef(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 16);
}
