/**
 * The OAuth door on the HTTP host: the authorization server's endpoints (oidc-provider, a Koa app,
 * handed the raw Node request), RFC 8414 and RFC 9728 metadata, the buyer's account pages, the
 * profile generic MCP hosts act under, and the 401 challenge MCP clients start authorization from.
 * It answers only its own paths; everything else goes on to the REST and MCP doors.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type Provider from 'oidc-provider';
import { USP_VERSION, type AuthPolicy, type Logger } from '../operations/index.js';
import {
  createProfileResolver,
  outboundUrlProblem,
  type AccountEvent,
  type PlatformSummary,
  type ProfileResolver,
} from '../security/index.js';
import type { Store } from '../store/index.js';
import { Accounts } from './accounts.js';
import { PasswordResets, type DeliverReset } from './password-reset.js';
import { ACCOUNT_CSS, ACCOUNT_CSS_PATH, layout, messagePage } from './pages.js';
import { clientMetadataFetch } from './client-metadata.js';
import { createInteractionPages, isInteractionPage } from './interaction-pages.js';
import { createMcpGate } from './mcp-gate.js';
import {
  DPOP_ALGS,
  OAUTH_ROUTES,
  PROFILE_METADATA,
  USP_SCOPES,
  canonicalResource,
  createProvider,
} from './provider.js';
import { pinToPublicOrigin } from './public-origin.js';
import { DEFAULT_REGISTRATION_LIMITS, dynamicRegistration, type RegistrationLimits } from './registration.js';
import { accessTokenVerifier } from './resource-server.js';
import { loadOAuthSecrets } from './secrets.js';
import type { BuyerDataPort } from './account-data.js';
import { loadOidcProvider } from './library.js';
import { htmlResponse, pageHeaders, styleSheet } from '../web/index.js';

export interface OAuthDoorOptions {
  store: Store;
  log: Logger;
  sandbox: boolean;
  /** Behind trusted proxies (whose X-Forwarded-* reach the library; the host drops everyone else's). */
  trustProxy: boolean;
  /** The client's rate-limit key as the server resolves it (trusted proxies honoured, IPv6 per /64); undefined without a socket. */
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
  /** How a password reset link reaches the buyer (default: the log). */
  deliverReset?: DeliverReset;
  /** Password reset requests per hour per client address (default RESETS_PER_ADDRESS_HOUR). */
  resetsPerAddressHour?: number;
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
const PRM_MCP_PATH = `${PRM_PATH}/mcp`;
/** The library's own paths, each with what lies below it (the door's claim is asked on every request). */
const PROVIDER_ROOTS: readonly string[] = Object.values(OAUTH_ROUTES);
const SLASH = 0x2f;

type NodeEnv = { incoming: IncomingMessage; outgoing: ServerResponse };

/**
 * Build the door and its resource server (the only contact with the core: the token verifier the
 * composition root puts into the authentication policy, where a verified token becomes a Caller).
 * The door never writes into the policy itself.
 */
