/**
 * The buyer's OAuth pages: sign-in, sign-up with an emailed code and consent inside an
 * authorization (the library's interactions), and the account page (linked assistants, removing
 * one, signing out). Written with the web kit (one CSRF scheme, page headers, forms that post only
 * to us and to the client's redirect origin).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Hono, type Context } from 'hono';
import type Provider from 'oidc-provider';
import { csrfFor as webCsrfFor, csrfOk as webCsrfOk, pageHeaders, readCookie, readForm, type Html } from '../web/index.js';
import { ACCOUNT_SESSION_MS, EMAIL, normalizeEmail, type Accounts } from './accounts.js';
import { accountPage, codePage, consentPage, layout, loginPage, messagePage, registerPage, type LinkedView } from './pages.js';
import { INTERACTION_PATH, USP_SCOPES } from './provider.js';
import { accountDataCard, accountDataRoutes, type BuyerDataPort } from './account-data.js';
import { passwordProblem } from './passwords.js';
import type { PasswordResets } from './password-reset.js';
import { passwordResetRoutes } from './reset-pages.js';

export const ACCOUNT_COOKIE = 'usp_account';

type NodeEnv = { incoming: IncomingMessage; outgoing: ServerResponse };

export interface InteractionPagesOptions {
  provider: () => Provider;
  accounts: Accounts;
  /** The public origin, without its trailing slash. */
  base: () => string;
  businessName: string;
  /** The client's rate-limit key (trusted proxies honoured); undefined without a socket. */
  clientAddress: (req: Request, env: unknown) => string | undefined;
  /** The buyer's own data export and erasure from the account page (absent: the page offers neither). */
  buyerData?: BuyerDataPort;
  /** Password reset by mail (the sign-in page links to it). */
  resets: PasswordResets;
}

/** Whether `path` is one of these pages'. */
export function isInteractionPage(path: string): boolean {
  return path.startsWith(`${INTERACTION_PATH}/`) || path === '/account' || path.startsWith('/account/');
}

