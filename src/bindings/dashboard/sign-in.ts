/**
 * Signing in and out, and the gate in front of every screen: a session cookie (HttpOnly,
 * SameSite=Strict, Secure over https), and on every POST the session's CSRF token (the sign-in
 * form a pre-session one, double-submitted in its own cookie). Signing in and out are rows run
 * through the pipeline (the password check, its backoff, the session's row are theirs); this door
 * keeps the cookies and the forms, and maps a refusal to the sign-in page or the error page.
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import {
  ProtocolError,
  operationForDashboard,
  type DashboardSessionGate,
  type Pipeline,
  type ScopeResolver,
} from '../../operations/index.js';
import { html, isHttps, pageHeaders, readForm } from '../../web/index.js';
import type { DashboardApp, Screens } from './kit.js';
import { dashboardRefusal, errorPage, layout } from './layout.js';
export type { DashboardSessionGate };

/** The web kit's page headers: its policy (forms post only to us), no-store, no referrer, no framing. */
const HEADERS = pageHeaders();

const SESSION_COOKIE = 'usp_admin_session';
const LOGIN_COOKIE = 'usp_admin_login';

/** The sign-in screen's view model. */
interface SignInView {
  csrf: string;
  message: string;
  adminKeyLogin: boolean;
}

const signInMain = (
  v: SignInView,
) => html`<div class="card login"><h1>Sign in</h1>${v.message ? html`<p class="flash bad" role="alert">${v.message}</p>` : ''}
<form class="stack" method="post" action="/admin/login"><input type="hidden" name="_csrf" value="${v.csrf}">
<label>Email<input type="email" name="email" autocomplete="username"${v.adminKeyLogin ? '' : html` required`}></label>
<label>Password<input type="password" name="password" autocomplete="current-password" required></label>
<button class="primary" type="submit">Sign in</button></form>
${v.adminKeyLogin ? html`<p class="note">Sandbox: leave the email empty and give the admin key as the password.</p>` : ''}</div>`;

/** The first account's form: the setup link's token rides along, the CSRF token is double-submitted like the sign-in's. */
const setupMain = (v: {
  csrf: string;
  token: string;
  message: string;
  bizName: string;
}) => html`<div class="card login"><h1>Create your account</h1>
<p>Welcome to ${v.bizName || 'your dashboard'}. This link works once: the account you create here signs in to the dashboard from now on.</p>${
  v.message ? html`<p class="flash bad" role="alert">${v.message}</p>` : ''
}
<form class="stack" method="post" action="/admin/setup"><input type="hidden" name="_csrf" value="${v.csrf}"><input type="hidden" name="token" value="${v.token}">
<label>Your email<input type="email" name="email" autocomplete="username" required></label>
<label>A password (at least 12 characters)<input type="password" name="password" autocomplete="new-password" minlength="12" required></label>
<label>The password again<input type="password" name="password_again" autocomplete="new-password" minlength="12" required></label>
<button class="primary" type="submit">Create the account and sign in</button></form></div>`;

const cookieOpts = (c: Context, maxAge?: number) => ({
  httpOnly: true,
  sameSite: 'Strict' as const,
  secure: isHttps(c),
  path: '/admin',
  ...(maxAge !== undefined ? { maxAge } : {}),
});

