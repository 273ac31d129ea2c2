/**
 * Business users and their dashboard sessions, apart from the two door actions (signing in and out
 * are rows: sign-in-dashboard-user.ts, sign-out-dashboard-user.ts): accounts (scrypt passwords,
 * made by `usp-server admin-user add`), the email's normal form, and the session gate's read.
 * Sessions are kept in the store as the hash of a random cookie value, each with its own CSRF
 * token. Separate from any buyer account: its own table and its own cookie.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { hashPassword } from '../../security/index.js';
import type { Store } from '../../store/index.js';
import { ProtocolError } from '../core/errors.js';
import { isStoreUnavailable } from '../core/store-faults.js';

/** A signed-in business user, as the dashboard sees them. */
export interface DashboardSession {
  email: string;
  csrf: string;
}

/**
 * What the dashboard's session gate asks on every request: a read, never a write (the door is
 * handed this and the pipeline, nothing that writes the store).
 */
export interface DashboardSessionGate {
  /** The admin key is accepted in place of an account (sandbox only): the sign-in page says so. */
  adminKeyLogin: boolean;
  /** The live session a cookie value opens, or null; `service_unavailable` while the store is away. */
  lookup(token: string | undefined): Promise<DashboardSession | null>;
  csrfMatches(session: DashboardSession, presented: string | undefined): boolean;
}

/** How long a dashboard session lasts. */
export const SESSION_TTL_MS = 12 * 3600 * 1000;

/** The stored id of a session: the SHA-256 of its cookie value. */
export const sessionIdHash = (token: string): string => createHash('sha256').update(token).digest('base64url');

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function normalizeBusinessEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function addBusinessUser(store: Store, email: string, password: string, nowMs: number): Promise<void> {
  const e = normalizeBusinessEmail(email);
  if (!EMAIL.test(e)) throw new Error(`${JSON.stringify(email)} is not an email address`);
  if (password.length < 12) throw new Error('the password must be at least 12 characters');
  const password_hash = await hashPassword(password);
  await store.transaction((tx) => tx.admin.putUser({ email: e, password_hash, created_ms: nowMs }));
}

export function dashboardSessionGate(args: {
  store: Store;
  now: () => number;
  sandbox: boolean;
}): DashboardSessionGate {
  return {
    adminKeyLogin: args.sandbox,
    async lookup(token) {
      if (!token) return null;
      try {
        const row = await args.store.read((tx) => tx.admin.session(sessionIdHash(token), args.now()));
        return row ? { email: row.email, csrf: row.csrf } : null;
      } catch (err) {
        if (!isStoreUnavailable(err)) throw err;
        throw new ProtocolError(
          'service_unavailable',
          'The dashboard cannot reach its database right now; try again in a moment.',
          { retryAfter: 2 },
        );
      }
    },
    csrfMatches(session, presented) {
      const a = Buffer.from(session.csrf);
      const b = Buffer.from(presented ?? '');
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}
