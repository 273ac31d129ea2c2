/**
 * Who is calling a privileged operation, proven how (spec 10.1.6, 9.1.4, 9.2.2). Every mechanism
 * folds into one answer: an authenticated principal (the key, never the profile URI), or one
 * AuthFailure naming the spec's code. The precise cause goes to `logDetail` only.
 *
 * Principals: `jkt:<thumbprint>` (platform_key_pop), `sig:<thumbprint>` (RFC 9421 with a key from
 * the platform profile), `key:<id>` (a pre-established API key), `business` (the business's own
 * admin key), `oauth:<client_id>` (a platform's own OAuth access token from this business's
 * authorization server) and `oauth:<client_id>#<account>` (a buyer-linked one: the buyer through
 * that client, so buyers sharing one hosted assistant never act on each other's bookings). A
 * booking-scoped credential adds access to one resource on top of (or instead of) a principal.
 */
import type { SecurityRepo } from '../store/index.js';
import { ISSUED_KEY_PREFIX, apiKeyMatches, hashApiKey } from './api-key.js';
import { credentialHash } from './credentials.js';
import { argumentsDigest } from './jcs.js';
import { PopFailure, POP_IAT_WINDOW_S, stripQuery, verifyPopProof } from './pop.js';
import { checkProfileUrl } from './profile-url.js';
import { POP_PUBLIC, businessOnly, guarded, insufficientScope, popError, refuseToken } from './auth-refusals.js';
import {
  TokenRefused,
  authFailure,
  type AuthPolicy,
  type AuthRequest,
  type AuthenticatedCaller,
  type HttpEvidence,
  type OAuthTokenInfo,
} from './auth-contract.js';

export { AuthFailure, TokenRefused } from './auth-contract.js';
export type {
  AccessTokenCheck,
  AuthFailureCode,
  AuthPolicy,
  AuthRequest,
  AuthenticatedCaller,
  HttpEvidence,
  McpAuthorization,
  OAuthTokenInfo,
  PlatformSummary,
  VerifiedSignature,
} from './auth-contract.js';

const fail = authFailure;

