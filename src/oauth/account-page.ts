/**
 * The account page: sign in directly, see the linked assistants, remove one, sign out (the session
 * ends on the server). Creating an account happens only from an assistant's sign-in.
 */
import type { Hono } from 'hono';
import { accountDataCard } from './account-data.js';
import { ACCOUNT_COOKIE, type PagesKit } from './interaction-kit.js';
import { accountPage, loginPage, messagePage, type LinkedView } from './pages.js';
import { readCookie } from '../web/index.js';

export function accountRoutes(pages: Hono, k: PagesKit): void {
  // The account page: sign in directly, see linked assistants, remove one.
  const accountLogin = (csrf: string, extra: { email?: string; error?: string } = {}) =>
    loginPage({ action: '/account/login', registerHref: '/account/register', csrf, ...extra });
  pages.get('/account', async (c) => {
    const csrf = k.csrfFor(c);
    const id = await k.signedInAs(c);
    const account = id ? await k.accounts.byId(id) : null;
    if (!account) return k.page(accountLogin(csrf.token), { title: 'Sign in', cookies: [csrf.setCookie] });
    const p = k.options.provider();
    const linked: LinkedView[] = [];
    for (const g of await k.accounts.linked(account.id)) {
      const client = await p.Client.find(g.clientId).catch(() => undefined);
      linked.push({
        grantId: g.grantId,
        client: String(client?.clientName ?? g.clientId),
        scopes: g.scopes,
        since: new Date(g.createdMs).toISOString().slice(0, 10),
      });
    }
    const notice =
      c.req.query('removed') === '1' ? 'Access removed. That assistant can no longer act for you.' : undefined;
    const data = k.options.buyerData ? accountDataCard(csrf.token) : undefined;
    return k.page(accountPage({ csrf: csrf.token, name: account.name, email: account.email, linked, notice, data }), {
      title: 'Your account',
      cookies: [csrf.setCookie],
    });
  });
  pages.get('/account/register', () =>
    k.page(
      messagePage({
        heading: 'Create an account from your assistant',
        text: 'Accounts are created when you link an assistant: add this business to your assistant and choose "Create an account" when it asks you to sign in.',
      }),
      { title: 'Create an account' },
    ),
  );
  pages.post('/account/login', async (c) => {
    const f = await k.form(c);
    if (!k.csrfOk(c, f)) return k.expired();
    const email = k.str(f.email, 254);
    const r = await k.accounts.signIn(email, k.str(f.password, 200), k.addressOf(c));
    if ('waitS' in r) return k.tooMany(r.waitS);
    if (!r.account)
      return k.page(
        accountLogin(k.csrfFor(c).token, { email, error: 'That email and password do not match an account.' }),
        { status: 401, title: 'Sign in' },
      );
    return new Response(null, {
      status: 303,
      headers: { Location: '/account', 'Set-Cookie': await k.accountCookie(r.account.id), 'Cache-Control': 'no-store' },
    });
  });
  pages.post('/account/revoke', async (c) => {
    const f = await k.form(c);
    const id = await k.signedInAs(c);
    if (!id || !k.csrfOk(c, f)) return k.expired();
    await k.accounts.revoke(id, k.str(f.grant, 128));
    return new Response(null, {
      status: 303,
      headers: { Location: '/account?removed=1', 'Cache-Control': 'no-store' },
    });
  });
  pages.post('/account/logout', async (c) => {
    const f = await k.form(c);
    if (!k.csrfOk(c, f)) return k.expired();
    // The session ends on the server: the old cookie, replayed, no longer signs anyone in.
    await k.accounts.closeSession(readCookie(c, ACCOUNT_COOKIE));
    return new Response(null, {
      status: 303,
      headers: { Location: '/account', 'Set-Cookie': k.signedOutCookie(), 'Cache-Control': 'no-store' },
    });
  });
}