export function createInteractionPages(o: InteractionPagesOptions): Hono {
  const getProvider = o.provider;
  const accounts = o.accounts;
  const base = o.base;
  const pages = new Hono();
  // A form that cannot be read (or any fault) goes to the host, which answers with refuse() below and logs it.
  pages.onError((err) => {
    throw err;
  });
  const secure = () => base().startsWith('https://');
  const cookie = (name: string, value: string, opts: { path: string; sameSite: 'Strict' | 'Lax'; maxAgeS?: number }) =>
    `${name}=${value}; Path=${opts.path}; HttpOnly; SameSite=${opts.sameSite}${secure() ? '; Secure' : ''}${opts.maxAgeS !== undefined ? `; Max-Age=${opts.maxAgeS}` : ''}`;
  /** The HTML doors' one CSRF scheme (src/web): a double-submitted token from a SameSite=Strict cookie. */
  const csrfFor = (c: Context) => webCsrfFor(c, { secure: secure() });
  const csrfOk = (c: Context, form: Record<string, unknown>) => webCsrfOk(c, form.csrf);

  const html = (body: Html, opts: { status?: number; title: string; formTargets?: string[]; cookies?: Array<string | undefined>; retryAfter?: number }) => {
    const headers = new Headers(pageHeaders({ formTargets: opts.formTargets }));
    for (const ck of opts.cookies ?? []) if (ck) headers.append('Set-Cookie', ck);
    if (opts.retryAfter) headers.set('Retry-After', String(opts.retryAfter));
    return new Response(layout({ title: opts.title, business: o.businessName, body }).toString(), { status: opts.status ?? 200, headers });
  };
  const expired = () => html(messagePage({ heading: 'This form has expired', text: 'Go back to your assistant and start signing in again.' }), { status: 403, title: 'Expired' });

  const addressOf = (c: Context): string => o.clientAddress(c.req.raw, c.env) ?? 'unknown';
  const tooMany = (wait: number) =>
    html(messagePage({ heading: 'Too many attempts', text: `Wait ${wait} seconds, then try again.` }), { status: 429, title: 'Too many attempts', retryAfter: wait });

  /** The account page's session: a random value whose hash the store keeps, so signing out ends it at once. */
  const accountCookie = async (accountId: string) =>
    cookie(ACCOUNT_COOKIE, await accounts.openSession(accountId), { path: '/account', sameSite: 'Lax', maxAgeS: ACCOUNT_SESSION_MS / 1000 });
  const signedInAs = (c: Context): Promise<string | null> => accounts.session(readCookie(c, ACCOUNT_COOKIE));

  const node = (c: Context) => c.env as NodeEnv;
  /** The interaction a page belongs to, with the client and where it redirects to (a form target). */
  const interaction = async (c: Context) => {
    const p = getProvider();
    try {
      const details = await p.interactionDetails(node(c).incoming, node(c).outgoing);
      if (details.uid !== c.req.param('uid')) return null;
      const client = await p.Client.find(String(details.params.client_id));
      if (!client) return null;
      const redirect = String(details.params.redirect_uri ?? '');
      let target: string | undefined;
      let host: string | undefined;
      try {
        const u = new URL(redirect);
        target = u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : u.protocol;
        host = u.host || u.protocol;
      } catch {
        /* the library already checked it against the registration */
      }
      return { details, client, clientName: String(client.clientName ?? client.clientId), targets: target ? [target] : [], host };
    } catch {
      return null;
    }
  };
  type Found = NonNullable<Awaited<ReturnType<typeof interaction>>>;
  const finish = async (c: Context, result: Record<string, unknown>, cookies: Array<string | undefined> = []) => {
    const to = await getProvider().interactionResult(node(c).incoming, node(c).outgoing, result, { mergeWithLastSubmission: false });
    const headers = new Headers({ Location: to, 'Cache-Control': 'no-store' });
    for (const ck of cookies) if (ck) headers.append('Set-Cookie', ck);
    return new Response(null, { status: 303, headers });
  };
  const form = (c: Context) => readForm(c);
  const str = (v: unknown, max = 256) => (typeof v === 'string' ? v.slice(0, max) : '');

  const loginView = (it: Found, uid: string, csrf: string, extra: { email?: string; error?: string } = {}) =>
    loginPage({ action: `${INTERACTION_PATH}/${uid}/login`, registerHref: `${INTERACTION_PATH}/${uid}/register`, csrf, client: it.clientName, ...extra });

  pages.get(`${INTERACTION_PATH}/:uid`, async (c) => {
    const it = await interaction(c);
    if (!it) return expired();
    const uid = c.req.param('uid');
    const csrf = csrfFor(c);
    if (it.details.prompt.name === 'login') {
      return html(loginView(it, uid, csrf.token), { title: 'Sign in', formTargets: it.targets, cookies: [csrf.setCookie] });
    }
    const account = await accounts.byId(String(it.details.session?.accountId ?? ''));
    return html(
      consentPage({
        action: `${INTERACTION_PATH}/${uid}/consent`,
        csrf: csrf.token,
        client: it.clientName,
        clientHost: it.host,
        scopes: toGrant(it.details.prompt.details).listed,
        email: account?.email ?? '',
      }),
      { title: `Allow ${it.clientName}?`, formTargets: it.targets, cookies: [csrf.setCookie] },
    );
  });

  pages.post(`${INTERACTION_PATH}/:uid/login`, async (c) => {
    const it = await interaction(c);
    const f = await form(c);
    if (!it || !csrfOk(c, f)) return expired();
    const uid = c.req.param('uid');
    const email = str(f.email, 254);
    const r = await accounts.signIn(email, str(f.password, 200), addressOf(c));
    if ('waitS' in r) return tooMany(r.waitS);
    if (!r.account) {
      const csrf = csrfFor(c);
      return html(loginView(it, uid, csrf.token, { email, error: 'That email and password do not match an account.' }), { status: 401, title: 'Sign in', formTargets: it.targets });
    }
    return finish(c, { login: { accountId: r.account.id } }, [await accountCookie(r.account.id)]);
  });

  pages.get(`${INTERACTION_PATH}/:uid/register`, async (c) => {
    const it = await interaction(c);
    if (!it) return expired();
    const uid = c.req.param('uid');
    const csrf = csrfFor(c);
    return html(registerPage({ action: `${INTERACTION_PATH}/${uid}/register`, loginHref: `${INTERACTION_PATH}/${uid}`, csrf: csrf.token }), {
      title: 'Create an account',
      formTargets: it.targets,
      cookies: [csrf.setCookie],
    });
  });

  pages.post(`${INTERACTION_PATH}/:uid/register`, async (c) => {
    const it = await interaction(c);
    const f = await form(c);
    if (!it || !csrfOk(c, f)) return expired();
    const uid = c.req.param('uid');
    const csrf = csrfFor(c);
    const name = str(f.name, 200).trim();
    const email = normalizeEmail(str(f.email, 254));
    const password = str(f.password, 200);
    const problem = !name ? 'Enter your name.' : !EMAIL.test(email) ? 'Enter an email address like name@example.com.' : passwordProblem(password);
    if (problem) {
      return html(registerPage({ action: `${INTERACTION_PATH}/${uid}/register`, loginHref: `${INTERACTION_PATH}/${uid}`, csrf: csrf.token, name, email, error: problem }), {
        status: 400,
        title: 'Create an account',
        formTargets: it.targets,
      });
    }
    // Sign-ups are limited per email and per address (each mails a code and costs a scrypt).
    const started = await accounts.startSignup({ name, email, password }, addressOf(c));
    if ('waitS' in started) return tooMany(started.waitS);
    return html(codePage({ action: `${INTERACTION_PATH}/${uid}/verify`, csrf: csrf.token, signup: started.signup, email }), { title: 'Check your email', formTargets: it.targets });
  });

  pages.post(`${INTERACTION_PATH}/:uid/verify`, async (c) => {
    const it = await interaction(c);
    const f = await form(c);
    if (!it || !csrfOk(c, f)) return expired();
    const uid = c.req.param('uid');
    const signup = str(f.signup, 64);
    const done = await accounts.finishSignup(signup, str(f.code, 6), addressOf(c));
    if ('waitS' in done) return tooMany(done.waitS);
    const account = done.account;
    if (!account) {
      const csrf = csrfFor(c);
      return html(
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
    return finish(c, { login: { accountId: account.id } }, [await accountCookie(account.id)]);
  });

  pages.post(`${INTERACTION_PATH}/:uid/consent`, async (c) => {
    const it = await interaction(c);
    const f = await form(c);
    if (!it || !csrfOk(c, f) || it.details.prompt.name !== 'consent') return expired();
    if (f.decision !== 'allow') return finish(c, { error: 'access_denied', error_description: 'The buyer did not allow access.' });
    const p = getProvider();
    const { prompt, params, session, grantId: existing } = it.details;
    const accountId = String(session?.accountId ?? '');
    const grant = existing ? await p.Grant.find(String(existing)) : new p.Grant({ accountId, clientId: String(params.client_id) });
    if (!grant) return expired();
    // Exactly what the consent page listed.
    const g = toGrant(prompt.details);
    if (g.oidc.length > 0) grant.addOIDCScope(g.oidc.join(' '));
    if (g.claims.length > 0) grant.addOIDCClaims(g.claims);
    for (const [indicator, scopes] of Object.entries(g.resource)) grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    return finish(c, existing ? {} : { consent: { grantId } });
  });

  // The account page: sign in directly, see linked assistants, remove one.
  const accountLogin = (csrf: string, extra: { email?: string; error?: string } = {}) => loginPage({ action: '/account/login', registerHref: '/account/register', csrf, ...extra });
  pages.get('/account', async (c) => {
    const csrf = csrfFor(c);
    const id = await signedInAs(c);
    const account = id ? await accounts.byId(id) : null;
    if (!account) return html(accountLogin(csrf.token), { title: 'Sign in', cookies: [csrf.setCookie] });
    const p = getProvider();
    const linked: LinkedView[] = [];
    for (const g of await accounts.linked(account.id)) {
      const client = await p.Client.find(g.clientId).catch(() => undefined);
      linked.push({ grantId: g.grantId, client: String(client?.clientName ?? g.clientId), scopes: g.scopes, since: new Date(g.createdMs).toISOString().slice(0, 10) });
    }
    const notice = c.req.query('removed') === '1' ? 'Access removed. That assistant can no longer act for you.' : undefined;
    const data = o.buyerData ? accountDataCard(csrf.token) : undefined;
    return html(accountPage({ csrf: csrf.token, name: account.name, email: account.email, linked, notice, data }), { title: 'Your account', cookies: [csrf.setCookie] });
  });
  pages.get('/account/register', () =>
    html(
      messagePage({
        heading: 'Create an account from your assistant',
        text: 'Accounts are created when you link an assistant: add this business to your assistant and choose "Create an account" when it asks you to sign in.',
      }),
      { title: 'Create an account' },
    ),
  );
  pages.post('/account/login', async (c) => {
    const f = await form(c);
    if (!csrfOk(c, f)) return expired();
    const email = str(f.email, 254);
    const r = await accounts.signIn(email, str(f.password, 200), addressOf(c));
    if ('waitS' in r) return tooMany(r.waitS);
    if (!r.account) return html(accountLogin(csrfFor(c).token, { email, error: 'That email and password do not match an account.' }), { status: 401, title: 'Sign in' });
    return new Response(null, { status: 303, headers: { Location: '/account', 'Set-Cookie': await accountCookie(r.account.id), 'Cache-Control': 'no-store' } });
  });
  pages.post('/account/revoke', async (c) => {
    const f = await form(c);
    const id = await signedInAs(c);
    if (!id || !csrfOk(c, f)) return expired();
    await accounts.revoke(id, str(f.grant, 128));
    return new Response(null, { status: 303, headers: { Location: '/account?removed=1', 'Cache-Control': 'no-store' } });
  });
  pages.post('/account/logout', async (c) => {
    const f = await form(c);
    if (!csrfOk(c, f)) return expired();
    // The session ends on the server: the old cookie, replayed, no longer signs anyone in.
    await accounts.closeSession(readCookie(c, ACCOUNT_COOKIE));
    return new Response(null, {
      status: 303,
      headers: { Location: '/account', 'Set-Cookie': cookie(ACCOUNT_COOKIE, '', { path: '/account', sameSite: 'Lax', maxAgeS: 0 }), 'Cache-Control': 'no-store' },
    });
  });
  passwordResetRoutes(pages, {
    resets: o.resets,
    csrf: csrfFor,
    csrfOk,
    expired,
    page: (body, opts) => html(body, opts),
    tooMany,
    address: addressOf,
    signedOutCookie: () => cookie(ACCOUNT_COOKIE, '', { path: '/account', sameSite: 'Lax', maxAgeS: 0 }),
  });
  if (o.buyerData) {
    accountDataRoutes(pages, {
      port: o.buyerData,
      signedInEmail: async (c) => {
        const id = await signedInAs(c);
        return id ? ((await accounts.byId(id))?.email ?? null) : null;
      },
      csrfOk,
      expired,
      page: (body, opts) => html(body, opts),
      signedOutCookie: () => cookie(ACCOUNT_COOKIE, '', { path: '/account', sameSite: 'Lax', maxAgeS: 0 }),
    });
  }
  return pages;
}

/**
 * What allowing a consent prompt grants, worked out once for the page that asks and the form that
 * grants (the buyer is shown exactly what is granted): the OpenID scopes and claims still missing,
 * and the scopes of each resource (the MCP endpoint, the REST API) still missing. `listed` is the
 * scopes in the order the page names them.
 */
function toGrant(details: unknown): { oidc: string[]; claims: string[]; resource: Record<string, string[]>; listed: string[] } {
  const d = (details ?? {}) as { missingOIDCScope?: unknown; missingOIDCClaims?: unknown; missingResourceScopes?: unknown };
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const oidc = strings(d.missingOIDCScope);
  const resource: Record<string, string[]> = {};
  if (d.missingResourceScopes && typeof d.missingResourceScopes === 'object') {
    for (const [indicator, scopes] of Object.entries(d.missingResourceScopes as Record<string, unknown>)) {
      const list = strings(scopes);
      if (list.length > 0) resource[indicator] = list;
    }
  }
  // The library also counts a USP scope among the OpenID ones: each scope is named once.
  const all = new Set([...Object.values(resource).flat(), ...oidc]);
  const listed = [...(USP_SCOPES as readonly string[]).filter((s) => all.has(s)), ...[...all].filter((s) => !(USP_SCOPES as readonly string[]).includes(s))];
  return { oidc, claims: strings(d.missingOIDCClaims), resource, listed };
}