export async function mountOAuth(o: OAuthDoorOptions): Promise<OAuthDoor> {
  const base = () => o.baseUrl().replace(/\/$/, '');
  const mcpResource = () => canonicalResource(`${base()}/mcp`)!;
  const restResource = () => canonicalResource(`${base()}/`)!;

  const genericUrl = () => `${base()}${GENERIC_PROFILE_PATH}`;
  const genericSummary = (): PlatformSummary => ({ version: USP_VERSION, capabilities: o.capabilities() });
  const genericDoc = () => ({
    usp: {
      version: USP_VERSION,
      capabilities: Object.fromEntries(o.capabilities().map((k) => [k, [{ version: USP_VERSION }]])),
    },
    name: 'Assistants without a platform profile of their own',
    description: `The platform profile ${o.businessName} applies to an OAuth client (an MCP host) that registered no ${PROFILE_METADATA}. It has no webhook_url: events reach the assistant as MCP notifications on its session.`,
  });

  // The authorization server itself (its secrets, the library's provider, accounts, registration,
  // the buyer's pages) is built on the first request that needs it: most businesses a hosting
  // process has loaded are never asked, and a token is verified from the store without it.
  let built: Promise<AuthorizationServer> | undefined;
  const server = (): Promise<AuthorizationServer> =>
    (built ??= authorizationServer(o, { base, mcpResource, restResource }).catch((err: unknown) => {
      built = undefined;
      throw err;
    }));

  const verify = accessTokenVerifier({
    provider: async () => (await server()).provider(),
    store: o.store,
    audienceOf: (b) => (b === 'mcp' ? mcpResource() : restResource()),
    origins: () => [base()],
    genericProfile: () => ({ url: genericUrl(), summary: genericSummary() }),
  });

  const resourceMetadataUrl = (binding: 'mcp' | 'rest') =>
    binding === 'mcp' ? `${base()}${PRM_PATH}/mcp` : `${base()}${PRM_PATH}`;
  const prm = (resource: string) =>
    Response.json(
      {
        resource,
        authorization_servers: [base()],
        scopes_supported: [...USP_SCOPES],
        bearer_methods_supported: ['header'],
        dpop_signing_alg_values_supported: [...DPOP_ALGS],
        resource_name: o.businessName,
      },
      { headers: { 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' } },
    );

  const isPage = isInteractionPage;
  const mcpGate = createMcpGate(() => ({
    sandbox: o.sandbox,
    log: o.log,
    accepted: o.accepted,
    resourceMetadataUrl: resourceMetadataUrl('mcp'),
  }));
  const isProviderPath = (path: string) =>
    path === '/.well-known/oauth-authorization-server' ||
    path === '/.well-known/openid-configuration' ||
    PROVIDER_ROOTS.some((r) => path === r || (path.startsWith(r) && path.charCodeAt(r.length) === SLASH));
  return {
    genericProfileUrl: genericUrl,
    resourceMetadataUrl,
    resourceServer: { verifyAccessToken: verify, resourceMetadata: resourceMetadataUrl, mechanism: 'oauth2_bearer' },
    mcpGate,
    claims: (path) =>
      path === PRM_MCP_PATH ||
      path === PRM_PATH ||
      path === GENERIC_PROFILE_PATH ||
      path === ACCOUNT_CSS_PATH ||
      isPage(path) ||
      isProviderPath(path),
    async fetch(req, env) {
      const path = new URL(req.url).pathname;
      if (path === PRM_MCP_PATH) return prm(mcpResource());
      if (path === PRM_PATH) return prm(restResource());
      if (path === GENERIC_PROFILE_PATH)
        return Response.json(genericDoc(), { headers: { 'Cache-Control': 'public, max-age=300' } });
      if (path === ACCOUNT_CSS_PATH) return styleSheet(ACCOUNT_CSS);
      if (path === '/.well-known/oauth-authorization-server')
        return (await server()).viaProvider(req, env, '/.well-known/openid-configuration');
      if (isPage(path)) return (await server()).pages.fetch(req, env);
      return (await server()).viaProvider(req, env);
    },
    refuse(req, status, err) {
      const path = new URL(req.url).pathname;
      if (isPage(path)) {
        return htmlResponse(
          layout({
            title: 'Not possible',
            business: o.businessName,
            body: messagePage({ heading: 'This request was refused', text: err.message }),
          }),
          { status },
        );
      }
      // RFC 6749 section 5.2's error object, the format the library's own endpoints answer in.
      const error = status >= 500 ? 'server_error' : 'invalid_request';
      return Response.json(
        { error, error_description: err.message },
        { status, headers: { 'Cache-Control': 'no-store' } },
      );
    },
  };
}

/** The authorization server proper, built on its first request (mountOAuth). */
interface AuthorizationServer {
  provider(): Provider;
  viaProvider(req: Request, env: unknown, rewrite?: string): Promise<Response>;
  pages: ReturnType<typeof createInteractionPages>;
}

async function authorizationServer(
  o: OAuthDoorOptions,
  at: { base: () => string; mcpResource: () => string; restResource: () => string },
): Promise<AuthorizationServer> {
  // The library's module, once per process (not per business), loaded by the first request that
  // needs the authorization server: a server nobody signs in to never loads it (about 600 files).
  const lib = await loadOidcProvider();
  const { base, mcpResource, restResource } = at;
  const secrets = await loadOAuthSecrets(o.store);
  const accounts = new Accounts({
    store: o.store,
    log: o.log,
    deliverCode: o.deliverCode,
    now: o.now,
    perAddressPerMinute: o.loginLimits?.perAddress,
    signupsPerAddressHour: o.loginLimits?.signupsPerAddress,
    onEvent: o.onAccountEvent,
  });
  const cookieKey = Buffer.from(secrets.cookieKeys[0], 'base64url');

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
          html: layout({
            title: 'Sign-in problem',
            business: o.businessName,
            body: messagePage({ heading: 'This link cannot be used', text: errorWords(e.error) }),
          }).toString(),
        }),
      });
      provider.on('server_error', (_ctx: unknown, err: Error) =>
        o.log.error('oauth server error', { error: String(err) }),
      );
      registration.attach(provider);
    }
    return provider;
  };

  // ---- the library's own endpoints, on the raw Node request ------------------------------------
  const viaProvider = async (req: Request, env: unknown, rewrite?: string): Promise<Response> => {
    const node = env as Partial<NodeEnv> | undefined;
    if (!node?.incoming || !node.outgoing) {
      return new Response('The authorization server needs the HTTP listener.', { status: 503 });
    }
    if (rewrite) node.incoming.url = rewrite;
    pinToPublicOrigin(node.incoming, base());
    if (req.method === 'POST' && new URL(req.url).pathname === OAUTH_ROUTES.registration) {
      return registration.handle(req, node as NodeEnv, o.clientAddress(req, env) ?? 'unknown', (incoming) =>
        library(incoming, node.outgoing!),
      );
    }
    return library(node.incoming, node.outgoing);
  };
  const library = async (incoming: IncomingMessage, outgoing: ServerResponse): Promise<Response> => {
    await (getProvider().callback() as (req: IncomingMessage, res: ServerResponse) => Promise<void>)(
      incoming,
      outgoing,
    );
    // The library wrote the answer itself; the listener must not write another.
    return RESPONSE_ALREADY_SENT;
  };

  const resets = new PasswordResets({
    store: o.store,
    log: o.log,
    base,
    deliver: o.deliverReset,
    now: o.now,
    onEvent: o.onAccountEvent,
    perAddressHour: o.resetsPerAddressHour,
  });
  const pages = createInteractionPages({
    provider: getProvider,
    accounts,
    base,
    businessName: o.businessName,
    clientAddress: o.clientAddress,
    buyerData: o.buyerData,
    resets,
  });
  return { provider: getProvider, viaProvider, pages };
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