/** The error page for a refusal that is not the sign-in's own (the database away: 503), with its Retry-After. */
function refusalPage(err: ProtocolError): Response {
  const res = dashboardRefusal(err.code === 'service_unavailable' ? 503 : 500, err);
  if (err.retryAfter !== undefined) res.headers.set('Retry-After', String(err.retryAfter));
  return res;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The sign-in and sign-out routes, and the session gate for every route registered after it.
 * `clientAddress`: who signs in, for the backoff (the server's one resolver, trusted proxies honoured).
 */
export function mountSignIn(
  app: DashboardApp,
  o: {
    pipeline: Pipeline;
    scopeOf: ScopeResolver;
    gate: DashboardSessionGate;
    screens: Screens;
    clientAddress?: (req: Request, env: unknown) => string | undefined;
  },
): void {
  const { gate, screens: s } = o;
  const signInPage = (c: Context, message = '', status = 200) => {
    const csrf = crypto.randomUUID();
    setCookie(c, LOGIN_COOKIE, csrf, cookieOpts(c, 600));
    // Through the context, which carries the cookie just set.
    return c.html(
      layout('Sign in', s.bizName, signInMain({ csrf, message, adminKeyLogin: gate.adminKeyLogin })).toString(),
      status as 200,
      HEADERS,
    );
  };
  app.get('/admin/login', (c) => signInPage(c));
  app.post('/admin/login', async (c) => {
    const form = await readForm(c);
    const expected = getCookie(c, LOGIN_COOKIE);
    if (!expected || form._csrf !== expected) return signInPage(c, 'The sign-in form expired; please try again.', 403);
    const res = await o.pipeline.execute(
      operationForDashboard('sign_in'),
      {
        input: { email: text(form.email), password: text(form.password) },
        // Only the address: a browser's headers (its cookies) are nothing the pipeline authenticates.
        presented: {
          binding: 'rest',
          http: { method: 'POST', url: c.req.url, headers: {}, clientAddress: o.clientAddress?.(c.req.raw, c.env) },
        },
        door: 'dashboard',
        correlationId: (c.env as { correlationId?: string } | undefined)?.correlationId,
      },
      o.scopeOf(c.req.raw),
    );
    if (!res.ok) {
      const err = res.error;
      if (err.code === 'rate_limited') {
        const page = signInPage(c, err.message, 429);
        page.headers.set('Retry-After', String(err.retryAfter ?? 1));
        return page;
      }
      if (err.code === 'authentication_required') return signInPage(c, 'Wrong email or password.', 401);
      if (err.code === 'invalid_request') return signInPage(c, 'Give your email and password.', 400);
      return refusalPage(err);
    }
    deleteCookie(c, LOGIN_COOKIE, { path: '/admin' });
    setCookie(c, SESSION_COOKIE, String(res.data.session_token), cookieOpts(c));
    return c.redirect('/admin', 303);
  });

  // The owner's first account, from the one-time link a start printed (before the gate: nobody is signed in yet).
  const setupPage = (c: Context, token: string, message = '', status = 200) => {
    const csrf = crypto.randomUUID();
    setCookie(c, LOGIN_COOKIE, csrf, cookieOpts(c, 600));
    return c.html(
      layout('Create your account', s.bizName, setupMain({ csrf, token, message, bizName: s.bizName })).toString(),
      status as 200,
      HEADERS,
    );
  };
  app.get('/admin/setup', (c) => setupPage(c, c.req.query('token') ?? ''));
  app.post('/admin/setup', async (c) => {
    const form = await readForm(c);
    const token = text(form.token);
    const expected = getCookie(c, LOGIN_COOKIE);
    if (!expected || form._csrf !== expected) return setupPage(c, token, 'The form expired; please try again.', 403);
    if (text(form.password) !== text(form.password_again))
      return setupPage(c, token, 'The two passwords differ; type the same one twice.', 400);
    const res = await o.pipeline.execute(
      operationForDashboard('set_up_owner'),
      {
        input: { token, email: text(form.email), password: text(form.password) },
        presented: {
          binding: 'rest',
          http: { method: 'POST', url: c.req.url, headers: {}, clientAddress: o.clientAddress?.(c.req.raw, c.env) },
        },
        door: 'dashboard',
        correlationId: (c.env as { correlationId?: string } | undefined)?.correlationId,
      },
      o.scopeOf(c.req.raw),
    );
    if (!res.ok) {
      if (res.error.code === 'invalid_request' || res.error.code === 'authentication_required') {
        return setupPage(c, token, res.error.message, res.error.code === 'invalid_request' ? 400 : 401);
      }
      return refusalPage(res.error);
    }
    deleteCookie(c, LOGIN_COOKIE, { path: '/admin' });
    setCookie(c, SESSION_COOKIE, String(res.data.session_token), cookieOpts(c));
    return c.redirect('/admin', 303);
  });

  // Everything else needs a session, and every form its CSRF token.
  app.use('*', async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    let session: Awaited<ReturnType<DashboardSessionGate['lookup']>>;
    try {
      session = await gate.lookup(token);
    } catch (err) {
      if (!(err instanceof ProtocolError)) throw err;
      return refusalPage(err);
    }
    if (!session || !token) {
      if (c.req.method === 'GET') return c.redirect('/admin/login', 303);
      const again = html`Your session has ended. <a href="/admin/login">Sign in again</a>.`;
      return errorPage(401, { title: 'Sign in', heading: 'Signed out', text: again, bizName: s.bizName, back: false });
    }
    if (c.req.method === 'POST') {
      const form = await readForm(c);
      if (!gate.csrfMatches(session, typeof form._csrf === 'string' ? form._csrf : undefined)) {
        const why =
          'This form did not come from your dashboard (its CSRF token is missing or wrong); nothing was changed.';
        return errorPage(403, { title: 'Refused', heading: 'Refused', text: why, bizName: s.bizName });
      }
    }
    c.set('session', session);
    c.set('token', token);
    await next();
  });
  app.post('/admin/logout', async (c) => {
    const res = await s.run(c, 'sign_out', { session_token: c.get('token') });
    if (!res.ok) return refusalPage(res.error);
    deleteCookie(c, SESSION_COOKIE, { path: '/admin' });
    return c.redirect('/admin/login', 303);
  });
}
