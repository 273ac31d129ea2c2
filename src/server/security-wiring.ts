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
import type { Clock, RateBucket } from '../operations/index.js';

export interface SecurityOptions {
  /** Accept http://127.0.0.1 platform profiles and webhook URLs (development; loopback servers only). */
  allowLoopbackProfiles?: boolean;
  /** Challenge every proof for a nonce. */
  requireNonce?: boolean;
  /** Accept ES256 proofs besides EdDSA. */
  allowEs256?: boolean;
  /** Further profile URIs the business is reachable at (accepted as proof `aud`). */
  profileUris?: string[];
  /**
   * Tokens per minute by class (`public`, `reads`, `holds`, `bookings`), applied per client address,
   * per profile URI and per key; merged over the defaults (0 turns a class off); false turns all off.
   * Default DEFAULT_RATE_LIMITS, or SANDBOX_RATE_LIMITS in a sandbox.
   */
  rateLimits?: Partial<Record<RateBucket, number>> | false;
  /** Most rate-limit buckets kept in memory (least recently used evicted first). Default 100,000. */
  rateLimitEntries?: number;
  /** Milliseconds on a monotonic clock for token refill (default performance.now); tests freeze it. */
  rateClock?: () => number;
  /** Platform profile URL prefixes trusted; absent = open. */
  profileAllowlist?: string[];
  /** Fetch platform profiles on privileged calls (default: when not a sandbox). */
  fetchProfiles?: boolean;
  /** Replace the profile resolver (tests). */
  profileResolver?: ProfileResolver;
}

/** Tokens per minute per subject. A 31-day availability query costs 31 tokens of `public`, any other call 1. */
const DEFAULT_RATE_LIMITS: Readonly<Record<RateBucket, number>> = {
  public: 1200,
  reads: 300,
  holds: 30,
  bookings: 20,
  registrations: 6,
  registrations_total: 120,
};

/** The sandbox (the demo, tests, the curl walkthrough) is ten times as generous, but not unlimited. */
const SANDBOX_RATE_LIMITS: Readonly<Record<RateBucket, number>> = {
  public: 12_000,
  reads: 3_000,
  holds: 300,
  bookings: 200,
  registrations: 60,
  registrations_total: 1200,
};

const ACCEPTED_MECHANISMS = [
  'platform_key_pop',
  'booking_scoped_credential',
  'http_message_signature',
  'api_key',
] as const;

export async function buildAuthPolicy(args: {
  /** The business's own key lists (none for a role without a business). */
  keys: Pick<BusinessDef, 'admin_api_key_hashes' | 'platform_api_keys'>;
  sandbox: boolean;
  adminKeys: readonly string[];
  store: Store;
  clock: Clock;
  opts: SecurityOptions;
  /** Business profile URIs known at any moment (public URL, listening address). */
  profileUris: () => readonly string[];
  origins: () => readonly string[];
}): Promise<{
  policy: AuthPolicy;
  resolver: ProfileResolver;
  limits: Readonly<Record<RateBucket, number>> | undefined;
}> {
  const { opts } = args;
  const secretHex = await args.store.transaction(async (tx) => {
    let v = await tx.kv.get('nonce_secret');
    if (!v) await tx.kv.set('nonce_secret', (v = randomBytes(32).toString('hex')));
    return v;
  });
  const resolver =
    opts.profileResolver ??
    createProfileResolver({
      allowLoopback: Boolean(opts.allowLoopbackProfiles),
      allowlist: opts.profileAllowlist,
      now: () => args.clock.now(),
    });
  const fetchProfiles = opts.fetchProfiles ?? !args.sandbox;
  const limits =
    opts.rateLimits === false
      ? undefined
      : { ...(args.sandbox ? SANDBOX_RATE_LIMITS : DEFAULT_RATE_LIMITS), ...(opts.rateLimits ?? {}) };

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
    const v = await verifyRequestSignature(
      { method: http.method, url: http.url, headers: http.headers, body: http.body },
      resolveKey,
      {
        now: args.clock.now(),
        requiredComponents: (present) => uspRequiredComponents(present),
      },
    );
    return { keyid: v.keyid, thumbprint: jwkThumbprint(v.jwk) };
  };

  const policy: AuthPolicy = {
    sandbox: args.sandbox,
    adminKeyHashes: [...(args.keys.admin_api_key_hashes ?? []), ...args.adminKeys.map(hashApiKey)],
    platformKeys: args.keys.platform_api_keys ?? [],
    findPlatformKey: (sha256) => args.store.read((tx) => tx.admin.platformKeyByHash(sha256)),
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
    rateLimiter: limits ? tokenBuckets(limits, { maxEntries: opts.rateLimitEntries }) : undefined,
    rateClock: opts.rateClock,
    accepted: ACCEPTED_MECHANISMS,
  };
  return { policy, resolver, limits };
}

/**
 * The policy as the pipeline holds it, once every part is composed (the authorization server's
 * token verifier included): frozen, so no door or later start-up step can change how callers are
 * authenticated behind the pipeline's back.
 */
export function freezePolicy(policy: AuthPolicy): AuthPolicy {
  return Object.freeze({
    ...policy,
    adminKeyHashes: Object.freeze([...policy.adminKeyHashes]),
    platformKeys: Object.freeze(policy.platformKeys.map((k) => Object.freeze({ ...k }))),
    accepted: Object.freeze([...policy.accepted]),
  });
}
