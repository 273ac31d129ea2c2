/**
 * The business's webhook signing keys (spec 10.1.1): P-256, generated on first start and kept in
 * the store (or supplied by the operator), published in the profile's `keys` and `signing_keys`.
 * Rotation publishes the next key first and signs with it only after an overlap at least as long as
 * a platform may cache the profile (so no platform meets a signature by a key it has not fetched);
 * the key it replaces signs until then and stays published for 7 days after (deliveries on their
 * way still verify).
 */
import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { Store } from '../store/index.js';
import { generateSigningKey } from '../security/index.js';

/** Retired keys stay published this long so in-flight deliveries still verify. */
const RETIRED_KEY_GRACE_MS = 7 * 86_400_000;

/** Seconds a platform may cache the business profile (its Cache-Control max-age, src/bindings/rest/app.ts). */
export const PROFILE_CACHE_SECONDS = 300;

/** Default time between publishing the next key and signing with it: well above the profile's cache lifetime. */
export const DEFAULT_KEY_OVERLAP_MS = 3600_000;

interface StoredKey {
  kid: string;
  private_pem: string;
  public_jwk: JsonWebKey;
  created_ms: number;
  /** When it starts signing (published from `created_ms`); absent: at once. */
  activates_ms?: number;
  /** When a later key took over signing; published for 7 days after. */
  retired_ms?: number;
}

export interface SigningKeyring {
  /** The key that signs at `nowMs` (the latest key already activated). */
  active(nowMs: number): { kid: string; privateKey: KeyObject };
  /** Public JWKs to publish: the next key (waiting to sign), the active key and keys retired less than 7 days ago. */
  published(nowMs: number): JsonWebKey[];
  /**
   * Publish a next key now, signing from `nowMs + overlap`; the current key signs until then and is
   * retired at that instant (still published for 7 days).
   */
  rotate(nowMs: number): Promise<string>;
  list(): Array<{ kid: string; created_ms: number; activates_ms?: number; retired_ms?: number }>;
}

const KV_KEY = 'webhook_signing_keys';

export async function loadKeyring(
  store: Store,
  nowMs: number,
  supplied?: { kid: string; pem: string },
  overlapMs: number = DEFAULT_KEY_OVERLAP_MS,
): Promise<SigningKeyring> {
  if (overlapMs < PROFILE_CACHE_SECONDS * 1000)
    throw new Error(`the key overlap must be at least the profile's cache lifetime (${PROFILE_CACHE_SECONDS} s)`);
  let keys = await store.transaction(async (tx) => {
    const raw = await tx.kv.get(KV_KEY);
    let list: StoredKey[] = raw ? (JSON.parse(raw) as StoredKey[]) : [];
    if (supplied && !list.some((k) => k.kid === supplied.kid)) {
      const priv = createPrivateKey(supplied.pem);
      const pub = publicJwk(createPublicKey(priv), supplied.kid);
      list = list.map((k) => (k.retired_ms ? k : { ...k, retired_ms: nowMs }));
      list.push({
        kid: supplied.kid,
        private_pem: priv.export({ format: 'pem', type: 'pkcs8' }).toString(),
        public_jwk: pub,
        created_ms: nowMs,
      });
    }
    if (!list.some((k) => !k.retired_ms)) list.push(newKey(nowMs));
    await tx.kv.set(KV_KEY, JSON.stringify(list));
    return list;
  });
  // Made on the first signature (a business that sends no webhook parses no private key).
  let cache: Map<string, KeyObject> | undefined;
  const priv = (k: StoredKey) => {
    cache ??= new Map();
    let o = cache.get(k.kid);
    if (!o) cache.set(k.kid, (o = createPrivateKey(k.private_pem)));
    return o;
  };
  const signing = (now: number) => keys.filter((x) => (x.activates_ms ?? x.created_ms) <= now).at(-1) ?? keys[0];
  return {
    active(now) {
      const k = signing(now);
      return { kid: k.kid, privateKey: priv(k) };
    },
    published(now) {
      return keys
        .filter((k) => !k.retired_ms || now - k.retired_ms < RETIRED_KEY_GRACE_MS)
        .map((k) => ({ ...k.public_jwk }));
    },
    async rotate(now) {
      const fresh = { ...newKey(now), activates_ms: now + overlapMs };
      // Whoever signs until the next key takes over: a key still waiting to sign is replaced outright.
      keys = keys.filter((k) => (k.activates_ms ?? k.created_ms) <= now);
      keys = keys.map((k) => (k.retired_ms && k.retired_ms <= now ? k : { ...k, retired_ms: fresh.activates_ms }));
      keys.push(fresh);
      // Forget keys long past their grace period.
      keys = keys.filter((k) => !k.retired_ms || now - k.retired_ms < 4 * RETIRED_KEY_GRACE_MS);
      await store.transaction((tx) => tx.kv.set(KV_KEY, JSON.stringify(keys)));
      return fresh.kid;
    },
    list() {
      return keys.map(({ kid, created_ms, activates_ms, retired_ms }) => ({
        kid,
        created_ms,
        activates_ms,
        retired_ms,
      }));
    },
  };
}

function newKey(nowMs: number): StoredKey {
  const kid = `usp-webhook-${new Date(nowMs).toISOString().slice(0, 10)}-${Math.random().toString(36).slice(2, 8)}`;
  const k = generateSigningKey(kid);
  return {
    kid,
    private_pem: k.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    public_jwk: k.publicJwk,
    created_ms: nowMs,
  };
}

function publicJwk(pub: KeyObject, kid: string): JsonWebKey {
  const j = pub.export({ format: 'jwk' }) as JsonWebKey;
  return { kid, kty: j.kty, crv: j.crv, x: j.x, y: j.y, use: 'sig', alg: 'ES256' } as JsonWebKey;
}