export async function authenticateRequest(
  req: AuthRequest,
  policy: AuthPolicy,
  repo: () => Promise<SecurityRepo>,
  now: number,
): Promise<AuthenticatedCaller> {
  const profile = req.profile;
  // An OAuth token fixes the profile itself (checked against the token); every other path needs an
  // acceptable profile URL.
  const urlProblem = profile !== null ? checkProfileUrl(profile, policy.sandbox || policy.allowLoopbackProfiles) : null;
  const acceptableProfile = () => {
    if (urlProblem) throw fail('invalid_profile_url', 'invalid_profile_url', `The platform profile URL ${urlProblem}.`);
  };
  const auth = req.mcp?.authorization;
  const headers = req.http?.headers ?? {};

  // Gather what was presented on either binding.
  let apiKey: string | undefined;
  let credentialValue: string | undefined;
  let proof: string | undefined;
  let oauthToken: { value: string; scheme: 'bearer' | 'dpop' } | undefined;
  if (req.binding === 'mcp' && auth) {
    switch (auth.mechanism) {
      case 'api_key':
        if (!auth.credential)
          throw fail('authentication_required', 'credential_missing', 'mechanism api_key needs a credential.');
        // A booking-scoped credential is never taken for an API key, whatever the mechanism says (spec 9.2.4 item 8).
        if (auth.credential.startsWith('bsc_')) credentialValue = auth.credential;
        else apiKey = auth.credential;
        break;
      case 'platform_key_pop':
        if (!auth.proof) throw fail('pop_proof_required', 'pop_proof_missing', POP_PUBLIC.pop_proof_missing);
        proof = auth.proof;
        credentialValue = auth.credential;
        break;
      case 'booking_scoped_credential':
        if (!auth.credential)
          throw fail(
            'authentication_required',
            'credential_missing',
            'mechanism booking_scoped_credential needs a credential.',
          );
        credentialValue = auth.credential;
        proof = auth.proof;
        break;
      case 'http_message_signature':
        break;
      case 'oauth2_bearer':
        // An access token riding in the call (stdio); over HTTP it may stay on the Authorization header instead.
        if (!policy.verifyAccessToken)
          throw fail('authentication_required', 'mechanism_not_accepted', 'OAuth access tokens are not accepted here.');
        if (auth.credential) oauthToken = { value: auth.credential, scheme: 'bearer' };
        else if (!headers.authorization)
          throw fail(
            'authentication_required',
            'credential_missing',
            'mechanism oauth2_bearer needs a credential (the access token), or the token on the Authorization header.',
          );
        break;
      default:
        // Unknown mechanisms fail closed (spec 10.1.6 forward compatibility).
        throw fail(
          'authentication_required',
          'mechanism_not_accepted',
          `The mechanism ${JSON.stringify(auth.mechanism).slice(0, 80)} is not accepted here.`,
        );
    }
  }
  const authz = headers.authorization;
  if (authz) {
    const m = /^(Bearer|DPoP)\s+(\S+)$/i.exec(authz);
    if (!m) throw fail('authentication_required', 'invalid_credential', 'The Authorization header is not understood.');
    const scheme = m[1].toLowerCase() === 'dpop' ? 'dpop' : 'bearer';
    if (oauthToken) {
      // One token per call: the one in the call and the one on the header are the same, and the header's scheme counts.
      if (m[2] !== oauthToken.value) {
        throw fail(
          'authentication_required',
          'conflicting_credentials',
          'The access token in _meta.usp.authorization is not the one on the Authorization header; send one of them.',
        );
      }
      oauthToken.scheme = scheme;
    } else if (m[2].startsWith('bsc_')) credentialValue ??= m[2];
    else if (auth?.mechanism === 'oauth2_bearer') oauthToken = { value: m[2], scheme };
    else if (scheme === 'bearer') apiKey ??= m[2];
    // RFC 9449: a DPoP-bound access token; the DPoP header is then its proof, checked with the token.
    else if (policy.verifyAccessToken) oauthToken = { value: m[2], scheme: 'dpop' };
    else
      throw fail(
        'authentication_required',
        'invalid_credential',
        'DPoP authorization carries a booking-scoped credential.',
      );
  }
  if (req.binding === 'rest' && headers.dpop && !oauthToken) proof = headers.dpop;

  // Spec 9.2.4 item 8: a cnf-bound credential without its proof is absent, and the call is refused
  // rather than carried by another credential presented beside it.
  if (credentialValue !== undefined && proof === undefined && (apiKey !== undefined || oauthToken)) {
    const row = await (await repo()).credential(credentialHash(credentialValue));
    if (row?.jkt)
      throw fail(
        'pop_proof_required',
        'pop_proof_missing',
        POP_PUBLIC.pop_proof_missing,
        'cnf-bound credential without a proof, beside another credential',
      );
  }
  if (oauthToken)
    return (
      (await viaAccessToken(req, policy, now, oauthToken)) ?? refuseToken('unknown, expired or revoked access token')
    );

  // The business itself, or a pre-established platform key.
  if (apiKey !== undefined) {
    if (apiKeyMatches(apiKey, policy.adminKeyHashes)) {
      acceptableProfile();
      return { principal: 'business', profile, business: true, authenticated: true, mechanism: 'api_key' };
    }
    const platformKey = (id: string) => {
      acceptableProfile();
      // A platform's own key never stands in for the business (spec 10.1.6).
      if (req.access === 'business_only') throw businessOnly(`platform key ${id} on a business-only operation`);
      return finish(req, policy, repo, now, {
        principal: `key:${id}`,
        profile,
        business: false,
        authenticated: true,
        mechanism: 'api_key',
      });
    };
    const digest = hashApiKey(apiKey);
    const configured = policy.platformKeys.find((k) => k.sha256 === digest);
    if (configured) return platformKey(configured.id);
    // Keys issued at run time carry their prefix; any other value is first taken for an access token
    // when this business runs an authorization server, so either costs one lookup. On a miss the other is tried.
    const tokenFirst = policy.verifyAccessToken !== undefined && !apiKey.startsWith(ISSUED_KEY_PREFIX);
    const asToken = () => viaAccessToken(req, policy, now, { value: apiKey, scheme: 'bearer' });
    const viaToken = tokenFirst ? await asToken() : null;
    if (viaToken) return viaToken;
    const issued = await policy.findPlatformKey?.(digest);
    if (issued) return platformKey(issued.id);
    const lateToken = policy.verifyAccessToken && !tokenFirst ? await asToken() : null;
    if (lateToken) return lateToken;
    if (policy.verifyAccessToken) refuseToken('neither an API key nor an access token of this business');
    throw fail(
      'authentication_required',
      'invalid_credential',
      'The API key presented is not valid for this business.',
    );
  }
  acceptableProfile();
  if (req.access === 'business_only') throw businessOnly('no business credential on a business-only operation');
  // A public call needs no identity: a signature on it is checked only when it names a profile.
  if (
    req.access === 'public' &&
    credentialValue === undefined &&
    proof === undefined &&
    (!headers['signature-input'] || profile === null)
  ) {
    return { principal: profile, profile, business: false, authenticated: false };
  }

  const sec = await repo();
  const caller: AuthenticatedCaller = { principal: null, profile, business: false, authenticated: false };

  // Steps 1-3: the credential is known and unexpired, demands its proof when bound, and fits the resource.
  let bound: { jkt: string } | undefined;
  if (credentialValue !== undefined) {
    const row = await sec.credential(credentialHash(credentialValue));
    if (!row || row.revoked || row.expires_ms <= now) {
      throw fail(
        'authentication_required',
        'credential_invalid',
        'The booking-scoped credential is unknown, expired or no longer valid.',
      );
    }
    if (row.jkt) {
      bound = { jkt: row.jkt };
      if (!proof)
        throw fail(
          'pop_proof_required',
          'pop_proof_missing',
          POP_PUBLIC.pop_proof_missing,
          'cnf-bound credential without a proof',
        );
    }
    if (!req.resource || req.resource.id !== row.resource_id) {
      throw fail(
        'authentication_required',
        'credential_scope_mismatch',
        'This credential is for a different resource.',
      );
    }
    caller.credential = { kind: row.resource_kind, id: row.resource_id };
    caller.authenticated = true;
    caller.mechanism = 'booking_scoped_credential';
  }

  // Steps 4-12: the proof.
  if (proof !== undefined) {
    let verified;
    try {
      verified = verifyPopProof(proof, {
        binding: req.binding,
        now,
        method: req.binding === 'mcp' ? (req.mcp?.tool ?? '') : (req.http?.method ?? ''),
        audiences: policy.audiences(),
        htu: req.http ? htuCandidates(req.http, policy.origins()) : [],
        argsDigest: req.mcp ? argumentsDigest(req.mcp.rawArguments) : undefined,
        credential: credentialValue !== undefined ? { value: credentialValue, cnf: bound } : undefined,
        nonce: { required: policy.requireNonce, valid: (n) => policy.nonces.valid(n, now) },
        allowEs256: policy.allowEs256,
      });
    } catch (e) {
      if (e instanceof PopFailure) throw popError(e, policy, now);
      throw e;
    }
    if (!(await sec.claimJti(`${verified.jkt}|${verified.jti}`, now, now + 2 * POP_IAT_WINDOW_S * 1000 + 60_000))) {
      throw popError(new PopFailure('pop_proof_replayed', `jti ${verified.jti} seen before`), policy, now);
    }
    caller.principal = `jkt:${verified.jkt}`;
    caller.jkt = verified.jkt;
    caller.authenticated = true;
    caller.mechanism = 'platform_key_pop';
  }

  // RFC 9421 request signatures, keyed off the platform profile's published keys.
  if (headers['signature-input'] || headers.signature) {
    if (!policy.verifySignature)
      throw fail('authentication_required', 'mechanism_not_accepted', 'HTTP message signatures are not accepted here.');
    if (!req.http) throw fail('authentication_required', 'mechanism_not_accepted', 'Signatures need the HTTP request.');
    if (profile === null)
      throw fail('invalid_request', 'profile_required', 'A signed request must name its platform profile (USP-Agent).');
    const sig = await guarded(() => policy.verifySignature!(req.http!, profile));
    caller.profileProven = true;
    if (caller.principal === null) {
      caller.principal = `sig:${sig.thumbprint}`;
      caller.mechanism = 'http_message_signature';
    }
    caller.authenticated = true;
  }

  return finish(req, policy, async () => sec, now, caller);
}

