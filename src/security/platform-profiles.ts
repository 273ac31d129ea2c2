/**
 * Platform profile resolution (spec §8.2.2-8.2.3): a caller-chosen URL fetched as an outbound
 * request, so it is hardened against SSRF. https only; every resolved address vetted before any
 * connection and the connection pinned to the vetted address (no second DNS answer, so no
 * rebinding); no redirects; a deadline and a byte cap enforced while streaming; successes cached
 * for max(60 s, max-age), failures for a sixth of the floor; concurrent resolves share one fetch.
 */
import { isLocalhostName, outboundUrlProblem } from './profile-url.js';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import type { JsonWebKey } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import {
  InvalidProfileUrl,
  ProfileMalformed,
  ProfileNotTrusted,
  ProfileUnreachable,
  SecurityFailure,
} from './failures.js';
import { isLoopbackAddress, isSpecialUseAddress } from './ssrf.js';

// ------------------------------------------------------------------------------------------------
// Types
// ------------------------------------------------------------------------------------------------

/** What a business needs from a platform profile; `raw` keeps the whole document for anything else. */
export interface PlatformProfile {
  url: string;
  /** `usp.version`: the highest protocol version the platform supports (YYYY-MM-DD). */
  version: string;
  /** `usp.capabilities`: reverse-domain keys to capability entries. */
  capabilities: Record<string, unknown>;
  webhook_url?: string;
  /** Top-level `keys` (UCP-canonical), [] when absent. */
  keys: JsonWebKey[];
  /** Top-level `signing_keys` (transition alias), [] when absent. */
  signing_keys: JsonWebKey[];
  raw: Record<string, unknown>;
}

/** One pinned GET: connect to `address` (already vetted) while speaking to `url`'s host (SNI, Host). */
export interface ProfileFetchRequest {
  url: URL;
  address: string;
  family: 4 | 6;
  signal: AbortSignal;
}

export interface ProfileFetchResponse {
  status: number;
  headers: Headers;
  body: AsyncIterable<Uint8Array> | null;
}

/** The transport port. The default speaks node:http/https with `lookup` pinned to the vetted address. */
export type ProfileFetch = (req: ProfileFetchRequest) => Promise<ProfileFetchResponse>;

export interface ProfileResolverOptions {
  /** Development only: allow http://127.0.0.1, http://localhost, http://[::1] and loopback targets. */
  allowLoopback: boolean;
  /** Deadline for DNS, connect, headers and body together; default 3000 ms. */
  timeoutMs?: number;
  /** Body cap; default 256 KiB (the spec says no less than 128 KiB rejects no conformant profile). */
  maxBytes?: number;
  /** Cache floor; default 60 s (spec §8.2.2). Failures are cached for a sixth of it. */
  minTtlSeconds?: number;
  /** Cache ceiling, so removed (compromised) keys age out even under a huge max-age; default 24 h. */
  maxTtlSeconds?: number;
  /** Most profiles kept (least recently used evicted first); default 1000. */
  maxEntries?: number;
  /** Profile URL prefixes trusted; absent means open. A miss is `profile_not_trusted`. */
  allowlist?: string[];
  fetchImpl?: ProfileFetch;
  /** Host name to addresses; default the system resolver (all addresses). */
  lookup?: (host: string) => Promise<string[]>;
  /** Epoch milliseconds; default Date.now. */
  now?: () => number;
  /** Parse the fetched bytes; default parsePlatformProfile (a registry reads business profiles and catalog pages). */
  parse?: (url: string, bytes: Uint8Array) => PlatformProfile;
}

export interface ProfileResolver {
  /** The profile at `url`, or throws InvalidProfileUrl, ProfileNotTrusted, ProfileUnreachable or ProfileMalformed. */
  resolve(url: string): Promise<PlatformProfile>;
  /** Drops any cached answer (success or failure) for `url`. */
  invalidate(url: string): void;
  /**
   * Force-refresh after an unknown `keyid` (spec §8.2.2): drops the cached profile unless this
   * origin was already force-refreshed within the TTL floor. True when the cache was dropped.
   */
  refreshForUnknownKey(url: string): boolean;
}

// ------------------------------------------------------------------------------------------------
// URL and allowlist
// ------------------------------------------------------------------------------------------------

function parseProfileUrl(raw: string, allowLoopback: boolean): URL {
  switch (outboundUrlProblem(raw, allowLoopback, { refuseCredentials: true })) {
    case 'not_absolute':
      throw new InvalidProfileUrl('the profile URL is not an absolute URL');
    case 'credentials':
      throw new InvalidProfileUrl('the profile URL carries credentials');
    case 'not_https':
      throw new InvalidProfileUrl(`the profile URL must use https, not ${new URL(raw).protocol}`);
    default:
      return new URL(raw);
  }
}

