/**
 * The OAuth 2.0 authorization server, built on oidc-provider (OpenID-certified, MIT), configured for
 * USP (spec 10.2.3, 10.2.4) and the MCP authorization specification:
 * - authorization code with PKCE S256 required for every client, `iss` in every authorization
 *   response (RFC 9207), refresh tokens rotated on use, `client_credentials` for platforms;
 * - resource indicators (RFC 8707): a token is minted for one of this business's resources (its
 *   MCP endpoint, or its REST API) and for nothing else;
 * - DPoP (RFC 9449) binds tokens when the client proves a key; revocation (RFC 7009) and
 *   introspection; Dynamic Client Registration (RFC 7591) and Client ID Metadata Documents;
 * - every record and secret in our store.
 */
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { OAUTH_SCOPES } from '../operations/index.js';
import type { PopAlgorithm } from '../security/index.js';
import type { Store } from '../store/index.js';
import { storeAdapter, type AdapterHooks } from './adapter.js';
import { redirectUriProblem } from './redirect-uris.js';
import type { OAuthSecrets } from './secrets.js';

/** The scopes of identity linking (spec 10.2.4), as the operations table requires them. */
export const USP_SCOPES = OAUTH_SCOPES;

/** The DPoP algorithms the authorization server advertises and its resource server accepts (one list). */
export const DPOP_ALGS = ['ES256', 'EdDSA', 'RS256', 'PS256'] as const satisfies readonly PopAlgorithm[];

/** Client metadata member naming the USP platform profile a registered client acts under (10.1.6). */
export const PROFILE_METADATA = 'usp_platform_profile';

export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/logout',
  pushed_authorization_request: '/oauth/par',
} as const;

export const INTERACTION_PATH = '/oauth/interaction';

export const TOKEN_TTL_S = {
  AccessToken: 3600,
  AuthorizationCode: 60,
  RefreshToken: 30 * 86400,
  Grant: 365 * 86400,
  Session: 14 * 86400,
  Interaction: 3600,
  ClientCredentials: 3600,
};

export interface ProviderOptions {
  issuer: string;
  store: Store;
  secrets: OAuthSecrets;
  /** The resource identifiers tokens may be minted for (the MCP endpoint, the REST API). */
  resources: () => readonly string[];
  /** The resource a request without `resource` gets (the MCP endpoint). */
  defaultResource: () => string;
  /** Whether a platform profile URL is acceptable (https; loopback only in development). */
  profileUrlProblem: (url: string) => string | undefined;
  /** Whether a Client ID Metadata Document may be fetched from this URL (SSRF rules). */
  allowMetadataFetch: (url: string) => boolean;
  /** Every document the library fetches (Client ID Metadata Documents): the pinned, SSRF-safe GET. */
  fetch: (url: string) => Promise<Response>;
  /** What the storage adapter adds to client and token records (registration ownership and expiry). */
  hooks?: AdapterHooks;
  findAccount: (id: string) => Promise<{ email: string; name: string } | null>;
  /** The look of the library's own error page (our page style, nothing from another origin). */
  renderError: (error: { error: string; error_description?: string }) => {
    status: number;
    html: string;
    headers: Record<string, string>;
  };
}

