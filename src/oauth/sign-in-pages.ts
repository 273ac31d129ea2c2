/**
 * Signing in inside an authorization (the library's interactions): the interaction's page (the
 * sign-in form, or the consent question once signed in), signing in, and signing up with a code
 * sent by mail. A buyer signed in here is also signed in to the account page.
 */
import type { Hono } from 'hono';
import { EMAIL, normalizeEmail } from './accounts.js';
import { consentView } from './consent-page.js';
import type { Interaction, PagesKit } from './interaction-kit.js';
import { codePage, loginPage, registerPage } from './pages.js';
import { passwordProblem } from './passwords.js';
import { INTERACTION_PATH } from './provider.js';

export function signInRoutes(pages: Hono, k: PagesKit): void {
  const loginView = (it: Interaction, uid: string, csrf: string, extra: { email?: string; error?: string } = {}) =>
    loginPage({
      action: `${INTERACTION_PATH}/${uid}/login`,
      registerHref: `${INTERACTION_PATH}/${uid}/register`,
      csrf,
      client: it.clientName,
      ...extra,
    });

  pages.get(`${INTERACTION_PATH}/:uid`, async (c) => {
    const it = await k.interaction(c);
    if (!it) return k.expired();
    const uid = c.req.param('uid');
    const csrf = k.csrfFor(c);
    if (it.details.prompt.name === 'login') {
      return k.page(loginView(it, uid, csrf.token), {
        title: 'Sign in',
        formTargets: it.targets,
        cookies: [csrf.setCookie],
      });
    }
    return consentView(k, it, uid, csrf);
  });

  pages.post(`${INTERACTION_PATH}/:uid/login`, async (c) => {
    const it = await k.interaction(c);
    const f = await k.form(c);
    if (!it || !k.csrfOk(c, f)) return k.expired();
    const uid = c.req.param('uid');
    const email = k.str(f.email, 254);
    const r = await k.accounts.signIn(email, k.str(f.password, 200), k.addressOf(c));
    if ('waitS' in r) return k.tooMany(r.waitS);
    if (!r.account) {
      const csrf = k.csrfFor(c);
      return k.page(
        loginView(it, uid, csrf.token, { email, error: 'That email and password do not match an account.' }),
        {
          status: 401,
          title: 'Sign in',
          formTargets: it.targets,
        },
      );
    }
    return k.finish(c, { login: { accountId: r.account.id } }, [await k.accountCookie(r.account.id)]);
  });

  pages.get(`${INTERACTION_PATH}/:uid/register`, async (c) => {
    const it = await k.interaction(c);
    if (!it) return k.expired();
    const uid = c.req.param('uid');
    const csrf = k.csrfFor(c);
    return k.page(
      registerPage({
        action: `${INTERACTION_PATH}/${uid}/register`,
        loginHref: `${INTERACTION_PATH}/${uid}`,
        csrf: csrf.token,
      }),
      {
        title: 'Create an account',
        formTargets: it.targets,
        cookies: [csrf.setCookie],
      },
    );
  });

  pages.post(`${INTERACTION_PATH}/:uid/register`, async (c) => {
    const it = await k.interaction(c);
    const f = await k.form(c);
    if (!it || !k.csrfOk(c, f)) return k.expired();
    const uid = c.req.param('uid');
    const csrf = k.csrfFor(c);
    const name = k.str(f.name, 200).trim();
    const email = normalizeEmail(k.str(f.email, 254));
    const password = k.str(f.password, 200);
    const problem = !name
      ? 'Enter your name.'
      : !EMAIL.test(email)
        ? 'Enter an email address like name@example.com.'
        : passwordProblem(password);
    if (problem) {
      return k.page(
        registerPage({
          action: `${INTERACTION_PATH}/${uid}/register`,
          loginHref: `${INTERACTION_PATH}/${uid}`,
          csrf: csrf.token,
          name,
          email,
          error: problem,
        }),
        {
          status: 400,
          title: 'Create an account',
          formTargets: it.targets,
        },
      );
    }
    // Sign-ups are limited per email and per address (each mails a code and costs a scrypt).
    const started = await k.accounts.startSignup({ name, email, password }, k.addressOf(c));
    if ('waitS' in started) return k.tooMany(started.waitS);
    return k.page(
      codePage({ action: `${INTERACTION_PATH}/${uid}/verify`, csrf: csrf.token, signup: started.signup, email }),
      {
        title: 'Check your email',
        formTargets: it.targets,
      },
    );
  });

  pages.post(`${INTERACTION_PATH}/:uid/verify`, async (c) => {
    const it = await k.interaction(c);
    const f = await k.form(c);
    if (!it || !k.csrfOk(c, f)) return k.expired();
    const uid = c.req.param('uid');
    const signup = k.str(f.signup, 64);
    const done = await k.accounts.finishSignup(signup, k.str(f.code, 6), k.addressOf(c));
    if ('waitS' in done) return k.tooMany(done.waitS);
    const account = done.account;
    if (!account) {
      const csrf = k.csrfFor(c);
      return k.page(
        codePage({
          action: `${INTERACTION_PATH}/${uid}/verify`,
          csrf: csrf.token,
          signup,
          email: '',
          error: 'That code is not right, or it has expired. Check it, or start again.',
        }),
        {
          status: 400,
          title: 'Check your email',
          formTargets: it.targets,
        },
      );
    }
    return k.finish(c, { login: { accountId: account.id } }, [await k.accountCookie(account.id)]);
  });
}
