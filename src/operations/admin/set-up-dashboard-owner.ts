/**
 * The owner's first dashboard account, made in the browser: a start of a business with no dashboard
 * user offers a one-time setup link (`offerDashboardSetup`: a random token whose SHA-256 alone is
 * kept, with its expiry), and this row, run by the setup form through the pipeline (public tier: the
 * caller is nobody yet, the token is the credential), makes the account and signs her in. The token
 * works once, until it expires, only while the business has no user, and only the newest one (each
 * start without a user replaces it).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { emailRef, hashPassword } from '../../security/index.js';
import type { Store } from '../../store/index.js';
import { defineOperation, ok } from '../core/define.js';
import { ProtocolError } from '../core/errors.js';
import { SESSION_TTL_MS, normalizeBusinessEmail, sessionIdHash } from './dashboard-sessions.js';
import { DASHBOARD_SESSION_FORM } from '../change-rows.js';

/** How long a setup link works. */
export const SETUP_TTL_MS = 24 * 3600 * 1000;
const KV_KEY = 'dashboard_setup';
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const digest = (token: string) => createHash('sha256').update(token).digest();

interface StoredSetup {
  sha256: string;
  expires_ms: number;
}

/**
 * A setup token for the owner's first account when the business has no dashboard user (undefined
 * when it has one): stored as its hash with its expiry, replacing any earlier one.
 */
export async function offerDashboardSetup(
  store: Store,
  nowMs: number,
): Promise<{ token: string; expiresMs: number } | undefined> {
  return store.transaction(async (tx) => {
    await tx.lock([KV_KEY]);
    if (await tx.admin.hasUsers()) return undefined;
    const token = randomBytes(32).toString('base64url');
    const stored: StoredSetup = { sha256: digest(token).toString('base64url'), expires_ms: nowMs + SETUP_TTL_MS };
    await tx.kv.set(KV_KEY, JSON.stringify(stored));
    return { token, expiresMs: stored.expires_ms };
  });
}

/**
 * Whether a setup link offered earlier still works (not used, not expired, no user yet): a hosted
 * business reloaded after an idle close keeps the link its operator mailed rather than replace it.
 */
export async function dashboardSetupPending(store: Store, nowMs: number): Promise<boolean> {
  return store.read(async (tx) => {
    const raw = await tx.kv.get(KV_KEY);
    if (!raw || (await tx.admin.hasUsers())) return false;
    return (JSON.parse(raw) as StoredSetup).expires_ms > nowMs;
  });
}

const INVALID =
  'This setup link no longer works: it was used, a newer start replaced it, or it expired. Restart the server for a new one, or sign in.';

export const setUpDashboardOwner = defineOperation({
  name: 'set_up_dashboard_owner',
  rest: { method: 'POST', path: '/admin/setup', input: 'body' },
  ...DASHBOARD_SESSION_FORM,
  dashboard: 'set_up_owner',
  summary:
    "Create the owner's first dashboard account with the one-time setup link a start printed (the dashboard's form only), and sign her in.",
  input: z.object({
    token: z.string().min(1).max(256).describe('The setup link’s token.'),
    email: z.string().max(1024).describe("The owner's email."),
    password: z.string().max(4096).describe('Her password, at least 12 characters.'),
  }),
  // Neither the token nor the password; the email only as its reference.
  logInput: (raw) => {
    const email = (raw as { email?: unknown } | null)?.email;
    return typeof email === 'string' ? { user_ref: emailRef(normalizeBusinessEmail(email)) } : {};
  },
  async prepare(inp): Promise<{ password_hash: string }> {
    const e = normalizeBusinessEmail(inp.email);
    if (!EMAIL.test(e))
      throw new ProtocolError('invalid_request', `${JSON.stringify(inp.email)} is not an email address.`);
    if (inp.password.length < 12)
      throw new ProtocolError('invalid_request', 'The password must be at least 12 characters.');
    // The scrypt runs outside the store's transaction.
    return { password_hash: await hashPassword(inp.password) };
  },
  async handle(inp, ctx) {
    const { password_hash } = ctx.prepared as { password_hash: string };
    await ctx.tx.lock([KV_KEY]);
    const raw = await ctx.tx.kv.get(KV_KEY);
    const stored = raw ? (JSON.parse(raw) as StoredSetup) : undefined;
    const presented = digest(inp.token);
    const expected = stored ? Buffer.from(stored.sha256, 'base64url') : Buffer.alloc(presented.length);
    const matches =
      stored !== undefined && expected.length === presented.length && timingSafeEqual(expected, presented);
    if (!matches || ctx.now >= (stored?.expires_ms ?? 0) || (await ctx.tx.admin.hasUsers()))
      throw new ProtocolError('authentication_required', INVALID);
    const email = normalizeBusinessEmail(inp.email);
    await ctx.tx.admin.putUser({ email, password_hash, created_ms: ctx.now });
    // Used: the link opens nothing again.
    await ctx.tx.kv.set(KV_KEY, '');
    const token = randomBytes(32).toString('base64url');
    const csrf = randomBytes(24).toString('base64url');
    await ctx.tx.admin.putSession({
      id_hash: sessionIdHash(token),
      email,
      csrf,
      created_ms: ctx.now,
      expires_ms: ctx.now + SESSION_TTL_MS,
    });
    return ok({ session_token: token, csrf, email });
  },
});
