/**
 * Discovery as a platform does it: read a business's profile at `/.well-known/usp`, keep it as
 * long as its HTTP caching headers allow (revalidating with its validator once stale), agree on
 * the capabilities both sides speak (pruning extensions whose base is not agreed), and choose the
 * binding (REST or MCP) the business offers.
 */
import type { JsonWebKey } from 'node:crypto';
import { UspError, fromProblem, transportError, verificationError } from './errors.js';

export interface CapabilityEntry {
  version: string;
  extends?: string | string[];
  [k: string]: unknown;
}

export interface ServiceBinding {
  version?: string;
  transport: 'rest' | 'mcp' | string;
  endpoint: string;
}

/** A business profile as published (only the members the client reads are typed). */
export interface BusinessProfile {
  usp: {
    version: string;
    services?: Record<string, ServiceBinding[]>;
    capabilities: Record<string, CapabilityEntry[]>;
    business?: { name?: string; timezone?: string; currency?: string; [k: string]: unknown };
    [k: string]: unknown;
  };
  authorization?: {
    privileged_operations_require_authentication?: boolean;
    accepted_mechanisms?: string[];
    pop_algorithms?: string[];
    [k: string]: unknown;
  };
  keys?: JsonWebKey[];
  signing_keys?: JsonWebKey[];
  [k: string]: unknown;
}

export interface CachedProfile {
  url: string;
  profile: BusinessProfile;
  /** Epoch ms after which the profile must be revalidated. */
  freshUntil: number;
  etag?: string;
  lastModified?: string;
}

/** The profile URL of a business given its base URL (or the profile URL itself). */
export function profileUrlOf(business: string): string {
  const u = new URL(business);
  if (u.pathname.endsWith('/.well-known/usp')) return u.toString();
  return new URL('/.well-known/usp', u).toString();
}

/** Epoch ms until which an answer may be reused, from Cache-Control (no-store, no-cache, max-age), Age and Expires. */
export function freshnessOf(headers: Headers, now: number): number {
  const cc = (headers.get('cache-control') ?? '').toLowerCase();
  if (/\b(no-store|no-cache)\b/.test(cc)) return now;
  const maxAge = /\bmax-age=(\d+)/.exec(cc);
  const age = Number(headers.get('age') ?? 0) || 0;
  if (maxAge) return now + Math.max(0, Number(maxAge[1]) - age) * 1000;
  const expires = Date.parse(headers.get('expires') ?? '');
  const date = Date.parse(headers.get('date') ?? '');
  if (Number.isFinite(expires)) return now + Math.max(0, expires - (Number.isFinite(date) ? date : now));
  return now;
}

export interface ProfileCacheOptions {
  fetch?: typeof fetch;
  now?: () => number;
  timeoutMs?: number;
}

/** Business profiles by URL, reused while fresh, revalidated (If-None-Match / If-Modified-Since) when stale. */
export class ProfileCache {
  private readonly entries = new Map<string, CachedProfile>();
  private readonly fetch: typeof fetch;
  private readonly now: () => number;
  private readonly timeoutMs: number;
  /** Requests sent to businesses (a test reads it to see the cache at work). */
  requests = 0;

  constructor(o: ProfileCacheOptions = {}) {
    this.fetch = o.fetch ?? globalThis.fetch;
    this.now = o.now ?? Date.now;
    this.timeoutMs = o.timeoutMs ?? 10_000;
  }

