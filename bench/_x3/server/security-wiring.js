/**
 * How this process authenticates callers: which mechanisms it accepts and publishes, where it
 * fetches platform profiles from (and from where never), the nonce secret, rate limits.
 */
import { randomBytes } from 'node:crypto';
import { hashApiKey, hmacNonces, tokenBuckets } from '../security/index.js';
import { jwkThumbprint, uspRequiredComponents, verifyRequestSignature } from '../security/http-signatures.js';
import { createProfileResolver, findKey } from '../security/platform-profiles.js';
export const DEFAULT_RATE_LIMITS = { holds: 30, bookings: 20 };
export const ACCEPTED_MECHANISMS = ['platform_key_pop', 'booking_scoped_credential', 'http_message_signature', 'api_key'];
export async function buildAuthPolicy(args) {
    const { opts } = args;
    const secretHex = await args.store.transaction(async (tx) => {
        let v = await tx.kv.get('nonce_secret');
        if (!v)
            await tx.kv.set('nonce_secret', (v = randomBytes(32).toString('hex')));
        return v;
    });
    const resolver = opts.profileResolver ??
        createProfileResolver({ allowLoopback: Boolean(opts.allowLoopbackProfiles), allowlist: opts.profileAllowlist, now: () => args.clock.now() });
    const fetchProfiles = opts.fetchProfiles ?? !args.sandbox;
    const limits = opts.rateLimits === false ? undefined : (opts.rateLimits ?? (args.sandbox ? undefined : DEFAULT_RATE_LIMITS));
    const verifySignature = async (http, profileUrl) => {
        const resolveKey = async (keyid) => {
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
    const policy = {
        sandbox: args.sandbox,
        adminKeyHashes: [...(args.business.admin_api_key_hashes ?? []), ...args.adminKeys.map(hashApiKey)],
        platformKeys: args.business.platform_api_keys ?? [],
        audiences: () => [...args.profileUris(), ...(opts.profileUris ?? [])],
        origins: args.origins,
        nonces: hmacNonces(Buffer.from(secretHex, 'hex')),
        requireNonce: Boolean(opts.requireNonce),
        allowEs256: Boolean(opts.allowEs256),
        allowLoopbackProfiles: Boolean(opts.allowLoopbackProfiles),
        checkProfile: fetchProfiles ? async (url) => void (await resolver.resolve(url)) : undefined,
        verifySignature,
        rateLimiter: limits ? tokenBuckets(limits) : undefined,
        accepted: ACCEPTED_MECHANISMS,
    };
    return { policy, resolver };
}
//# sourceMappingURL=security-wiring.js.map