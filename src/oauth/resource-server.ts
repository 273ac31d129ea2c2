/**
 * The resource-server side: an access token presented on /mcp or the REST API is looked up in the
 * store (opaque tokens: a revoked or expired one is simply gone), checked for its audience (RFC 8707:
 * a token minted for the other door or another server is refused) and, when it is DPoP-bound, for a
 * fresh proof made with the bound key over this very request (RFC 9449 section 7).
 */
import { createHash } from 'node:crypto';
import { EmbeddedJWK, calculateJwkThumbprint, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import type Provider from 'oidc-provider';
import { TokenRefused, htuCandidates, stripQuery, type AccessTokenCheck, type HttpEvidence, type OAuthTokenInfo, type PlatformSummary } from '../security/index.js';
import type { Store } from '../store/index.js';
import { PROFILE_METADATA } from './provider.js';

/** A DPoP proof is accepted this long either side of its `iat`. */
export const DPOP_WINDOW_S = 60;
const DPOP_ALGS = ['ES256', 'EdDSA', 'RS256', 'PS256'];

export interface ResourceServerOptions {
  provider: () => Provider;
  store: Store;
  /** The resource identifier each door answers for. */
  audienceOf: (binding: 'mcp' | 'rest') => string;
  /** Public origins (a proof's `htu` may name any of them). */
  origins: () => readonly string[];
  /** The profile generic hosts (clients that registered none) act under, and what it declares. */
  genericProfile: () => { url: string; summary: PlatformSummary };
}

export function accessTokenVerifier(o: ResourceServerOptions) {
  return async (token: string, how: AccessTokenCheck): Promise<OAuthTokenInfo> => {
    const provider = o.provider();
    // Opaque tokens only (see the provider's resource configuration): anything else is unknown.
    if (token.length > 512 || !/^[A-Za-z0-9_-]+$/.test(token)) throw new TokenRefused('not a token this server issues');
    // A buyer-linked (authorization code) token, or a platform's own (client_credentials) one.
    const at = (await provider.AccessToken.find(token)) ?? (await provider.ClientCredentials.find(token));
    if (!at) throw new TokenRefused('unknown, expired or revoked access token');
    if (at.isExpired) throw new TokenRefused('expired access token');
    const expected = o.audienceOf(how.binding);
    const aud = Array.isArray(at.aud) ? at.aud : [at.aud];
    if (!aud.includes(expected)) throw new TokenRefused(`token for ${String(at.aud)}, this is ${expected}`);
    const jkt = (at as unknown as { jkt?: string }).jkt;
    if (jkt) {
      if (how.scheme !== 'dpop') throw new TokenRefused('a DPoP-bound token presented as Bearer');
      // Wall-clock time, as the authorization server uses for the token's own expiry.
      if (!how.peek) await checkDpopProof(how.http, token, jkt, o, Date.now());
    } else if (how.scheme === 'dpop') {
      throw new TokenRefused('DPoP scheme with a token that is not DPoP-bound');
    }
    const clientId = at.clientId;
    if (!clientId) throw new TokenRefused('token without a client');
    const client = await provider.Client.find(clientId);
    if (!client) throw new TokenRefused('the client of this token is gone');
    const registered = (client as unknown as Record<string, unknown>)[PROFILE_METADATA];
    const generic = o.genericProfile();
    const profile = typeof registered === 'string' ? registered : generic.url;
    const scopes = typeof at.scope === 'string' ? at.scope.split(' ').filter(Boolean) : [];
    return {
      clientId,
      ...('accountId' in at && at.accountId ? { accountId: at.accountId } : {}),
      scopes,
      profile,
      ...(profile === generic.url ? { platform: generic.summary } : { profileRegistered: true }),
    };
  };
}

async function checkDpopProof(http: HttpEvidence | undefined, token: string, jkt: string, o: ResourceServerOptions, now: number): Promise<void> {
  const proof = http?.headers.dpop;
  if (!http || !proof) throw new TokenRefused('DPoP-bound token without a DPoP proof');
  let payload: Record<string, unknown>;
  let jwk: JWK;
  try {
    const header = decodeProtectedHeader(proof);
    if (header.typ !== 'dpop+jwt' || !header.jwk || !DPOP_ALGS.includes(String(header.alg))) throw new Error('bad header');
    const v = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: DPOP_ALGS, currentDate: new Date(now) });
    payload = v.payload as Record<string, unknown>;
    jwk = v.protectedHeader.jwk as JWK;
  } catch (e) {
    throw new TokenRefused(`DPoP proof does not verify: ${(e as Error).message}`);
  }
  if ((await calculateJwkThumbprint(jwk, 'sha256')) !== jkt) throw new TokenRefused('DPoP proof made with another key than the token is bound to');
  if (payload.htm !== http.method) throw new TokenRefused('DPoP htm does not match');
  if (typeof payload.htu !== 'string' || !htuCandidates(http, o.origins()).includes(stripQuery(payload.htu))) throw new TokenRefused('DPoP htu does not match');
  if (typeof payload.iat !== 'number' || Math.abs(payload.iat - now / 1000) > DPOP_WINDOW_S) throw new TokenRefused('DPoP proof too old or from the future');
  if (payload.ath !== createHash('sha256').update(token).digest('base64url')) throw new TokenRefused('DPoP ath does not match the token');
  if (typeof payload.jti !== 'string' || payload.jti.length > 256) throw new TokenRefused('DPoP proof without a jti');
  const jti = payload.jti;
  const fresh = await o.store.transaction((tx) => tx.security.claimJti(`dpop|${jkt}|${jti}`, now, now + 2 * DPOP_WINDOW_S * 1000 + 60_000));
  if (!fresh) throw new TokenRefused('DPoP proof replayed');
}