  /** The profile at `url`; `force` revalidates even a fresh one (after a key the profile did not list). */
  async get(url: string, o: { force?: boolean } = {}): Promise<CachedProfile> {
    const cached = this.entries.get(url);
    const now = this.now();
    if (cached && !o.force && cached.freshUntil > now) return cached;
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (cached?.etag) headers['If-None-Match'] = cached.etag;
    if (cached?.lastModified) headers['If-Modified-Since'] = cached.lastModified;
    let res: Response;
    try {
      this.requests++;
      res = await this.fetch(url, { headers, redirect: 'manual', signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      if (err instanceof UspError) throw err;
      throw transportError(`the business profile at ${url} could not be read: ${(err as Error).message}`, 1);
    }
    if (res.status === 304 && cached) {
      await res.text();
      const next = { ...cached, freshUntil: freshnessOf(res.headers, now) };
      this.entries.set(url, next);
      return next;
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (res.status !== 200) {
      if (res.status >= 500) throw transportError(`the business profile at ${url} answered HTTP ${res.status}`, 1);
      throw fromProblem(res.status, body);
    }
    const profile = checkProfile(url, body);
    const entry: CachedProfile = {
      url,
      profile,
      freshUntil: freshnessOf(res.headers, now),
      ...(res.headers.get('etag') ? { etag: res.headers.get('etag')! } : {}),
      ...(res.headers.get('last-modified') ? { lastModified: res.headers.get('last-modified')! } : {}),
    };
    this.entries.set(url, entry);
    return entry;
  }
}

/** A profile the client can use, or a verification error saying why not. */
export function checkProfile(url: string, body: any): BusinessProfile {
  const bad = (why: string): never => {
    throw verificationError('profile_malformed', `the business profile at ${url} ${why}`);
  };
  if (!body || typeof body !== 'object') bad('is not a JSON object');
  if (!body.usp || typeof body.usp.version !== 'string') bad('has no usp.version');
  if (!body.usp.capabilities || typeof body.usp.capabilities !== 'object') bad('has no usp.capabilities');
  return body as BusinessProfile;
}

/** What both sides agreed on: the protocol version and, per capability, the business's entry. */
export interface Negotiated {
  version: string;
  capabilities: Record<string, CapabilityEntry>;
  /** Capabilities dropped because the base they extend was not agreed. */
  pruned: string[];
}

const basesOf = (e: CapabilityEntry): string[] => (Array.isArray(e.extends) ? e.extends : e.extends ? [e.extends] : []);

/**
 * Capability negotiation as the platform side computes it: the capabilities both declare (at a
 * version both list; the newest such), then, repeatedly, drop an extension whose base is gone.
 */
export function negotiate(business: BusinessProfile, platform: Record<string, Array<{ version: string }>>): Negotiated {
  const agreed: Record<string, CapabilityEntry> = {};
  for (const [name, entries] of Object.entries(business.usp.capabilities ?? {})) {
    const mine = new Set((platform[name] ?? []).map((e) => e.version));
    const common = (Array.isArray(entries) ? entries : [])
      .filter((e) => mine.has(e.version))
      .sort((a, b) => b.version.localeCompare(a.version));
    if (common[0]) agreed[name] = common[0];
  }
  const pruned: string[] = [];
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, entry] of Object.entries(agreed)) {
      const bases = basesOf(entry);
      if (bases.length > 0 && !bases.some((b) => b in agreed)) {
        delete agreed[name];
        pruned.push(name);
        changed = true;
      }
    }
  }
  return { version: business.usp.version, capabilities: agreed, pruned };
}

/** The platform capabilities that declare everything a business offers (at the business's versions). */
export function capabilitiesOf(business: BusinessProfile): Record<string, Array<{ version: string }>> {
  const out: Record<string, Array<{ version: string }>> = {};
  for (const [name, entries] of Object.entries(business.usp.capabilities ?? {})) {
    out[name] = (Array.isArray(entries) ? entries : []).map((e) => ({ version: e.version }));
  }
  return out;
}

/** The endpoint of each binding the business offers for its services. */
export function bindingsOf(profile: BusinessProfile): { rest?: string; mcp?: string } {
  const out: { rest?: string; mcp?: string } = {};
  for (const b of profile.usp.services?.['dev.usp-protocol.services'] ?? []) {
    if ((b.transport === 'rest' || b.transport === 'mcp') && typeof b.endpoint === 'string' && !out[b.transport])
      out[b.transport] = b.endpoint;
  }
  return out;
}
