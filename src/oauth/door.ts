/**
 * The OAuth door on the HTTP host: the authorization server's endpoints (oidc-provider, a Koa app,
 * handed the raw Node request), RFC 8414 and RFC 9728 metadata, the buyer's account pages, the
 * profile generic MCP hosts act under, and the 401 challenge MCP clients start authorization from.
 * It answers only its own paths; everything else goes on to the REST and MCP doors.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono, type Context } from 'hono';
import type Provider from 'oidc-provider';
import { OPERATIONS, USP_VERSION, type AuthPolicy, type Logger } from '../operations/index.js';
import { clientAddressKey, createProfileResolver, outboundUrlProblem, type AccountEvent, type PlatformSummary, type ProfileResolver } from '../security/index.js';
import type { Store } from '../store/index.js';
import { ACCOUNT_SESSION_MS, Accounts, EMAIL, normalizeEmail } from './accounts.js';
import { ACCOUNT_CSS, ACCOUNT_CSS_PATH, accountPage, codePage, consentPage, layout, loginPage, messagePage, registerPage, type LinkedView } from './pages.js';
import { clientMetadataFetch } from './client-metadata.js';
import { INTERACTION_PATH, OAUTH_ROUTES, PROFILE_METADATA, USP_SCOPES, canonicalResource, createProvider } from './provider.js';
import { pinToPublicOrigin } from './public-origin.js';
import { DEFAULT_REGISTRATION_LIMITS, dynamicRegistration, type RegistrationLimits } from './registration.js';
import { accessTokenVerifier } from './resource-server.js';
import { loadOAuthSecrets } from './secrets.js';
import { accountDataCard, accountDataRoutes, type BuyerDataPort } from './account-data.js';
import { loadOidcProvider } from './library.js';
import { csrfFor as webCsrfFor, csrfOk as webCsrfOk, htmlResponse, pageHeaders, readCookie, readForm, styleSheet, type Html } from '../web/index.js';

export interface OAuthDoorOptions {
  store: Store;
  log: Logger;
  sandbox: boolean;
  /** Behind trusted proxies (whose X-Forwarded-* reach the library; the host drops everyone else's). */
  trustProxy: boolean;
  /** The client's address as the server resolves it (trusted proxies honoured); undefined without a socket. */
  clientAddress: (req: Request, env: unknown) => string | undefined;
  /** The public origin, known after listen when none was configured. */
  baseUrl: () => string;
  businessName: string;
  /** The capability keys the business offers (the generic-host profile declares the same). */
  capabilities: () => string[];
  /** Accept http://127.0.0.1 profile and metadata URLs (development on loopback). */
  allowLoopback: boolean;
  /** Sign-in attempts per minute per client address (a flood limit; failures also back off, see accounts.ts), and sign-ups per hour per address. */
  loginLimits?: { perAddress: number; signupsPerAddress?: number };
  /** How a sign-up code reaches the buyer (default: the log). */
  deliverCode?: (email: string, code: string) => void;
  /** The mechanisms the business accepts (named in the 401 challenge), read when one is sent. */
  accepted: () => readonly string[];
  /** The clock for sign-up codes, account sessions and sign-in delays. Default Date.now. */
  now?: () => number;
  /** Sign-in and sign-up events, for the operator's counters. */
  onAccountEvent?: (e: AccountEvent) => void;
  /** Limits on dynamic client registration, over DEFAULT_REGISTRATION_LIMITS. */
  registration?: Partial<RegistrationLimits>;
  /** The server's platform profile resolver (a registration naming a profile proves control with a key it publishes). */
  profiles?: ProfileResolver;
  /** Each client registration's outcome (`registered`, or why it was refused), for the metrics. */
  onRegistration?: (outcome: string) => void;
  /** The buyer's own data export and erasure from the account page (absent: the page offers neither). */
  buyerData?: BuyerDataPort;
}

export interface OAuthDoor {
  /** The paths the door answers (the host's door list asks before handing it a request). */
  claims(path: string): boolean;
  /** Answer a request on one of the door's paths. */
  fetch(req: Request, env: unknown): Promise<Response>;
  /** The host's refusals (plaintext, body size, a fault) on the door's paths: a page for the buyer's pages, an OAuth error object elsewhere. */
  refuse(req: Request, status: number, err: { code: string; message: string }): Response;
  /**
   * Run by the MCP door before MCP sees a POST /mcp: the 401 challenge for a privileged tool call
   * that presents no credential at all; undefined lets MCP answer (a presented credential is checked
   * once, by the pipeline). `read`: the request's JSON body as the MCP door already parsed it
   * (undefined when not JSON); read from a clone without it.
   */
  mcpGate(req: Request, read?: { body: unknown }): Promise<Response | undefined>;
  /** The profile URL a client without one acts under. */
  genericProfileUrl(): string;
  /** RFC 9728 metadata URL for a door's resource. */
  resourceMetadataUrl(binding: 'mcp' | 'rest'): string;
  /**
   * What the authentication policy takes from the authorization server, composed into it before
   * the policy is frozen: the one token verifier, the metadata URL 401 challenges name, and the
   * mechanism it adds to those the business profile advertises.
   */
  resourceServer: Required<Pick<AuthPolicy, 'verifyAccessToken' | 'resourceMetadata'>> & { mechanism: 'oauth2_bearer' };
}

