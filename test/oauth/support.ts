/**
 * Driving the authorization server the way a browser and an OAuth client would, with fetch: a
 * cookie jar, PKCE, dynamic registration, the sign-in / sign-up / consent forms, the code exchange.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { createUspServer, type ServerOptions, type UspServer } from '../../src/server/compose.js';
import { ManualClock, silentLogger, type Logger } from '../../src/operations/index.js';
import { day, demoBusiness } from '../support/server.js';
import { TEST_NOW } from '../support/time.js';
import type { RegistrationLimits } from '../../src/oauth/registration.js';
import { signedHeaders, type SigningIdentity } from '../../src/client/platform-auth.js';

export const REDIRECT = 'http://127.0.0.1:1/callback';

export interface OAuthTestServer {
  url: string;
  server: UspServer;
  clock: ManualClock;
  /** Sign-up codes as they would be mailed, by email. */
  codes: Map<string, string>;
  close(): Promise<void>;
}

export async function startOAuthServer(
  opts: {
    sandbox?: boolean;
    loginLimits?: { perAddress: number; signupsPerAddress?: number } | 'default';
    log?: Logger;
    db?: string;
    publicUrl?: string;
    trustProxy?: boolean;
    /** Development: loopback platform profiles and metadata documents (default true: the test hosts are on loopback). */
    allowLoopbackProfiles?: boolean;
    registration?: Partial<RegistrationLimits>;
    /** Send sign-up codes by mail through this (instead of keeping them in `codes`). */
    mail?: ServerOptions['mail'];
    /** The business's admin API keys (default none). */
    adminKeys?: string[];
  } = {},
): Promise<OAuthTestServer> {
  const clock = new ManualClock(TEST_NOW);
  const codes = new Map<string, string>();
  const server = await createUspServer({
    business: demoBusiness(opts.publicUrl ? { public_url: opts.publicUrl } : {}),
    db: opts.db ?? ':memory:',
    sandbox: opts.sandbox ?? false,
    clock,
    log: opts.log ?? silentLogger,
    sweepIntervalMs: 0,
    webhooks: { enabled: false },
    trustProxy: opts.trustProxy,
    mail: opts.mail,
    adminKeys: opts.adminKeys,
    // Platform profiles served by a loopback test server are fetched (the server itself is on loopback).
    security: { allowLoopbackProfiles: opts.allowLoopbackProfiles ?? true },
    oauth: {
      ...(opts.loginLimits === 'default'
        ? {}
        : { loginLimits: opts.loginLimits ?? { perAddress: 1000, signupsPerAddress: 1000 } }),
      ...(opts.mail ? {} : { deliverCode: (email: string, code: string) => void codes.set(email, code) }),
      // One test address registers a client per test: the limits are tests' own business.
      registration: {
        perAddressPerMinute: 1000,
        totalPerMinute: 1000,
        perRegistrant: 1000,
        ...(opts.registration ?? {}),
      },
    },
  });
  const url = await server.listen(0, '127.0.0.1');
  return { url, server, clock, codes, close: () => server.close() };
}

/** One server for a file's (or a describe's) tests: started before them, closed after them; call the getter inside tests. */
export function sharedOAuthServer(opts: Parameters<typeof startOAuthServer>[0] = {}): () => OAuthTestServer {
  let t: OAuthTestServer | undefined;
  beforeAll(async () => {
    t = await startOAuthServer(opts);
  }, 30_000);
  afterAll(async () => {
    await t?.close();
  });
  return () => t!;
}

export const b64url = (b: Buffer) => b.toString('base64url');
export function pkce() {
  const verifier = b64url(randomBytes(32));
  return { verifier, challenge: b64url(createHash('sha256').update(verifier).digest()) };
}

