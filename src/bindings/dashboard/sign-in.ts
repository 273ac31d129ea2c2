/**
 * Signing in and out, and the gate in front of every screen: a session cookie (HttpOnly,
 * SameSite=Strict, Secure over https), and on every POST the session's CSRF token (the sign-in
 * form a pre-session one, double-submitted in its own cookie).
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { html, isHttps, pageHeaders, readForm } from '../../web/index.js';
import type { DashboardApp } from './kit.js';
import { errorPage, layout } from './layout.js';
import type { DashboardSessions } from '../../operations/index.js';
export type { DashboardSessions };

/** The web kit's page headers: its policy (forms post only to us), no-store, no referrer, no framing. */
const HEADERS = pageHeaders();

const SESSION_COOKIE = 'usp_admin_session';
const LOGIN_COOKIE = 'usp_admin_login';

/** How the dashboard signs people in: `DashboardSessions`, from src/operations/admin/dashboard-sessions.ts, handed in by the composition root. */

/** The sign-in screen's view model. */
interface SignInView {
  csrf: string;
  message: string;
  adminKeyLogin: boolean;
}

const signInMain = (v: SignInView) => html`<div class="card login"><h1>Sign in</h1>${v.message ? html`<p class="flash bad" role="alert">${v.message}</p>` : ''}
<form class="stack" method="post" action="/admin/login"><input type="hidden" name="_csrf" value="${v.csrf}">
<label>Email<input type="email" name="email" autocomplete="username"${v.adminKeyLogin ? '' : html` required`}></label>
<label>Password<input type="password" name="password" autocomplete="current-password" required></label>
<button class="primary" type="submit">Sign in</button></form>
${v.adminKeyLogin ? html`<p class="note">Sandbox: leave the email empty and give the admin key as the password.</p>` : ''}</div>`;

const cookieOpts = (c: Context, maxAge?: number) => ({
  httpOnly: true,
  sameSite: 'Strict' as const,
  secure: isHttps(c),
  path: '/admin',
  ...(maxAge !== undefined ? { maxAge } : {}),
});

/**
 * The sign-in and sign-out routes, and the session gate for every route registered after it.
 * `clientAddress`: who signs in, for the lockout (the server's one resolver, trusted proxies honoured).
 */
export function mountSignIn(app: DashboardApp, o: { sessions: DashboardSessions; bizName: string; clientAddress?: (req: Request, env: unknown) => string | undefined }): void {
  const { sessions, bizName } = o;
  const signInPage = (c: Context, message = '', status = 200) => {
    const csrf = crypto.randomUUID();
    setCookie(c, LOGIN_COOKIE, csrf, cookieOpts(c, 600));
    // Through the context, which carries the cookie just set.
    return c.html(layout('Sign in', bizName, signInMain({ csrf, message, adminKeyLogin: sessions.adminKeyLogin })).toString(), status as 200, HEADERS);
  };
  app.get('/admin/login', (c) => signInPage(c));
  app.post('/admin/login', async (c) => {
    const form = await readForm(c);
    const expected = getCookie(c, LOGIN_COOKIE);
    if (!expected || form._csrf !== expected) return signInPage(c, 'The sign-in form expired; please try again.', 403);
    const r = await sessions.login(String(form.email ?? ''), String(form.password ?? ''), o.clientAddress?.(c.req.raw, c.env) ?? 'unknown');
    if (!r.ok) {
      const res = signInPage(c, r.limited ? `Too many failed attempts from here; wait ${r.waitS ?? 1} seconds and try again.` : 'Wrong email or password.', r.limited ? 429 : 401);
      if (r.limited) res.headers.set('Retry-After', String(r.waitS ?? 1));
      return res;
    }
    deleteCookie(c, LOGIN_COOKIE, { path: '/admin' });
    setCookie(c, SESSION_COOKIE, r.token, cookieOpts(c));
    return c.redirect('/admin', 303);
  });

  // Everything else needs a session, and every form its CSRF token.
  app.use('*', async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    const session = await sessions.lookup(token);
    if (!session || !token) {
      if (c.req.method === 'GET') return c.redirect('/admin/login', 303);
      const again = html`Your session has ended. <a href="/admin/login">Sign in again</a>.`;
      return errorPage(401, { title: 'Sign in', heading: 'Signed out', text: again, bizName, back: false });
    }
    if (c.req.method === 'POST') {
      const form = await readForm(c);
      if (!sessions.csrfMatches(session, typeof form._csrf === 'string' ? form._csrf : undefined)) {
        const why = 'This form did not come from your dashboard (its CSRF token is missing or wrong); nothing was changed.';
        return errorPage(403, { title: 'Refused', heading: 'Refused', text: why, bizName });
      }
    }
    c.set('session', session);
    c.set('token', token);
    await next();
  });
  app.post('/admin/logout', async (c) => {
    await sessions.logout(c.get('token'));
    deleteCookie(c, SESSION_COOKIE, { path: '/admin' });
    return c.redirect('/admin/login', 303);
  });
}
