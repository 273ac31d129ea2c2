/**
 * Signing in to the business's dashboard, as a row the dashboard's form runs through the pipeline
 * (public tier: the caller is nobody yet). The check runs in `prepare`, outside the store's
 * transaction (a scrypt must not hold it): a growing backoff per client address and per user as
 * seen from that address (never per user alone, so strangers failing at an account do not stop its
 * owner, who signs in from another address at once), then one scrypt whether the email is known or
 * not; in a sandbox an empty email and the admin key as the password sign in as `admin-key`. Each
 * failure and refusal is logged with a reference to the user (never the email) and counted. The
 * handler writes the session in the pipeline's transaction and answers its cookie value and CSRF
 * token to the door, which alone sets the cookie.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { apiKeyMatches, emailRef, verifyPassword } from '../../security/index.js';
import { defineOperation, ok } from '../core/define.js';
import { ProtocolError } from '../core/errors.js';
import { SESSION_TTL_MS, normalizeBusinessEmail, sessionIdHash } from './dashboard-sessions.js';
import type { OperationEnv } from '../core/context.js';
import type { DashboardSignInEnv } from './sign-in-env.js';
import { DASHBOARD_SESSION_FORM } from '../change-rows.js';

/** The sign-in's services; the row served without them (a role without a dashboard) is a wiring fault. */
function signInEnvOf(env: OperationEnv | undefined): DashboardSignInEnv {
  if (!env?.dashboardSignIn)
    throw new ProtocolError('service_unavailable', 'This server has no dashboard to sign in to.');
  return env.dashboardSignIn;
}

/** Who a checked password signs in: a business user's email, or `admin-key`. */
interface SignedIn {
  who: string;
}

/** A user in a log line: the admin key by name, a business user by `emailRef` (16 hex digits an operator computes from an address). */
const userRef = (email: string) => (email === '' ? { user: 'admin-key' } : { user_ref: emailRef(email) });

export const signInDashboardUser = defineOperation({
  name: 'sign_in_dashboard_user',
  rest: { method: 'POST', path: '/admin/login', input: 'body' },
  ...DASHBOARD_SESSION_FORM,
  dashboard: 'sign_in',
  summary: "Sign a business user in to the dashboard (the dashboard's form only): a session and its CSRF token.",
  input: z.object({
    email: z
      .string()
      .max(1024)
      .default('')
      .describe("The business user's email; empty with the admin key as the password in a sandbox."),
    password: z.string().max(4096).default('').describe('The password (or the admin key).'),
  }),
  // The password never, the email only as its reference.
  logInput: (raw) => {
    const email = (raw as { email?: unknown } | null)?.email;
    return userRef(typeof email === 'string' ? normalizeBusinessEmail(email) : '');
  },
  async prepare(inp, ctx): Promise<SignedIn> {
    const env = signInEnvOf(ctx.env);
    const now = ctx.now;
    const address = ctx.http?.clientAddress ?? 'unknown';
    const e = normalizeBusinessEmail(inp.email);
    const addrKey = [`addr:${address}`];
    const userKey = [`user:${e}|${address}`];
    const wait = Math.max(env.byAddress.wait(addrKey, now), env.byUser.wait(userKey, now));
    if (wait > 0) {
      const limit = env.byAddress.wait(addrKey, now) > 0 ? 'address' : 'account';
      const waitS = Math.ceil(wait / 1000);
      // The address is on this line only: it is what the operator blocks.
      env.log?.warn('dashboard sign-in refused: too many failures', {
        door: 'dashboard',
        limit,
        wait_s: waitS,
        address,
        ...userRef(e),
      });
      env.onEvent?.({ kind: 'locked_out', door: 'dashboard', limit });
      throw new ProtocolError(
        'rate_limited',
        `Too many failed attempts from here; wait ${waitS} seconds and try again.`,
        {
          retryAfter: waitS,
          extra: { limit },
        },
      );
    }
    let signedIn = false;
    let who = e;
    if (e === '' && env.adminKeyLogin) {
      signedIn = apiKeyMatches(inp.password, env.adminKeyHashes);
      who = 'admin-key';
    } else {
      const user = await ctx.read((tx) => tx.admin.user(e));
      // Always one scrypt, known email or not.
      signedIn = (await verifyPassword(inp.password, user?.password_hash ?? null)) && user !== null;
    }
    if (!signedIn) {
      const next = Math.max(env.byAddress.fail(addrKey, now), env.byUser.fail(userKey, now));
      env.log?.warn('dashboard sign-in failed', {
        door: 'dashboard',
        ...userRef(e),
        next_wait_s: Math.ceil(next / 1000),
      });
      env.onEvent?.({ kind: 'sign_in_failed', door: 'dashboard' });
      throw new ProtocolError('authentication_required', 'Wrong email or password.');
    }
    env.byUser.clear(userKey);
    return { who };
  },
  async handle(_inp, ctx) {
    const { who } = ctx.prepared as SignedIn;
    const token = randomBytes(32).toString('base64url');
    const csrf = randomBytes(24).toString('base64url');
    await ctx.tx.admin.putSession({
      id_hash: sessionIdHash(token),
      email: who,
      csrf,
      created_ms: ctx.now,
      expires_ms: ctx.now + SESSION_TTL_MS,
    });
    return ok({ session_token: token, csrf });
  },
});