/** A browser's cookies for one origin (enough for our pages: names, values, paths). */
export class Browser {
  private jar = new Map<string, { value: string; path: string }>();
  /**
   * `always`: headers sent with every request (a forged Host or X-Forwarded-Host, say).
   * `publicOrigin`: the public URL the server publishes, which a load balancer would route to
   * `origin`: redirects there are followed to `origin`.
   */
  constructor(
    private readonly origin: string,
    private readonly always: Record<string, string> = {},
    private readonly publicOrigin?: string,
  ) {}
  private cookieHeader(path: string): string {
    return [...this.jar.entries()]
      .filter(([, c]) => path.startsWith(c.path))
      .map(([k, c]) => `${k}=${c.value}`)
      .join('; ');
  }
  private remember(res: Response) {
    for (const sc of res.headers.getSetCookie()) {
      const [pair, ...attrs] = sc.split(';').map((s) => s.trim());
      const i = pair.indexOf('=');
      const name = pair.slice(0, i);
      const value = pair.slice(i + 1);
      const path = attrs.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const expired = attrs.some((a) => /^max-age=0$/i.test(a) || /^expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === '') this.jar.delete(name);
      else this.jar.set(name, { value, path });
    }
  }
  /** One request, no redirects followed. */
  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const u = new URL(url, this.origin);
    const headers: Record<string, string> = { ...this.always, ...(init.headers ?? {}) };
    if (u.origin === this.origin) {
      const ck = this.cookieHeader(u.pathname);
      if (ck) headers.cookie = ck;
    }
    let body: string | undefined;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(u, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      body,
      redirect: 'manual',
    });
    if (u.origin === this.origin) this.remember(res);
    return res;
  }
  /** Follow redirects on our origin; stop at the first answer that is not one, or at a redirect elsewhere. */
  async follow(
    url: string,
    init: { form?: Record<string, string> } = {},
  ): Promise<{ res: Response; url: string; text: string }> {
    let res = await this.request(url, init);
    let at = new URL(url, this.origin).href;
    for (let i = 0; i < 10 && res.status >= 300 && res.status < 400; i++) {
      let next = new URL(res.headers.get('location')!, at).href;
      if (this.publicOrigin && next.startsWith(`${this.publicOrigin}/`))
        next = this.origin + next.slice(this.publicOrigin.length);
      if (!next.startsWith(this.origin)) return { res, url: next, text: '' };
      at = next;
      res = await this.request(next);
    }
    return { res, url: at, text: await res.text() };
  }
}

export const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
export const actionOf = (html: string) =>
  /<form[^>]*action="([^"]+)"/.exec(html)?.[1]?.replace(/&#38;|&amp;/g, '&') ?? '';

