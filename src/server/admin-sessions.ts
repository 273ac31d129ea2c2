/**
 * Business users and their dashboard sessions: accounts (scrypt passwords, made by
 * `usp-server admin-user add`), login with a per-address and per-email rate limit, sessions kept in
 * the store as the hash of a random cookie value, each with its own CSRF token. Separate from any
 * buyer account: its own table and its own cookie. In a sandbox the admin key also signs in.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { apiKeyMatches, hashPassword, verifyPassword } from '../security/index.js';
import type { Store } from '../store/index.js';
import type { DashboardSessions, DashboardSession } from '../bindings/dashboard/index.js';

const SESSION_TTL_MS = 12 * 3600 * 1000;
/** Failed logins allowed per address and per email within LOGIN_WINDOW_MS. */
const LOGIN_ATTEMPTS = 5;
const LOGIN_WINDOW_MS = 15 * 60 * 1000;

const sha = (s: string) => createHash('sha256').update(s).digest('base64url');
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function addBusinessUser(store: Store, email: string, password: string, nowMs: number): Promise<void> {
  const e = normalizeEmail(email);
  if (!EMAIL.test(e)) throw new Error(`${JSON.stringify(email)} is not an email address`);
  if (password.length < 12) throw new Error('the password must be at least 12 characters');
  const password_hash = await hashPassword(password);
  await store.transaction((tx) => tx.admin.putUser({ email: e, password_hash, created_ms: nowMs }));
}

export function dashboardSessions(args: { store: Store; now: () => number; sandbox: boolean; adminKeyHashes: readonly string[] }): DashboardSessions {
  const failures = new Map<string, number[]>();
  const recent = (k: string, now: number) => (failures.get(k) ?? []).filter((t) => now - t < LOGIN_WINDOW_MS);
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
      const e = normalizeEmail(email);
      const keys = [`addr:${address}`, `email:${e}`];
      if (keys.some((k) => recent(k, now).length >= LOGIN_ATTEMPTS)) return { ok: false, limited: true };
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
        for (const k of keys) failures.set(k, [...recent(k, now), now]);
        return { ok: false, limited: false };
      }
      for (const k of keys) failures.delete(k);
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