/** Prefix match on a boundary, so `https://agent.example` does not admit `https://agent.example.evil`. */
function matchesPrefix(href: string, prefix: string): boolean {
  if (!href.startsWith(prefix)) return false;
  if (href.length === prefix.length || /[/?#]$/.test(prefix)) return true;
  return '/?#'.includes(href[prefix.length]);
}

function cacheKey(url: URL): string {
  const u = new URL(url.href);
  u.hash = '';
  return u.href;
}

// ------------------------------------------------------------------------------------------------
// Fetch: vetted address, pinned connection, deadline, byte cap
// ------------------------------------------------------------------------------------------------

async function defaultLookup(host: string): Promise<string[]> {
  // RFC 6761 6.3: localhost names are loopback without asking DNS (loopback is then refused unless allowed).
  if (isLocalhostName(host)) return ['127.0.0.1'];
  const answers: LookupAddress[] = await dnsLookup(host, { all: true, verbatim: true });
  return answers.map((a) => a.address);
}

/** node:http(s) GET whose DNS lookup always answers the vetted address. */
export const pinnedFetch: ProfileFetch = (req) =>
  new Promise((resolvePromise, reject) => {
    const { url, address, family } = req;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const clientRequest = send(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'usp-server profile resolver' },
        agent: false,
        signal: req.signal,
        lookup: (_host, options, callback) => {
          // Pinning: whatever node asks, the answer is the address vetted before the connection.
          if ((options as { all?: boolean }).all) {
            (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [{ address, family }]);
          } else {
            (callback as (e: null, a: string, f: number) => void)(null, address, family);
          }
        },
      },
      (res: IncomingMessage) => {
        // Errors after an early stop (cap, deadline, unread 3xx body) must not go unhandled; readers see them anyway.
        res.on('error', () => undefined);
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined) continue;
          for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
        }
        resolvePromise({ status: res.statusCode ?? 0, headers, body: res });
      },
    );
    clientRequest.on('error', reject);
    clientRequest.end();
  });

function deadlineError(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(new ProfileUnreachable('the profile fetch timed out'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

async function readCapped(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
  deadline: Promise<never>,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const iterator = body[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), deadline]);
      if (next.done) break;
      total += next.value.byteLength;
      if (total > maxBytes) throw new ProfileUnreachable(`the profile exceeds ${maxBytes} bytes`);
      chunks.push(next.value);
    }
    finished = true;
  } finally {
    // Stopped early (cap, deadline, error): let the body go without waiting for it.
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
  return Buffer.concat(chunks);
}

function maxAgeOf(cacheControl: string | null): number | undefined {
  if (cacheControl === null) return undefined;
  const m = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?\s*(?=,|$)/i.exec(cacheControl);
  return m ? Number(m[1]) : undefined;
}

// ------------------------------------------------------------------------------------------------
// Parsing (forward compatible: unknown members are ignored)
// ------------------------------------------------------------------------------------------------

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function keyArray(doc: Record<string, unknown>, name: 'keys' | 'signing_keys'): JsonWebKey[] {
  const v = doc[name];
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new ProfileMalformed(`${name} is not an array of JWKs`);
  // Entries that are not objects are unusable keys: skipped, not fatal (spec §10.1.1 forward compatibility).
  return v.filter(isObject) as JsonWebKey[];
}

/** Validates a profile document; throws ProfileMalformed. */
function parsePlatformProfile(url: string, bytes: Uint8Array): PlatformProfile {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new ProfileMalformed('the profile is not UTF-8 JSON');
  }
  if (!isObject(doc)) throw new ProfileMalformed('the profile is not a JSON object');
  const usp = doc.usp;
  if (!isObject(usp)) throw new ProfileMalformed('the profile has no usp object');
  if (typeof usp.version !== 'string' || !DATE.test(usp.version))
    throw new ProfileMalformed('usp.version is not YYYY-MM-DD');
  if (!isObject(usp.capabilities)) throw new ProfileMalformed('usp.capabilities is not an object');
  const webhook = doc.webhook_url;
  if (webhook !== undefined && typeof webhook !== 'string') throw new ProfileMalformed('webhook_url is not a string');
  return {
    url,
    version: usp.version,
    capabilities: usp.capabilities,
    ...(webhook !== undefined ? { webhook_url: webhook } : {}),
    keys: keyArray(doc, 'keys'),
    signing_keys: keyArray(doc, 'signing_keys'),
    raw: doc,
  };
}

// ------------------------------------------------------------------------------------------------
// Keys
// ------------------------------------------------------------------------------------------------

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'] as const;

