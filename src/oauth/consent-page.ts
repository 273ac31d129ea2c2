/**
 * The consent question inside an authorization: what the assistant asks for, in the buyer's words,
 * and the grant of exactly what the page listed (or the refusal, `access_denied`).
 */
import type { Hono } from 'hono';
import type { Interaction, PagesKit } from './interaction-kit.js';
import { consentPage } from './pages.js';
import { INTERACTION_PATH, USP_SCOPES } from './provider.js';

/** The consent page of the interaction `uid` (the interaction's page once the buyer is signed in). */
export async function consentView(
  k: PagesKit,
  it: Interaction,
  uid: string,
  csrf: { token: string; setCookie?: string },
): Promise<Response> {
  const account = await k.accounts.byId(String(it.details.session?.accountId ?? ''));
  return k.page(
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
}

export function consentRoutes(pages: Hono, k: PagesKit): void {
  pages.post(`${INTERACTION_PATH}/:uid/consent`, async (c) => {
    const it = await k.interaction(c);
    const f = await k.form(c);
    if (!it || !k.csrfOk(c, f) || it.details.prompt.name !== 'consent') return k.expired();
    if (f.decision !== 'allow')
      return k.finish(c, { error: 'access_denied', error_description: 'The buyer did not allow access.' });
    const p = k.options.provider();
    const { prompt, params, session, grantId: existing } = it.details;
    const accountId = String(session?.accountId ?? '');
    const grant = existing
      ? await p.Grant.find(String(existing))
      : new p.Grant({ accountId, clientId: String(params.client_id) });
    if (!grant) return k.expired();
    // Exactly what the consent page listed.
    const g = toGrant(prompt.details);
    if (g.oidc.length > 0) grant.addOIDCScope(g.oidc.join(' '));
    if (g.claims.length > 0) grant.addOIDCClaims(g.claims);
    for (const [indicator, scopes] of Object.entries(g.resource)) grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    return k.finish(c, existing ? {} : { consent: { grantId } });
  });
}

/**
 * What allowing a consent prompt grants, worked out once for the page that asks and the form that
 * grants (the buyer is shown exactly what is granted): the OpenID scopes and claims still missing,
 * and the scopes of each resource (the MCP endpoint, the REST API) still missing. `listed` is the
 * scopes in the order the page names them.
 */
function toGrant(details: unknown): {
  oidc: string[];
  claims: string[];
  resource: Record<string, string[]>;
  listed: string[];
} {
  const d = (details ?? {}) as {
    missingOIDCScope?: unknown;
    missingOIDCClaims?: unknown;
    missingResourceScopes?: unknown;
  };
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
  const listed = [
    ...(USP_SCOPES as readonly string[]).filter((s) => all.has(s)),
    ...[...all].filter((s) => !(USP_SCOPES as readonly string[]).includes(s)),
  ];
  return { oidc, claims: strings(d.missingOIDCClaims), resource, listed };
}
