/**
 * The doors the `serve` host mounts, each with what it claims and how it says no. The order is the
 * host's: MCP owns its paths outright, the buyer's pages take browser requests on the paths they
 * share with REST, and REST takes everything else (its unknown paths are problem+json 404s).
 */
import { createBuyerPages, isPageRequest, pageRefusal } from '../bindings/pages/index.js';
import {
  createDashboard,
  dashboardRefusal,
  isDashboardRequest,
  type DashboardSessionGate,
} from '../bindings/dashboard/index.js';
import { restCors, type RestApp } from '../bindings/rest/index.js';
import { problemResponse } from '../web/index.js';
import {
  MCP_EXPOSED_HEADERS,
  MCP_HTTP_PATHS,
  MCP_MAX_BODY_BYTES,
  type McpHttpFetch,
  jsonRpcErrorResponse,
  readMcpBody,
} from '../bindings/mcp/index.js';
import type { BusinessScope, Pipeline, ScopeResolver } from '../operations/index.js';
import type { OAuthDoor } from '../oauth/index.js';
import { createRegistryFeedDoor, isRegistryFeedPath, registryFeedRefusal } from '../bindings/registry-feeds/index.js';
import type { MailPreview } from '../mail/index.js';
import { underPaths, type Door } from './host.js';

/** The REST door: the operations table's routes, the profile and the OpenAPI document; CORS for the origins allowed (--cors-origin). */
export function restDoor(app: RestApp, corsOrigins: readonly string[] = []): Door {
  return {
    name: 'rest',
    ...(corsOrigins.length > 0 ? { cors: restCors(corsOrigins) } : {}),
    claims: () => true,
    fetch: (req, env) => app.fetch(req, env),
    refuse: (req, _status, err) => problemResponse(new URL(req.url).pathname, err),
  };
}

/**
 * The MCP door: Streamable HTTP on /mcp, HTTP+SSE on /sse and /messages; browser clients allowed by
 * origin. With OAuth on, a POST /mcp first passes the OAuth door's gate (the 401 challenge for a
 * privileged call without a credential), after the host's checks and body limit.
 */
export function mcpDoor(app: McpHttpFetch, oauth?: OAuthDoor): Door {
  return {
    name: 'mcp',
    claims: underPaths(...MCP_HTTP_PATHS),
    fetch: async (req, env) => {
      if (oauth && req.method === 'POST' && new URL(req.url).pathname === '/mcp') {
        // The body is read once, for the gate and the door alike (the door takes it from its env).
        const body = await readMcpBody(req);
        const challenge = await oauth.mcpGate(req, { body: body.parsed });
        if (challenge) return challenge;
        return app.fetch(req, { ...env, mcpBody: body });
      }
      return app.fetch(req, env);
    },
    refuse: (_req, status, err) => jsonRpcErrorResponse(status, err),
    browsers: { allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'], exposeHeaders: MCP_EXPOSED_HEADERS },
    maxBodyBytes: MCP_MAX_BODY_BYTES,
  };
}

/**
 * The OAuth authorization server (the library's endpoints, RFC 8414 and 9728 metadata) and the
 * buyer's sign-in, consent and account pages, with the generic-host platform profile.
 */
export function oauthDoor(oauth: OAuthDoor): Door {
  return {
    name: 'oauth',
    claims: (_req, path) => oauth.claims(path),
    fetch: (req, env) => oauth.fetch(req, env),
    refuse: (req, status, err) => oauth.refuse(req, status, err),
    // The library writes its answers to the Node response itself.
    writesNodeResponse: true,
  };
}

/** The buyer's pages: checkout, booking page, calendar file, their style sheet. */
export function pagesDoor(pipeline: Pipeline, scopeOf: ScopeResolver): Door {
  // Built on the first page request: most hosted businesses loaded at a time are asked no page.
  let app: ReturnType<typeof createBuyerPages> | undefined;
  return {
    name: 'pages',
    claims: isPageRequest,
    fetch: (req, env) => (app ??= createBuyerPages(pipeline, scopeOf)).fetch(req, env),
    refuse: (_req, status, err) => pageRefusal(status, err),
  };
}

/** The business's dashboard at /admin (its screens, login and style sheet; the admin API keeps the rest of /admin). */
export function dashboardDoor(
  pipeline: Pipeline,
  scopeOf: ScopeResolver<BusinessScope>,
  gate: DashboardSessionGate,
  clientAddress: (req: Request, env: unknown) => string | undefined,
  mailPreview?: () => MailPreview[],
): Door {
  // Built on the first dashboard request (about 25 KB): most hosted businesses loaded at a time have no one signed in.
  let app: ReturnType<typeof createDashboard> | undefined;
  return {
    name: 'dashboard',
    claims: isDashboardRequest,
    fetch: (req, env) =>
      (app ??= createDashboard({ pipeline, scopeOf, gate, clientAddress, mailPreview })).fetch(req, env),
    refuse: (_req, status, err) => dashboardRefusal(status, err),
  };
}

/** The registry's feed door: its platform profile and the businesses' catalog event callbacks. */
export function registryFeedDoor(
  pipeline: Pipeline,
  scopeOf: ScopeResolver,
  clientAddress: (req: Request, env: unknown) => string | undefined,
  accepted: () => void,
): Door {
  const app = createRegistryFeedDoor({ pipeline, scopeOf, clientAddress, accepted });
  return {
    name: 'registry-feeds',
    claims: (_req, path) => isRegistryFeedPath(path),
    fetch: (req, env) => app.fetch(req, env),
    refuse: (req, _status, err) => registryFeedRefusal(req, err),
  };
}