/** A key that can serve signature verification at all; which algorithms the verifier accepts is its own call. */
function usableForVerification(jwk: JsonWebKey): boolean {
  if (typeof jwk.kty !== 'string' || jwk.kty === 'oct') return false;
  if (jwk.use !== undefined && jwk.use !== 'sig') return false;
  if (jwk.key_ops !== undefined && !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes('verify'))) return false;
  return !PRIVATE_MEMBERS.some((m) => (jwk as Record<string, unknown>)[m] !== undefined);
}

/**
 * The key with `kid === keyid`: `keys` first, then `signing_keys` (spec §9.1.4, §10.1.1). Keys that
 * cannot verify anything (no kty, symmetric, `use` other than `sig`, `key_ops` without `verify`,
 * private members) are skipped, never fatal. A key of an algorithm the verifier does not implement
 * is returned, so that the verifier can answer `algorithm_unsupported` rather than `key_not_found`.
 */
export function findKey(profile: Pick<PlatformProfile, 'keys' | 'signing_keys'>, keyid: string): JsonWebKey | null {
  for (const set of [profile.keys, profile.signing_keys]) {
    const hit = set.find((k) => k.kid === keyid && usableForVerification(k));
    if (hit !== undefined) return hit;
  }
  return null;
}

// ------------------------------------------------------------------------------------------------
// Resolver
// ------------------------------------------------------------------------------------------------

type CacheEntry = { expiresAt: number } & (
  | { ok: true; profile: PlatformProfile }
  | { ok: false; failure: SecurityFailure }
);

/**
 * Builds a platform profile resolver. Order per call: URL (`invalid_profile_url`), allowlist
 * (`profile_not_trusted`), cache, then one shared fetch: DNS, every address vetted
 * (`profile_unreachable` for any special-use answer, loopback excepted only with `allowLoopback`),
 * pinned GET, 2xx only (3xx is never followed), byte cap and deadline, then parsing
 * (`profile_malformed`).
 */
export function createProfileResolver(opts: ProfileResolverOptions): ProfileResolver {
  return new LazyResolver(opts);
}

/**
 * The resolver built on its first call: a server makes one, and a deployment hosting many businesses
 * holds one per loaded business, most of which never fetch a profile (its closures and three maps,
 * about 1.3 KB each).
 */
class LazyResolver implements ProfileResolver {
  #built: ProfileResolver | undefined;
  readonly #opts: ProfileResolverOptions;
  constructor(opts: ProfileResolverOptions) {
    this.#opts = opts;
  }
  get #resolver(): ProfileResolver {
    return (this.#built ??= buildResolver(this.#opts));
  }
  resolve(url: string): Promise<PlatformProfile> {
    return this.#resolver.resolve(url);
  }
  invalidate(url: string): void {
    // Nothing cached before the first call.
    this.#built?.invalidate(url);
  }
  refreshForUnknownKey(url: string): boolean {
    return this.#resolver.refreshForUnknownKey(url);
  }
}