export function createProvider(lib: typeof import('oidc-provider'), o: ProviderOptions): Provider {
  const { errors } = lib;
  const config: Configuration = {
    adapter: storeAdapter(o.store, errors, () => Date.now(), o.hooks) as unknown as Configuration['adapter'],
    jwks: o.secrets.jwks as Configuration['jwks'],
    cookies: { keys: o.secrets.cookieKeys },
    routes: OAUTH_ROUTES,
    scopes: ['openid', 'offline_access', ...USP_SCOPES],
    claims: { openid: ['sub'], email: ['email'], profile: ['name'] },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      id_token_signed_response_alg: 'ES256',
      token_endpoint_auth_method: 'client_secret_basic',
    },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    enabledJWA: { dPoPSigningAlgValues: [...DPOP_ALGS] },
    // PKCE for every client, confidential ones included (spec 10.2.4); the library knows only S256.
    pkce: { required: () => true },
    responseTypes: ['code'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      dPoP: { enabled: true },
      revocation: { enabled: true },
      introspection: { enabled: true },
      userinfo: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      rpInitiatedLogout: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => o.defaultResource(),
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          // `https://salon.example` and `https://salon.example/` name one resource (RFC 3986 section
          // 6.2.3; the MCP authorization spec recommends the form without the slash); the audience
          // is always the canonical form, the one the resource server checks.
          const audience = canonicalResource(indicator);
          if (audience === undefined || !o.resources().some((r) => canonicalResource(r) === audience))
            throw new errors.InvalidTarget('this authorization server issues tokens only for this business');
          return {
            scope: USP_SCOPES.join(' '),
            audience,
            accessTokenTTL: TOKEN_TTL_S.AccessToken,
            accessTokenFormat: 'opaque',
          };
        },
      },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        allowFetch: async (_ctx: unknown, clientId: string) => o.allowMetadataFetch(clientId),
      } as never,
    },
    extraClientMetadata: {
      properties: [PROFILE_METADATA],
      // Called once per client for each extra member (present or not), with the whole metadata:
      // the redirect URI rule is checked here too, for registered and metadata-document clients alike.
      validator(_ctx, key, value, metadata) {
        if (key !== PROFILE_METADATA) return;
        const m = metadata as { redirect_uris?: unknown; application_type?: string };
        for (const uri of Array.isArray(m.redirect_uris) ? m.redirect_uris : []) {
          const problem = redirectUriProblem(String(uri), m.application_type);
          if (problem) throw new errors.InvalidRedirectUri(`a redirect URI ${problem}`);
        }
        if (value === undefined) return;
        const problem = typeof value === 'string' ? o.profileUrlProblem(value) : 'is not a string';
        if (problem) throw new errors.InvalidClientMetadata(`${PROFILE_METADATA} ${problem}`);
      },
    },
    fetch: (url) => o.fetch(url instanceof Request ? url.url : String(url)),
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: async () => false,
    ttl: { ...TOKEN_TTL_S, IdToken: 3600 },
    allowOmittingSingleRegisteredRedirectUri: false,
    findAccount: async (_ctx, sub) => {
      const a = await o.findAccount(sub);
      if (!a) return undefined;
      return { accountId: sub, claims: async () => ({ sub, email: a.email, name: a.name }) };
    },
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    renderError: async (ctx: KoaContextWithOIDC, out) => {
      const r = o.renderError(out as { error: string; error_description?: string });
      for (const [k, v] of Object.entries(r.headers)) ctx.set(k, v);
      ctx.type = 'html';
      ctx.body = r.html;
    },
  };
  const provider = new lib.Provider(o.issuer, config);
  // The door overwrites Host and X-Forwarded-Host/Proto with the public origin before the library
  // sees a request (public-origin.ts), so the library reads them: every URL it publishes (metadata
  // endpoints, the resume URL, the htu DPoP proofs must name) is then the public one.
  provider.proxy = true;
  // The metadata document is the same for every request: caches may keep it a while.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path === '/.well-known/openid-configuration' && ctx.status === 200)
      ctx.set('Cache-Control', `public, max-age=${METADATA_MAX_AGE_S}`);
  });
  return provider;
}

/** How long clients and caches may keep a metadata document (authorization server and protected resource). */
export const METADATA_MAX_AGE_S = 300;

/** A resource indicator in its canonical form (`new URL().href`: an origin gains its `/`), or undefined when it is no absolute URL. */
export function canonicalResource(indicator: string): string | undefined {
  try {
    return new URL(indicator).href;
  } catch {
    return undefined;
  }
}
