/**
 * How this process authenticates callers: which mechanisms it accepts and publishes, where it
 * fetches platform profiles from (and from where never), the nonce secret, rate limits.
 */
import { randomBytes } from 'node:crypto';
import type { BusinessDef } from '../domain/index.js';
import {
  type AuthPolicy,
  type HttpEvidence,
  type VerifiedSignature,
  hashApiKey,
  hmacNonces,
  tokenBuckets,
  jwkThumbprint,
  uspRequiredComponents,
  verifyRequestSignature,
  createProfileResolver,
  findKey,
  type ProfileResolver,
} from '../security/index.js';
import type { Store } from '../store/index.js';
import type { Clock } from '../operations/index.js';

export interface SecurityOptions {
  /** Accept http://127.0.0.1 platform profiles and webhook URLs (development; loopback servers only). */
  allowLoopbackProfiles?: boolean;
  /** Challenge every proof for a nonce. */
  requireNonce?: boolean;
  /** Accept ES256 proofs besides EdDSA. */
  allowEs256?: boolean;
  /** Further profile URIs the business is reachable at (accepted as proof `aud`). */
  profileUris?: string[];
  /** Per-principal limits per minute by class; false turns them off. Default on unless sandbox. */
  rateLimits?: Record<string, number> | false;
  /** Platform profile URL prefixes trusted; absent = open. */
  profileAllowlist?: string[];
  /** Fetch platform profiles on privileged calls (default: when not a sandbox). */
  fetchProfiles?: boolean;
  /** Replace the profile resolver (tests). */
  profileResolver?: ProfileResolver;
}

export const DEFAULT_RATE_LIMITS = { holds: 30, bookings: 20 };

export const ACCEPTED_MECHANISMS = ['platform_key_pop', 'booking_scoped_credential', 'http_message_signature', 'api_key'] as const;

export async function buildAuthPolicy(args: {
  business: BusinessDef;
  sandbox: boolean;
  adminKeys: readonly string[];
  store: Store;
  clock: Clock;
  opts: SecurityOptions;
  /** Business profile URIs known at any moment (public URL, listening address). */
  profileUris: () => readonly string[];
  origins: () => readonly string[];
}): Promise<{ policy: AuthPolicy; resolver: ProfileResolver }> {
  const { opts } = args;
  const secretHex = await args.store.transaction(async (tx) => {
    let v = await tx.kv.get('nonce_secret');
    if (!v) await tx.kv.set('nonce_secret', (v = randomBytes(32).toString('hex')));
    return v;
  });
  const resolver =
    opts.profileResolver ??
    createProfileResolver({ allowLoopback: Boolean(opts.allowLoopbackProfiles), allowlist: opts.profileAllowlist, now: () => args.clock.now() });
  const fetchProfiles = opts.fetchProfiles ?? !args.sandbox;
  const limits = opts.rateLimits === false ? undefined : (opts.rateLimits ?? (args.sandbox ? undefined : DEFAULT_RATE_LIMITS));

  const verifySignature = async (http: HttpEvidence, profileUrl: string): Promise<VerifiedSignature> => {
    const resolveKey = async (keyid: string) => {
      let profile = await resolver.resolve(profileUrl);
      let key = findKey(profile, keyid);
      if (!key && resolver.refreshForUnknownKey(profileUrl)) {
        profile = await resolver.resolve(profileUrl);
        key = findKey(profile, keyid);
      }
      return key;
    };
    const v = await verifyRequestSignature({ method: http.method, url: http.url, headers: http.headers, body: http.body }, resolveKey, {
      now: args.clock.now(),
      requiredComponents: (present) => uspRequiredComponents(present),
    });
    return { keyid: v.keyid, thumbprint: jwkThumbprint(v.jwk) };
  };

  const policy: AuthPolicy = {
    sandbox: args.sandbox,
    adminKeyHashes: [...(args.business.admin_api_key_hashes ?? []), ...args.adminKeys.map(hashApiKey)],
    platformKeys: args.business.platform_api_keys ?? [],
    audiences: () => [...args.profileUris(), ...(opts.profileUris ?? [])],
    origins: args.origins,
    nonces: hmacNonces(Buffer.from(secretHex, 'hex')),
    requireNonce: Boolean(opts.requireNonce),
    allowEs256: Boolean(opts.allowEs256),
    allowLoopbackProfiles: Boolean(opts.allowLoopbackProfiles),
    checkProfile: fetchProfiles
      ? async (url) => {
          const p = await resolver.resolve(url);
          return { version: p.version, capabilities: Object.keys(p.capabilities) };
        }
      : undefined,
    verifySignature,
    rateLimiter: limits ? tokenBuckets(limits) : undefined,
    accepted: ACCEPTED_MECHANISMS,
  };
  return { policy, resolver };
}