function buildResolver(opts: ProfileResolverOptions): ProfileResolver {
  const timeoutMs = opts.timeoutMs ?? 3000;
  const maxBytes = opts.maxBytes ?? 256 * 1024;
  const minTtlMs = (opts.minTtlSeconds ?? 60) * 1000;
  const maxTtlMs = Math.max(minTtlMs, (opts.maxTtlSeconds ?? 86_400) * 1000);
  const negativeTtlMs = minTtlMs / 6;
  const maxEntries = opts.maxEntries ?? 1000;
  const fetchImpl = opts.fetchImpl ?? pinnedFetch;
  const lookup = opts.lookup ?? defaultLookup;
  const now = opts.now ?? Date.now;

  const cache = new Map<string, CacheEntry>();
  const inflight = new Map<string, Promise<PlatformProfile>>();
  const lastForcedRefresh = new Map<string, number>();

  function remember(key: string, entry: CacheEntry): void {
    cache.delete(key);
    cache.set(key, entry);
    while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
  }

  async function vettedAddress(
    url: URL,
    signal: AbortSignal,
    deadline: Promise<never>,
  ): Promise<{ address: string; family: 4 | 6 }> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    if (isIP(host) !== 0) {
      addresses = [host];
    } else {
      try {
        addresses = await Promise.race([lookup(host), deadline]);
      } catch (err) {
        if (err instanceof SecurityFailure) throw err;
        throw new ProfileUnreachable(`DNS lookup of ${host} failed: ${(err as Error).message}`);
      }
    }
    if (signal.aborted) throw new ProfileUnreachable('the profile fetch timed out');
    if (addresses.length === 0) throw new ProfileUnreachable(`${host} has no address`);
    // Every answer is vetted, not only the one we would use: a mixed answer is a rebinding attempt.
    for (const a of addresses) {
      if (isSpecialUseAddress(a) && !(opts.allowLoopback && isLoopbackAddress(a))) {
        throw new ProfileUnreachable(`${host} resolves to the special-use address ${a}`);
      }
    }
    // IPv4 first: verbatim resolver order often puts ::1 first for localhost, where dev servers bind 127.0.0.1.
    const address = addresses.find((a) => isIP(a) === 4) ?? addresses[0];
    return { address, family: isIP(address) === 6 ? 6 : 4 };
  }

  async function fetchProfile(url: URL, key: string): Promise<{ profile: PlatformProfile; ttlMs: number }> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const deadline = deadlineError(controller.signal);
    deadline.catch(() => undefined);
    try {
      const { address, family } = await vettedAddress(url, controller.signal, deadline);
      let res: ProfileFetchResponse;
      try {
        res = await Promise.race([fetchImpl({ url, address, family, signal: controller.signal }), deadline]);
      } catch (err) {
        if (err instanceof SecurityFailure) throw err;
        throw new ProfileUnreachable(`fetching the profile failed: ${(err as Error).message}`);
      }
      if (res.status >= 300 && res.status < 400)
        throw new ProfileUnreachable(`the profile answered ${res.status}; redirects are not followed`);
      if (res.status < 200 || res.status >= 300) throw new ProfileUnreachable(`the profile answered ${res.status}`);
      const declared = Number(res.headers.get('content-length') ?? NaN);
      if (declared > maxBytes) throw new ProfileUnreachable(`the profile declares ${declared} bytes, over ${maxBytes}`);
      let bytes: Uint8Array;
      try {
        bytes = res.body === null ? new Uint8Array(0) : await readCapped(res.body, maxBytes, deadline);
      } catch (err) {
        if (err instanceof SecurityFailure) throw err;
        throw new ProfileUnreachable(`reading the profile failed: ${(err as Error).message}`);
      }
      const profile = (opts.parse ?? parsePlatformProfile)(key, bytes);
      const maxAge = maxAgeOf(res.headers.get('cache-control'));
      const ttlMs = Math.min(maxTtlMs, Math.max(minTtlMs, (maxAge ?? 0) * 1000));
      return { profile, ttlMs };
    } finally {
      clearTimeout(timer);
      controller.abort(); // releases the socket on every path; harmless after success
    }
  }

  function start(url: URL, key: string): Promise<PlatformProfile> {
    const pending = fetchProfile(url, key).then(
      ({ profile, ttlMs }) => {
        remember(key, { ok: true, profile, expiresAt: now() + ttlMs });
        return profile;
      },
      (err: unknown) => {
        if (err instanceof SecurityFailure)
          remember(key, { ok: false, failure: err, expiresAt: now() + negativeTtlMs });
        throw err;
      },
    );
    const shared = pending.finally(() => inflight.delete(key));
    inflight.set(key, shared);
    return shared;
  }

  function keyOf(raw: string): string | null {
    try {
      return cacheKey(new URL(raw));
    } catch {
      return null;
    }
  }

  return {
    async resolve(raw) {
      const url = parseProfileUrl(raw, opts.allowLoopback);
      const key = cacheKey(url);
      if (opts.allowlist !== undefined && !opts.allowlist.some((p) => matchesPrefix(key, p))) {
        throw new ProfileNotTrusted(`${key} is not on the profile allowlist`);
      }
      const cached = cache.get(key);
      if (cached !== undefined) {
        if (cached.expiresAt > now()) {
          remember(key, cached); // refresh LRU position
          if (cached.ok) return cached.profile;
          throw cached.failure;
        }
        cache.delete(key);
      }
      return inflight.get(key) ?? start(url, key);
    },
    invalidate(raw) {
      const key = keyOf(raw);
      if (key !== null) cache.delete(key);
    },
    refreshForUnknownKey(raw) {
      const key = keyOf(raw);
      if (key === null) return false;
      const origin = new URL(key).origin;
      const last = lastForcedRefresh.get(origin);
      if (last !== undefined && now() - last < minTtlMs) return false;
      lastForcedRefresh.set(origin, now());
      if (lastForcedRefresh.size > maxEntries) {
        for (const [o, t] of lastForcedRefresh) if (now() - t >= minTtlMs) lastForcedRefresh.delete(o);
      }
      cache.delete(key);
      return true;
    },
  };
}

/**
 * A JSON document fetched under the same outbound rules (any JSON object, no profile checks): the
 * registry's reading of business profiles and catalog pages. Throws ProfileMalformed when the
 * bytes are not a UTF-8 JSON object.
 */
export function parseJsonDocument(url: string, bytes: Uint8Array): PlatformProfile {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new ProfileMalformed('the document is not UTF-8 JSON');
  }
  if (!isObject(doc)) throw new ProfileMalformed('the document is not a JSON object');
  return { url, version: '', capabilities: {}, keys: [], signing_keys: [], raw: doc };
}