/**
 * An OAuth access token (spec 10.2.3), verified once by the resource server: null when this server
 * never issued it. A buyer-linked token acts for that buyer through its client (the principal names
 * both); a platform's own (client_credentials) token acts as the client. The authorization server's
 * client record fixes the profile, so there is no first-use binding to look up.
 */
async function viaAccessToken(
  req: AuthRequest,
  policy: AuthPolicy,
  now: number,
  token: { value: string; scheme: 'bearer' | 'dpop' },
): Promise<AuthenticatedCaller | null> {
  let info: OAuthTokenInfo | null;
  try {
    info = await policy.verifyAccessToken!(token.value, {
      scheme: token.scheme,
      binding: req.binding,
      http: req.http,
      now,
    });
  } catch (e) {
    if (!(e instanceof TokenRefused)) throw e;
    return refuseToken(e.message);
  }
  if (!info) return null;
  if (req.access === 'business_only') throw businessOnly(`oauth client ${info.clientId} on a business-only operation`);
  const needed = req.scopes ?? [];
  if (needed.length > 0 && !needed.some((s) => info.scopes.includes(s))) throw insufficientScope(needed, info);
  // Spec 10.1.6: a call names the profile the token is bound to, the server's own profile for hosts
  // without one (a host may copy it from the metadata), or none; any other is refused, not re-bound.
  if (req.profile !== null && req.profile !== info.profile && req.profile !== info.genericProfile) {
    throw fail(
      'authentication_required',
      'profile_binding_mismatch',
      `This access token acts for the platform profile ${info.profile}: leave the profile out ` +
        '(_meta.usp.profile, or USP-Agent on REST) and the call acts for it.',
      `${info.clientId} bound to ${info.profile}, presented ${req.profile}`,
    );
  }
  const caller: AuthenticatedCaller = {
    principal: info.accountId ? `oauth:${info.clientId}#${info.accountId}` : `oauth:${info.clientId}`,
    profile: info.profile,
    business: false,
    authenticated: true,
    mechanism: 'oauth2_bearer',
    profileProven: info.profileRegistered === true,
    scopes: info.scopes,
    ...(info.accountId ? { account: info.accountId } : {}),
    ...(info.platform ? { platform: info.platform } : {}),
  };
  if (req.access === 'public') return caller;
  if (policy.checkProfile && !caller.platform) {
    const summary = await guarded(() => policy.checkProfile!(info.profile));
    if (summary) caller.platform = summary;
  }
  return caller;
}