export const GENERIC_PROFILE_PATH = '/platforms/generic-mcp-host.json';
const PRM_PATH = '/.well-known/oauth-protected-resource';
const ACCOUNT_COOKIE = 'usp_account';

type NodeEnv = { incoming: IncomingMessage; outgoing: ServerResponse };

/**
 * Build the door and its resource server (the only contact with the core: the token verifier the
 * composition root puts into the authentication policy, where a verified token becomes a Caller).
 * The door never writes into the policy itself.
 */
export async function mountOAuth(o: OAuthDoorOptions): Promise<OAuthDoor> {
  const lib = await loadOidcProvider();
  const secrets = await loadOAuthSecrets(o.store);
  const accounts = new Accounts({ store: o.store, log: o.log, deliverCode: o.deliverCode, now: o.now, perAddressPerMinute: o.loginLimits?.perAddress, signupsPerAddressHour: o.loginLimits?.signupsPerAddress, onEvent: o.onAccountEvent });
  const base = () => o.baseUrl().replace(/\/$/, '');
  const mcpResource = () => canonicalResource(`${base()}/mcp`)!;
  const restResource = () => canonicalResource(`${base()}/`)!;
  const cookieKey = Buffer.from(secrets.cookieKeys[0], 'base64url');

  const genericUrl = () => `${base()}${GENERIC_PROFILE_PATH}`;
  const genericSummary = (): PlatformSummary => ({ version: USP_VERSION, capabilities: o.capabilities() });
  const genericDoc = () => ({
    usp: { version: USP_VERSION, capabilities: Object.fromEntries(o.capabilities().map((k) => [k, [{ version: USP_VERSION }]])) },
    name: 'Assistants without a platform profile of their own',
    description: `The platform profile ${o.businessName} applies to an OAuth client (an MCP host) that registered no ${PROFILE_METADATA}. It has no webhook_url: events reach the assistant as MCP notifications on its session.`,
  });

  const profileUrlProblem = (url: string) => outboundUrlProblem(url, o.allowLoopback || o.sandbox) ?? undefined;
  const metadataDocuments = clientMetadataFetch({ log: o.log, allowLoopback: o.allowLoopback });
  const registration = dynamicRegistration({
    store: o.store,
    log: o.log,
    limits: { ...DEFAULT_REGISTRATION_LIMITS, ...(o.registration ?? {}) },
    secret: cookieKey,
    profiles: o.profiles ?? createProfileResolver({ allowLoopback: o.allowLoopback }),
    endpointUrl: () => `${base()}${OAUTH_ROUTES.registration}`,
    onOutcome: o.onRegistration,
  });

  // The provider needs its issuer, which is the listening address when no public URL was given.
  let provider: Provider | undefined;
  let providerIssuer = '';
  const getProvider = (): Provider => {
    if (!provider || providerIssuer !== base()) {
      providerIssuer = base();
      provider = createProvider(lib, {
        issuer: providerIssuer,
        store: o.store,
        secrets,
        resources: () => [mcpResource(), restResource()],
        defaultResource: mcpResource,
        profileUrlProblem,
        allowMetadataFetch: (url) => metadataDocuments.allow(url),
        fetch: (url) => metadataDocuments.fetch(url),
        hooks: registration.hooks,
        findAccount: (id) => accounts.byId(id),
        renderError: (e) => ({
          status: 400,
          headers: pageHeaders(),
          html: layout({ title: 'Sign-in problem', business: o.businessName, body: messagePage({ heading: 'This link cannot be used', text: errorWords(e.error) }) }).toString(),
        }),
      });
      provider.on('server_error', (_ctx: unknown, err: Error) => o.log.error('oauth server error', { error: String(err) }));
      registration.attach(provider);
    }
    return provider;
  };

  const verify = accessTokenVerifier({
    provider: getProvider,
    store: o.store,
    audienceOf: (b) => (b === 'mcp' ? mcpResource() : restResource()),
    origins: () => [base()],
    genericProfile: () => ({ url: genericUrl(), summary: genericSummary() }),
  });

  const resourceMetadataUrl = (binding: 'mcp' | 'rest') => (binding === 'mcp' ? `${base()}${PRM_PATH}/mcp` : `${base()}${PRM_PATH}`);
  const prm = (resource: string) =>
    Response.json(
      {
        resource,
        authorization_servers: [base()],
        scopes_supported: [...USP_SCOPES],
        bearer_methods_supported: ['header'],
        dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'RS256', 'PS256'],
        resource_name: o.businessName,
      },
      { headers: { 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' } },
    );

  // ---- the library's own endpoints, on the raw Node request ------------------------------------
  const viaProvider = async (req: Request, env: unknown, rewrite?: string): Promise<Response> => {
    const node = env as Partial<NodeEnv> | undefined;
    if (!node?.incoming || !node.outgoing) {
      return new Response('The authorization server needs the HTTP listener.', { status: 503 });
    }
    if (rewrite) node.incoming.url = rewrite;
    pinToPublicOrigin(node.incoming, base());
    if (req.method === 'POST' && new URL(req.url).pathname === OAUTH_ROUTES.registration) {
      return registration.handle(req, node as NodeEnv, addressOfRequest(req, env), (incoming) => library(incoming, node.outgoing!));
    }
    return library(node.incoming, node.outgoing);
  };
  const library = async (incoming: IncomingMessage, outgoing: ServerResponse): Promise<Response> => {
    await (getProvider().callback() as (req: IncomingMessage, res: ServerResponse) => Promise<void>)(incoming, outgoing);
    // The library wrote the answer itself; the listener must not write another.
    return RESPONSE_ALREADY_SENT;
  };

  // ---- pages -----------------------------------------------------------------------------------
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
  const expired = () =>
    html(messagePage({ heading: 'This form has expired', text: 'Go back to your assistant and start signing in again.' }), { status: 403, title: 'Expired' });

  const addressOfRequest = (req: Request, env: unknown): string => {
    const a = o.clientAddress(req, env);
    return a ? clientAddressKey(a) : 'unknown';
  };
  const addressOf = (c: Context): string => addressOfRequest(c.req.raw, c.env);
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
      consentPage({ action: `${INTERACTION_PATH}/${uid}/consent`, csrf: csrf.token, client: it.clientName, clientHost: it.host, scopes: toGrant(it.details.prompt.details).listed, email: account?.email ?? '' }),
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
    const problem = !name ? 'Enter your name.' : !EMAIL.test(email) ? 'Enter an email address like name@example.com.' : password.length < 10 ? 'Choose a password of at least 10 characters.' : undefined;
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
      return html(codePage({ action: `${INTERACTION_PATH}/${uid}/verify`, csrf: csrf.token, signup, email: '', error: 'That code is not right, or it has expired. Check it, or start again.' }), {
        status: 400,
        title: 'Check your email',
        formTargets: it.targets,
      });
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
  const accountLogin = (csrf: string, extra: { email?: string; error?: string } = {}) =>
    loginPage({ action: '/account/login', registerHref: '/account/register', csrf, ...extra });
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
    html(messagePage({ heading: 'Create an account from your assistant', text: 'Accounts are created when you link an assistant: add this business to your assistant and choose "Create an account" when it asks you to sign in.' }), { title: 'Create an account' }),
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
    return new Response(null, { status: 303, headers: { Location: '/account', 'Set-Cookie': cookie(ACCOUNT_COOKIE, '', { path: '/account', sameSite: 'Lax', maxAgeS: 0 }), 'Cache-Control': 'no-store' } });
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

  // ---- the 401 an MCP client starts authorization from ------------------------------------------
  const privilegedTools = new Set(OPERATIONS.filter((op) => op.access !== 'public').flatMap((op) => [op.tool, op.formerly?.tool]));
  /**
   * HTTP 401 (MCP authorization) whose body is still the USP answer: a JSON-RPC error -32006
   * `authentication_required` for the request, with what is accepted and where OAuth starts.
   */
  const challenge = (msg: { id?: unknown; correlationId?: unknown }) => {
    const data: Record<string, unknown> = {
      code: 'authentication_missing',
      content: 'This tool needs a credential: sign in through OAuth (or use another accepted mechanism).',
      accepted_mechanisms: o.accepted(),
      resource_metadata: resourceMetadataUrl('mcp'),
    };
    if (typeof msg?.correlationId === 'string') data.correlation_id = msg.correlationId;
    const id = typeof msg?.id === 'string' || typeof msg?.id === 'number' ? msg.id : null;
    return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32006, message: `authentication_required: ${data.content}`, data }, id }), {
      status: 401,
      headers: {
        'Content-Type': 'application/json',
        'WWW-Authenticate': `Bearer resource_metadata="${resourceMetadataUrl('mcp')}", scope="${USP_SCOPES.join(' ')}"`,
      },
    });
  };
  const mcpGate = async (req: Request, read?: { body: unknown }): Promise<Response | undefined> => {
    // RFC 9421 signatures are a credential of their own, checked below the door.
    if (req.headers.has('signature-input') || req.headers.has('signature')) return undefined;
    // A credential on the header (a key, a token, a booking-scoped credential) is checked once, below the door.
    if (req.headers.has('authorization')) return undefined;
    let body: unknown;
    if (read) {
      if (read.body === undefined) return undefined;
      body = read.body;
    } else {
      try {
        body = await req.clone().json();
      } catch {
        return undefined;
      }
    }
    for (const msg of Array.isArray(body) ? body : [body]) {
      const m = msg as { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: { _meta?: { usp?: { authorization?: unknown; profile?: unknown; correlation_id?: unknown } } } } } | null;
      if (!m || typeof m !== 'object' || m.method !== 'tools/call' || !privilegedTools.has(String(m.params?.name))) continue;
      const usp = m.params?.arguments?._meta?.usp;
      if (usp?.authorization) continue;
      // A sandbox accepts a named profile in place of a credential; without either, ask for a token.
      if (o.sandbox && typeof usp?.profile === 'string') continue;
      o.log.warn('authentication refused', { operation: String(m.params?.name), correlation_id: typeof usp?.correlation_id === 'string' ? usp.correlation_id.slice(0, 200) : undefined, code: 'authentication_missing', detail: 'privileged MCP call over HTTP with no credential: 401 challenge' });
      return challenge({ id: m.id, correlationId: usp?.correlation_id });
    }
    return undefined;
  };

  const interactionPrefix = `${INTERACTION_PATH}/`;
  const isPage = (path: string) => path.startsWith(interactionPrefix) || path === '/account' || path.startsWith('/account/');
  const isProviderPath = (path: string) =>
    path === '/.well-known/oauth-authorization-server' ||
    path === '/.well-known/openid-configuration' ||
    Object.values(OAUTH_ROUTES).some((r) => path === r || path.startsWith(`${r}/`));
  return {
    genericProfileUrl: genericUrl,
    resourceMetadataUrl,
    resourceServer: { verifyAccessToken: verify, resourceMetadata: resourceMetadataUrl, mechanism: 'oauth2_bearer' },
    mcpGate,
    claims: (path) =>
      path === `${PRM_PATH}/mcp` || path === PRM_PATH || path === GENERIC_PROFILE_PATH || path === ACCOUNT_CSS_PATH || isPage(path) || isProviderPath(path),
    async fetch(req, env) {
      const path = new URL(req.url).pathname;
      if (path === `${PRM_PATH}/mcp`) return prm(mcpResource());
      if (path === PRM_PATH) return prm(restResource());
      if (path === GENERIC_PROFILE_PATH) return Response.json(genericDoc(), { headers: { 'Cache-Control': 'public, max-age=300' } });
      if (path === ACCOUNT_CSS_PATH) return styleSheet(ACCOUNT_CSS);
      if (path === '/.well-known/oauth-authorization-server') return viaProvider(req, env, '/.well-known/openid-configuration');
      if (isPage(path)) return pages.fetch(req, env);
      return viaProvider(req, env);
    },
    refuse(req, status, err) {
      const path = new URL(req.url).pathname;
      if (isPage(path)) {
        return htmlResponse(layout({ title: 'Not possible', business: o.businessName, body: messagePage({ heading: 'This request was refused', text: err.message }) }), { status });
      }
      // RFC 6749 section 5.2's error object, the format the library's own endpoints answer in.
      const error = status >= 500 ? 'server_error' : 'invalid_request';
      return Response.json({ error, error_description: err.message }, { status, headers: { 'Cache-Control': 'no-store' } });
    },
  };
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

function errorWords(code: string): string {
  switch (code) {
    case 'invalid_redirect_uri':
      return 'The assistant sent you here with a return address it did not register, so we stopped. Nothing was shared.';
    case 'invalid_client':
      return 'The assistant that sent you here is not known to this business. Nothing was shared.';
    case 'invalid_request':
      return 'The request from your assistant was incomplete or not allowed. Nothing was shared.';
    default:
      return `The sign-in could not continue (${code.slice(0, 60)}). Nothing was shared; start again from your assistant.`;
  }
}
