/**
 * The kit of the buyer's OAuth pages (as `src/bindings/dashboard/kit.ts` is the dashboard screens'):
 * the page response in the one layout, the web kit's CSRF scheme, cookies, the account session, the
 * rate-limit answer, reading a form, and the authorization's interaction with its result. Each page
 * group (`sign-in-pages.ts`, `consent-page.ts`, `account-page.ts`, `reset-pages.ts`,
 * `account-data.ts`) is written against it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type Provider from 'oidc-provider';
import {
  csrfFor as webCsrfFor,
  csrfOk as webCsrfOk,
  pageHeaders,
  readCookie,
  readForm,
  type Html,
} from '../web/index.js';
import { ACCOUNT_SESSION_MS, type Accounts } from './accounts.js';
import type { BuyerDataPort } from './account-data.js';
import { layout, messagePage } from './pages.js';
import type { PasswordResets } from './password-reset.js';

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

export interface PageOptions {
  status?: number;
  title: string;
  formTargets?: string[];
  cookies?: Array<string | undefined>;
  retryAfter?: number;
}

/** The interaction a page belongs to, with the client and where it redirects to (a form target). */
export interface Interaction {
  details: Awaited<ReturnType<Provider['interactionDetails']>>;
  client: NonNullable<Awaited<ReturnType<Provider['Client']['find']>>>;
  clientName: string;
  targets: string[];
  host?: string;
}

export type PagesKit = ReturnType<typeof pagesKit>;

export function pagesKit(o: InteractionPagesOptions) {
  const secure = () => o.base().startsWith('https://');
  const cookie = (name: string, value: string, opts: { path: string; sameSite: 'Strict' | 'Lax'; maxAgeS?: number }) =>
    `${name}=${value}; Path=${opts.path}; HttpOnly; SameSite=${opts.sameSite}${secure() ? '; Secure' : ''}${opts.maxAgeS !== undefined ? `; Max-Age=${opts.maxAgeS}` : ''}`;
  const page = (body: Html, opts: PageOptions) => {
    const headers = new Headers(pageHeaders({ formTargets: opts.formTargets }));
    for (const ck of opts.cookies ?? []) if (ck) headers.append('Set-Cookie', ck);
    if (opts.retryAfter) headers.set('Retry-After', String(opts.retryAfter));
    return new Response(layout({ title: opts.title, business: o.businessName, body }).toString(), {
      status: opts.status ?? 200,
      headers,
    });
  };
  const node = (c: Context) => c.env as NodeEnv;
  const accounts = o.accounts;
  return {
    options: o,
    accounts,
    page,
    /** The HTML doors' one CSRF scheme (src/web): a double-submitted token from a SameSite=Strict cookie. */
    csrfFor: (c: Context) => webCsrfFor(c, { secure: secure() }),
    csrfOk: (c: Context, form: Record<string, unknown>) => webCsrfOk(c, form.csrf),
    expired: () =>
      page(
        messagePage({
          heading: 'This form has expired',
          text: 'Go back to your assistant and start signing in again.',
        }),
        { status: 403, title: 'Expired' },
      ),
    tooMany: (wait: number) =>
      page(messagePage({ heading: 'Too many attempts', text: `Wait ${wait} seconds, then try again.` }), {
        status: 429,
        title: 'Too many attempts',
        retryAfter: wait,
      }),
    addressOf: (c: Context): string => o.clientAddress(c.req.raw, c.env) ?? 'unknown',
    form: (c: Context) => readForm(c),
    str: (v: unknown, max = 256) => (typeof v === 'string' ? v.slice(0, max) : ''),
    /** The account page's session: a random value whose hash the store keeps, so signing out ends it at once. */
    accountCookie: async (accountId: string) =>
      cookie(ACCOUNT_COOKIE, await accounts.openSession(accountId), {
        path: '/account',
        sameSite: 'Lax',
        maxAgeS: ACCOUNT_SESSION_MS / 1000,
      }),
    signedOutCookie: () => cookie(ACCOUNT_COOKIE, '', { path: '/account', sameSite: 'Lax', maxAgeS: 0 }),
    signedInAs: (c: Context): Promise<string | null> => accounts.session(readCookie(c, ACCOUNT_COOKIE)),
    /** The interaction the page's `:uid` names, or null (expired, another's, an unknown client). */
    interaction: async (c: Context): Promise<Interaction | null> => {
      const p = o.provider();
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
        return {
          details,
          client,
          clientName: String(client.clientName ?? client.clientId),
          targets: target ? [target] : [],
          host,
        };
      } catch {
        return null;
      }
    },
    /** The interaction's result handed to the library, and the browser sent on (303). */
    finish: async (c: Context, result: Record<string, unknown>, cookies: Array<string | undefined> = []) => {
      const to = await o
        .provider()
        .interactionResult(node(c).incoming, node(c).outgoing, result, { mergeWithLastSubmission: false });
      const headers = new Headers({ Location: to, 'Cache-Control': 'no-store' });
      for (const ck of cookies) if (ck) headers.append('Set-Cookie', ck);
      return new Response(null, { status: 303, headers });
    },
  };
}