async function finish(
  req: AuthRequest,
  policy: AuthPolicy,
  repo: () => Promise<SecurityRepo>,
  now: number,
  caller: AuthenticatedCaller,
): Promise<AuthenticatedCaller> {
  // Whatever a platform proved, it is not the business.
  if (req.access === 'business_only' && !caller.business)
    throw businessOnly(`${caller.principal ?? 'anonymous'} on a business-only operation`);
  if (req.access === 'public') {
    caller.principal ??= caller.profile;
    // A platform that authenticated on a public read: its profile, when it resolves, says which
    // extensions it negotiated, so their data is left out of the answer (8.3 step 4). A profile that
    // does not resolve changes nothing on a public read: it is answered in full.
    if (caller.authenticated && caller.profile && policy.checkProfile && !caller.platform) {
      const summary = await policy.checkProfile(caller.profile).catch(() => null);
      if (summary) caller.platform = summary;
    }
    return caller;
  }
  if (caller.profile === null) {
    throw fail(
      'invalid_request',
      'profile_required',
      'A platform profile is required on privileged operations (USP-Agent header or _meta.usp.profile).',
      'no profile',
      {
        errors: [{ field: 'profile', message: 'is required' }],
      },
    );
  }
  if (!caller.authenticated) {
    if (!policy.sandbox) {
      throw fail(
        'authentication_required',
        'authentication_missing',
        `This operation requires authentication (${policy.accepted.join(', ')}).`,
      );
    }
    // Sandbox: the profile URI stands in for an identity; nothing is proven.
    caller.principal = caller.profile;
    return caller;
  }
  if (caller.principal !== null && !caller.business) {
    // Trust on first use: a principal keeps the profile URI it first presented; another is profile_binding_mismatch.
    const sec = await repo();
    const mismatch = (boundTo: string | null) =>
      fail(
        'authentication_required',
        'profile_binding_mismatch',
        'This key is bound to a different platform profile.',
        `${caller.principal} bound to ${boundTo}, presented ${caller.profile}`,
      );
    const boundTo = await sec.boundProfile(caller.principal);
    if (boundTo !== null && boundTo !== caller.profile) throw mismatch(boundTo);
    // Only a profile that resolves is recorded: a refused first contact binds nothing.
    if (policy.checkProfile && !caller.platform) {
      const summary = await guarded(() => policy.checkProfile!(caller.profile!));
      if (summary) caller.platform = summary;
    }
    if (boundTo === null) {
      await sec.bindProfile(caller.principal, caller.profile, now);
      // First writer wins (insert-if-absent): a concurrent first contact with another URI loses here.
      const winner = await sec.boundProfile(caller.principal);
      if (winner !== caller.profile) throw mismatch(winner);
    }
  }
  return caller;
}

/** Acceptable `htu` values: the URL as received and the same path on every public origin. */
export function htuCandidates(http: HttpEvidence, origins: readonly string[]): string[] {
  const received = stripQuery(http.url);
  const path = new URL(received).pathname;
  return [received, ...origins.map((o) => o.replace(/\/$/, '') + path)];
}
