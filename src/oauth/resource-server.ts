/**
 * The resource-server side, the one place an access token presented on /mcp or the REST API is
 * verified: looked up in the store with its client in one read (opaque tokens: a revoked or
 * expired one is simply gone), checked for its audience (RFC 8707: a token minted for the other
 * door or another server is refused) and, when it is DPoP-bound, for a fresh proof made with the
 * bound key over this very request (RFC 9449 section 7). What it answers becomes the call's
 * Caller in src/security/authenticate.ts.
 */
import type Provider from 'oidc-provider';
import {
  POP_IAT_WINDOW_S,
  PopFailure,
  TokenRefused,
  htuCandidates,
  verifyPopProof,
  type AccessTokenCheck,
  type HttpEvidence,
  type OAuthTokenInfo,
  type PlatformSummary,
} from '../security/index.js';
import type { Store } from '../store/index.js';
import { DPOP_ALGS, PROFILE_METADATA } from './provider.js';

/** A DPoP proof is accepted this long either side of its `iat` (the proof checker's window). */
export const DPOP_WINDOW_S = POP_IAT_WINDOW_S;

/** The library's models an access token may be stored as: a buyer-linked one (authorization code) or a platform's own (client_credentials). */
const TOKEN_MODELS = ['AccessToken', 'ClientCredentials'] as const;

export interface ResourceServerOptions {
  /** The library, for a client it does not keep in the store (a Client ID Metadata Document). */
  provider: () => Promise<Provider>;
  store: Store;
  /** The resource identifier each door answers for. */
  audienceOf: (binding: 'mcp' | 'rest') => string;
  /** Public origins (a proof's `htu` may name any of them). */
  origins: () => readonly string[];
  /** The profile generic hosts (clients that registered none) act under, and what it declares. */
  genericProfile: () => { url: string; summary: PlatformSummary };
}

/** A token record as the library writes it (the members read here). */
interface TokenPayload {
  clientId?: unknown;
  accountId?: unknown;
  aud?: unknown;
  jkt?: unknown;
  scope?: unknown;
  exp?: unknown;
}

/**
 * Verify an access token: null when this server never issued it (or it is gone: revoked, expired,
 * its grant removed), TokenRefused when it is known but not good for this request. One store read,
 * and one write for a DPoP proof's jti.
 */
export function accessTokenVerifier(o: ResourceServerOptions) {
  return async (token: string, how: AccessTokenCheck): Promise<OAuthTokenInfo | null> => {
    // Opaque tokens only (see the provider's resource configuration): anything else is unknown.
    if (token.length > 512 || !/^[A-Za-z0-9_-]+$/.test(token)) return null;
    // Wall-clock time, as the authorization server uses for the token's own expiry.
    const nowMs = Date.now();
    const found = await o.store.read(async (tx) => {
      for (const model of TOKEN_MODELS) {
        const rec = await tx.oauth.find(model, token, nowMs);
        if (!rec) continue;
        const payload = rec.payload as TokenPayload;
        const client =
          typeof payload.clientId === 'string' ? await tx.oauth.find('Client', payload.clientId, nowMs) : null;
        return { payload, client: client?.payload ?? null };
      }
      return null;
    });
    if (!found) return null;
    const at = found.payload;
    if (typeof at.exp !== 'number' || at.exp * 1000 <= nowMs) return null;
    const expected = o.audienceOf(how.binding);
    const aud = Array.isArray(at.aud) ? at.aud : [at.aud];
    if (!aud.includes(expected)) throw new TokenRefused(`token for ${String(at.aud)}, this is ${expected}`);
    const jkt = typeof at.jkt === 'string' ? at.jkt : undefined;
    if (jkt) {
      if (how.scheme !== 'dpop') throw new TokenRefused('a DPoP-bound token presented as Bearer');
      await checkDpopProof(how.http, token, jkt, o, nowMs);
    } else if (how.scheme === 'dpop') {
      throw new TokenRefused('DPoP scheme with a token that is not DPoP-bound');
    }
    if (typeof at.clientId !== 'string' || !at.clientId) throw new TokenRefused('token without a client');
    const clientId = at.clientId;
    // A client known by its metadata document is not in the store: the library resolves it.
    const client =
      found.client ??
      ((await (await o.provider()).Client.find(clientId)) as unknown as Record<string, unknown> | undefined) ??
      null;
    if (!client) throw new TokenRefused('the client of this token is gone');
    const registered = client[PROFILE_METADATA];
    const generic = o.genericProfile();
    const profile = typeof registered === 'string' ? registered : generic.url;
    const scopes = typeof at.scope === 'string' ? at.scope.split(' ').filter(Boolean) : [];
    return {
      clientId,
      ...(typeof at.accountId === 'string' && at.accountId ? { accountId: at.accountId } : {}),
      scopes,
      profile,
      genericProfile: generic.url,
      ...(profile === generic.url ? { platform: generic.summary } : { profileRegistered: true }),
    };
  };
}

/**
 * RFC 9449 section 7: a fresh DPoP proof over this very request, made with the key the token is
 * bound to and naming the token (`ath`), checked by the one proof checker (src/security/pop.ts);
 * its jti is claimed in the store, so a proof is used once.
 */
async function checkDpopProof(
  http: HttpEvidence | undefined,
  token: string,
  jkt: string,
  o: ResourceServerOptions,
  now: number,
): Promise<void> {
  const proof = http?.headers.dpop;
  if (!http || !proof) throw new TokenRefused('DPoP-bound token without a DPoP proof');
  let jti: string;
  try {
    jti = verifyPopProof(proof, {
      binding: 'rest',
      now,
      method: http.method,
      htu: htuCandidates(http, o.origins()),
      credential: { value: token, cnf: { jkt } },
      algorithms: DPOP_ALGS,
      lenient: true,
    }).jti;
  } catch (e) {
    if (!(e instanceof PopFailure)) throw e;
    throw new TokenRefused(`DPoP proof refused: ${e.detail}`);
  }
  const fresh = await o.store.transaction((tx) =>
    tx.security.claimJti(`dpop|${jkt}|${jti}`, now, now + 2 * DPOP_WINDOW_S * 1000 + 60_000),
  );
  if (!fresh) throw new TokenRefused('DPoP proof replayed');
}
