/**
 * The password reset pages: ask for a link by email (always the same answer), and set a new password
 * from the link (a form with the page's CSRF token; the link's token rides in its path, and pages
 * send no Referer). Rendering with the web kit's escaping `html`, routes on the account pages' app.
 */
import type { Context, Hono } from 'hono';
import { negotiateLocale } from '../operations/index.js';
import { html, readForm, type Html } from '../web/index.js';
import { EMAIL, normalizeEmail } from './accounts.js';
import { PASSWORD_MIN_LENGTH, passwordProblem } from './passwords.js';
import { RESET_TTL_MS, type PasswordResets } from './password-reset.js';

export const FORGOT_PATH = '/account/forgot';
export const RESET_PATH = '/account/reset';

const csrfField = (token: string) => html`<input type="hidden" name="csrf" value="${token}">`;
const errorBox = (message?: string) =>
  message ? html`<p class="error" role="alert" id="form-error">${message}</p>` : '';

export function forgotPage(o: { csrf: string; email?: string; error?: string }): Html {
  return html`<h1>Forgot your password?</h1><p>Enter the email of your account. We send a link to choose a new password.</p><div class="card">${errorBox(o.error)}<form class="stack" method="post" action="${FORGOT_PATH}">${csrfField(o.csrf)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${o.email ?? ''}"${o.error ? html` aria-describedby="form-error"` : ''}>
<button class="primary" type="submit">Send the link</button></form>
<p class="switch"><a href="/account">Back to sign in</a></p></div>`;
}

/** The one answer to every request, whether or not the email has an account. */
export function resetSentPage(o: { email: string }): Html {
  const minutes = RESET_TTL_MS / 60_000;
  return html`<h1>Check your email</h1><div class="card"><p>If <strong>${o.email}</strong> belongs to an account, a link to choose a new password is on its way. It works once, for ${minutes} minutes.</p>
<p class="note">Nothing arrived? Check your spam folder. A link sent in the last few minutes is still good: asking again so soon sends no new one.</p>
<p class="switch"><a href="/account">Back to sign in</a></p></div>`;
}

export function newPasswordPage(o: { token: string; csrf: string; error?: string }): Html {
  return html`<h1>Choose a new password</h1><p>After this, every place you are signed in to this account is signed out.</p><div class="card">${errorBox(o.error)}<form class="stack" method="post" action="${RESET_PATH}/${o.token}">${csrfField(o.csrf)}
<label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" required minlength="${String(PASSWORD_MIN_LENGTH)}" maxlength="200" aria-describedby="password-hint${o.error ? ' form-error' : ''}">
<p class="hint" id="password-hint">At least ${String(PASSWORD_MIN_LENGTH)} characters.</p>
<button class="primary" type="submit">Set the new password</button></form></div>`;
}

const deadLink = html`<h1>This link cannot be used</h1><div class="card"><p>It was already used, or it is older than ${RESET_TTL_MS / 60_000} minutes. Each link works once.</p>
<p class="switch"><a href="${FORGOT_PATH}">Ask for a new link</a></p></div>`;

const changed = html`<h1>Your password is changed</h1><div class="card" role="status"><p>Sign in with your new password. You were signed out everywhere else.</p>
<p class="switch"><a href="/account">Sign in</a></p></div>`;

export interface ResetRouteDeps {
  resets: PasswordResets;
  csrf(c: Context): { token: string; setCookie?: string };
  csrfOk(c: Context, form: Record<string, unknown>): boolean;
  expired(): Response;
  page(body: Html, opts: { status?: number; title: string; cookies?: Array<string | undefined> }): Response;
  tooMany(waitS: number): Response;
  address(c: Context): string;
  /** The Set-Cookie that ends this browser's account page cookie (its session ended with the others). */
  signedOutCookie(): string;
}

export function passwordResetRoutes(pages: Hono, d: ResetRouteDeps): void {
  const str = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max) : '');
  pages.get(FORGOT_PATH, (c) => {
    const csrf = d.csrf(c);
    return d.page(forgotPage({ csrf: csrf.token }), { title: 'Forgot your password?', cookies: [csrf.setCookie] });
  });
  pages.post(FORGOT_PATH, async (c) => {
    const f = await readForm(c);
    if (!d.csrfOk(c, f)) return d.expired();
    const email = normalizeEmail(str(f.email, 254));
    if (!EMAIL.test(email)) {
      return d.page(
        forgotPage({ csrf: d.csrf(c).token, email, error: 'Enter an email address like name@example.com.' }),
        { status: 400, title: 'Forgot your password?' },
      );
    }
    const slowed = d.resets.request(email, d.address(c), negotiateLocale(c.req.header('accept-language'), null));
    if (slowed) return d.tooMany(slowed.waitS);
    return d.page(resetSentPage({ email }), { title: 'Check your email' });
  });
  pages.get(`${RESET_PATH}/:token`, async (c) => {
    const token = c.req.param('token');
    // Looking is free: a mail scanner opening the link spends nothing.
    if (!(await d.resets.valid(token))) return d.page(deadLink, { status: 410, title: 'Link expired' });
    const csrf = d.csrf(c);
    return d.page(newPasswordPage({ token, csrf: csrf.token }), {
      title: 'Choose a new password',
      cookies: [csrf.setCookie],
    });
  });
  pages.post(`${RESET_PATH}/:token`, async (c) => {
    const f = await readForm(c);
    if (!d.csrfOk(c, f)) return d.expired();
    const token = c.req.param('token');
    const password = str(f.password, 200);
    const problem = passwordProblem(password);
    if (problem) {
      if (!(await d.resets.valid(token))) return d.page(deadLink, { status: 410, title: 'Link expired' });
      return d.page(newPasswordPage({ token, csrf: d.csrf(c).token, error: problem }), {
        status: 400,
        title: 'Choose a new password',
      });
    }
    const done = await d.resets.complete(token, password, d.address(c));
    if ('waitS' in done) return d.tooMany(done.waitS);
    if (!done.changed) return d.page(deadLink, { status: 410, title: 'Link expired' });
    return d.page(changed, { title: 'Password changed', cookies: [d.signedOutCookie()] });
  });
}