export async function register(
  url: string,
  meta: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<{ client_id: string; client_secret?: string } & Record<string, unknown>> {
  const res = await fetch(`${url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      client_name: 'Test Assistant',
      grant_types: ['authorization_code', 'refresh_token'],
      ...meta,
    }),
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as never;
}

/**
 * Register a client naming a platform profile: the request is signed (RFC 9421, with Content-Digest
 * and created) with `signer`, whose key that profile publishes. Answers the raw response.
 */
export async function registerSigned(
  url: string,
  meta: Record<string, unknown>,
  signer: SigningIdentity,
  created?: number,
): Promise<Response> {
  const body = JSON.stringify(meta);
  const endpoint = `${url}/oauth/register`;
  return fetch(endpoint, {
    method: 'POST',
    headers: signedHeaders(signer, 'POST', endpoint, { 'Content-Type': 'application/json' }, body, created),
    body,
  });
}

export function authorizeUrl(
  url: string,
  clientId: string,
  p: { challenge: string },
  extra: Record<string, string> = {},
): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'usp:booking usp:history',
    code_challenge: p.challenge,
    code_challenge_method: 'S256',
    state: 'st-' + randomBytes(6).toString('hex'),
    resource: `${url}/mcp`,
    ...extra,
  });
  return `${url}/oauth/authorize?${q}`;
}

/** Sign up (with the mailed code) or sign in, then allow: the redirect back to the client, as a URL. */
export async function linkAccount(
  t: OAuthTestServer,
  browser: Browser,
  authUrl: string,
  who: { email: string; password: string; name?: string; signUp?: boolean },
): Promise<URL> {
  let page = await browser.follow(authUrl);
  if (page.text.includes('<h1>Sign in</h1>')) {
    if (who.signUp) {
      const reg = await browser.follow(/href="([^"]+\/register)"/.exec(page.text)![1]);
      const codePage = await browser.follow(actionOf(reg.text), {
        form: { csrf: csrfOf(reg.text), name: who.name ?? 'Ada Lovelace', email: who.email, password: who.password },
      });
      const signup = /name="signup" value="([^"]+)"/.exec(codePage.text)![1];
      page = await browser.follow(actionOf(codePage.text), {
        form: { csrf: csrfOf(codePage.text), signup, code: t.codes.get(who.email) ?? '000000' },
      });
    } else {
      page = await browser.follow(actionOf(page.text), {
        form: { csrf: csrfOf(page.text), email: who.email, password: who.password },
      });
    }
  }
  if (page.text.includes('<h1>Allow')) {
    page = await browser.follow(actionOf(page.text), { form: { csrf: csrfOf(page.text), decision: 'allow' } });
  }
  if (!page.url.startsWith(REDIRECT))
    throw new Error(`did not get back to the client: ${page.url} ${page.res.status} ${page.text.slice(0, 400)}`);
  return new URL(page.url);
}

export async function tokenRequest(
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: await res.json() };
}

/** A buyer-linked access token for /mcp (or another resource), from a fresh client and account. */
export async function linkedTokens(
  t: OAuthTestServer,
  email: string,
  opts: { resource?: string; signUp?: boolean; password?: string } = {},
) {
  const client = await register(t.url);
  const p = pkce();
  const browser = new Browser(t.url);
  const back = await linkAccount(
    t,
    browser,
    authorizeUrl(t.url, client.client_id, p, { resource: opts.resource ?? `${t.url}/mcp` }),
    {
      email,
      password: opts.password ?? 'correct horse battery',
      signUp: opts.signUp ?? true,
    },
  );
  const tok = await tokenRequest(t.url, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    client_id: client.client_id,
    code_verifier: p.verifier,
    resource: opts.resource ?? `${t.url}/mcp`,
  });
  if (tok.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(tok.body)}`);
  return {
    client,
    browser,
    tokens: tok.body as { access_token: string; refresh_token: string; token_type: string; scope: string },
  };
}

/** One MCP tool call over Streamable HTTP, stateless (a fresh session per call), with optional headers. */
export async function mcpCallAt(
  url: string,
  tool: string,
  args: Record<string, unknown>,
  headers: Record<string, string> = {},
  /** Run once the session is open, just before the tool call is sent. */
  beforeCall?: () => void,
): Promise<{ status: number; headers: Headers; body: any }> {
  const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers };
  const init = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: h,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  const sid = init.headers.get('mcp-session-id') ?? '';
  await init.text();
  await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...h, 'mcp-session-id': sid },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  beforeCall?.();
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...h, 'mcp-session-id': sid },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: tool, arguments: args } }),
  });
  const text = await res.text();
  const json = text.startsWith('{') ? JSON.parse(text) : JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? 'null');
  return { status: res.status, headers: res.headers, body: json };
}

/** The first free slot of a service `dayOffset` days after the test clock's day. */
export async function firstSlotAt(url: string, dayOffset: number, service = 'svc_haircut'): Promise<string> {
  const r = await mcpCallAt(url, 'usp_availability_query', {
    service_id: service,
    start_date: day(dayOffset),
    end_date: day(dayOffset),
  });
  return r.body.result.structuredContent.slots[0].id;
}

/**
 * An access token for a buyer through a given client (several buyers may share one), with the
 * scopes asked for: signs the buyer up the first time (`signUp`), in after that.
 */
export async function buyerToken(
  t: OAuthTestServer,
  client: { client_id: string },
  who: { email: string; scope?: string; resource?: string; signUp?: boolean },
): Promise<{ access_token: string; scope: string; token_type: string }> {
  const p = pkce();
  const resource = who.resource ?? `${t.url}/mcp`;
  const back = await linkAccount(
    t,
    new Browser(t.url),
    authorizeUrl(t.url, client.client_id, p, { resource, scope: who.scope ?? 'usp:booking usp:history' }),
    {
      email: who.email,
      password: 'correct horse battery',
      signUp: who.signUp ?? true,
    },
  );
  const tok = await tokenRequest(t.url, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    client_id: client.client_id,
    code_verifier: p.verifier,
    resource,
  });
  if (tok.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(tok.body)}`);
  return tok.body;
}
