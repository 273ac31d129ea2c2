/**
 * Business users and their dashboard sessions: accounts (scrypt passwords, made by
 * `usp-server admin-user add`), login that backs off per address and per email as seen from one
 * address (never per email alone, so strangers cannot lock the owner out), sessions kept in
 * the store as the hash of a random cookie value, each with its own CSRF token. Separate from any
 * buyer account: its own table and its own cookie. In a sandbox the admin key also signs in.
 * The dashboard door (src/bindings/dashboard) is handed these by the composition root.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from '../logger.js';
import { apiKeyMatches, emailRef, hashPassword, loginBackoff, verifyPassword, type AccountEvent } from '../../security/index.js';
import type { Store } from '../../store/index.js';

/** A signed-in business user, as the dashboard sees them. */
export interface DashboardSession {
  email: string;
  csrf: string;
}

/** What the dashboard's sign-in and every screen ask of the sessions. */
export interface DashboardSessions {
  /** The admin key is accepted in place of an account (sandbox only). */
  adminKeyLogin: boolean;
  /** `limited`: refused unchecked, this address (or this user from it) failed too often; try again in `waitS`. */
  login(email: string, password: string, address: string): Promise<{ ok: true; token: string; session: DashboardSession } | { ok: false; limited: boolean; waitS?: number }>;
  lookup(token: string | undefined): Promise<DashboardSession | null>;
  logout(token: string): Promise<void>;
  csrfMatches(session: DashboardSession, presented: string | undefined): boolean;
}

const SESSION_TTL_MS = 12 * 3600 * 1000;

const sha = (s: string) => createHash('sha256').update(s).digest('base64url');
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

export function dashboardSessions(args: {
  store: Store;
  now: () => number;
  sandbox: boolean;
  adminKeyHashes: readonly string[];
  log?: Logger;
  onEvent?: (e: AccountEvent) => void;
}): DashboardSessions {
  // Failures per address (any user: free 10), and per user as seen from one address (free 3); 1 s, 2 s, 4 s ... at most 15 minutes.
  const byAddress = loginBackoff({ free: 10 });
  const byUser = loginBackoff({ free: 3 });
  const ref = (e: string) => (e === '' ? { user: 'admin-key' } : { user_ref: emailRef(e) });
  const open = async (email: string): Promise<{ token: string; session: DashboardSession }> => {
    const token = randomBytes(32).toString('base64url');
    const csrf = randomBytes(24).toString('base64url');
    const now = args.now();
    await args.store.transaction((tx) => tx.admin.putSession({ id_hash: sha(token), email, csrf, created_ms: now, expires_ms: now + SESSION_TTL_MS }));
    return { token, session: { email, csrf } };
  };
  return {
    adminKeyLogin: args.sandbox,
    async login(email, password, address) {
      const now = args.now();
      const e = normalizeBusinessEmail(email);
      const addrKey = [`addr:${address}`];
      const userKey = [`user:${e}|${address}`];
      const wait = Math.max(byAddress.wait(addrKey, now), byUser.wait(userKey, now));
      if (wait > 0) {
        const limit = byAddress.wait(addrKey, now) > 0 ? 'address' : 'account';
        // The address is on this line only: it is what the operator blocks.
        args.log?.warn('dashboard sign-in refused: too many failures', { door: 'dashboard', limit, wait_s: Math.ceil(wait / 1000), address, ...ref(e) });
        args.onEvent?.({ kind: 'locked_out', door: 'dashboard', limit });
        return { ok: false, limited: true, waitS: Math.ceil(wait / 1000) };
      }
      let ok = false;
      let who = e;
      if (e === '' && args.sandbox) {
        ok = apiKeyMatches(password, args.adminKeyHashes);
        who = 'admin-key';
      } else {
        const user = await args.store.read((tx) => tx.admin.user(e));
        // Always one scrypt, known email or not.
        ok = (await verifyPassword(password, user?.password_hash ?? null)) && user !== null;
      }
      if (!ok) {
        const next = Math.max(byAddress.fail(addrKey, now), byUser.fail(userKey, now));
        args.log?.warn('dashboard sign-in failed', { door: 'dashboard', ...ref(e), next_wait_s: Math.ceil(next / 1000) });
        args.onEvent?.({ kind: 'sign_in_failed', door: 'dashboard' });
        return { ok: false, limited: false };
      }
      byUser.clear(userKey);
      return { ok: true, ...(await open(who)) };
    },
    async lookup(token) {
      if (!token) return null;
      const row = await args.store.read((tx) => tx.admin.session(sha(token), args.now()));
      return row ? { email: row.email, csrf: row.csrf } : null;
    },
    async logout(token) {
      await args.store.transaction((tx) => tx.admin.deleteSession(sha(token)));
    },
    csrfMatches(session, presented) {
      const a = Buffer.from(session.csrf);
      const b = Buffer.from(presented ?? '');
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}
