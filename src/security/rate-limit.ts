/**
 * Rate limits (spec 10.2.2): token buckets per class of operation and per subject, where a call's
 * subjects are its client address, its platform profile URI and its authenticated key. A call takes
 * its cost (a 31-day availability query costs more than reading one service) from every subject's
 * bucket at once, or from none, so a fresh key per request, a fresh profile or a fresh address
 * alone escapes nothing. In-memory per process; a limit is a courtesy to the business, not a
 * correctness guarantee.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** A subject counted in a bucket of its own rather than the call's (a registering host, a whole registry). */
export interface BucketedSubject {
  subject: string;
  bucket: string;
}

export interface RateLimiter {
  /**
   * Take `cost` tokens from the `bucket` of every subject (or the subject's own bucket), all or
   * none. Returns the seconds to wait when any subject is short, or 0 when the call may proceed.
   */
  take(subjects: ReadonlyArray<string | BucketedSubject>, bucket: string, cost: number, nowMs: number): number;
  /**
   * What the subjects have left in `bucket` now, without taking anything: the tightest subject's
   * whole tokens and the seconds until its bucket is full again; null when no subject is limited.
   */
  quota(subjects: ReadonlyArray<string | BucketedSubject>, bucket: string, nowMs: number): RateQuota | null;
  /** Buckets held (bounded by `maxEntries`). */
  size(): number;
}

/** A call's standing in its rate limit, as the IETF draft's RateLimit field states it. */
export interface RateQuota {
  /** The limit's class (the draft's policy name). */
  bucket: string;
  /** Tokens per 60 s window. */
  limit: number;
  /** Whole tokens left. */
  remaining: number;
  /** Seconds until the quota is whole again. */
  reset: number;
}

/**
 * The draft-ietf-httpapi-ratelimit-headers fields for a quota: `RateLimit-Policy` (the class, its
 * quota `q` per window `w`) and `RateLimit` (what is left, `r`, and the seconds to reset, `t`).
 */
export function rateLimitFields(q: RateQuota): { 'RateLimit-Policy': string; RateLimit: string } {
  return {
    'RateLimit-Policy': `"${q.bucket}";q=${q.limit};w=60`,
    RateLimit: `"${q.bucket}";r=${q.remaining};t=${q.reset}`,
  };
}

export interface TokenBucketOptions {
  /**
   * Most buckets kept. Beyond it the least recently used go first: those idle a minute are full
   * anyway, and a subject that is being limited is touched on every call, so filling the table
   * with fresh subjects resets no one who is being held back. Default 100,000.
   */
  maxEntries?: number;
}

/** `perMinute[bucket]`: tokens a subject gets per minute, also the most it can spend at once. */
export function tokenBuckets(perMinute: Readonly<Record<string, number>>, opts: TokenBucketOptions = {}): RateLimiter {
  const maxEntries = opts.maxEntries ?? 100_000;
  // A Map iterates in insertion order: re-inserting on every touch keeps the least recent first.
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(subjects, bucket, cost, nowMs) {
      const states: Array<{ key: string; limit: number; need: number; b: { tokens: number; at: number } }> = [];
      const seen = new Set<string>();
      for (const s of subjects) {
        const b = typeof s === 'string' ? bucket : s.bucket;
        const limit = perMinute[b];
        const key = `${b}|${typeof s === 'string' ? s : s.subject}`;
        if (!limit || seen.has(key)) continue;
        seen.add(key);
        const prior = buckets.get(key);
        const tokens = prior ? Math.min(limit, prior.tokens + (Math.max(0, nowMs - prior.at) / 60_000) * limit) : limit;
        // No call costs more than a full bucket, or it could never pass.
        states.push({ key, limit, need: Math.min(Math.max(cost, 0), limit), b: { tokens, at: nowMs } });
      }
      if (states.length === 0) return 0;
      let wait = 0;
      for (const { b, need, limit } of states)
        if (b.tokens < need) wait = Math.max(wait, Math.ceil(((need - b.tokens) * 60) / limit));
      for (const { key, b, need } of states) {
        if (wait === 0) b.tokens -= need;
        buckets.delete(key);
        buckets.set(key, b);
      }
      while (buckets.size > maxEntries) buckets.delete(buckets.keys().next().value as string);
      return wait === 0 ? 0 : Math.max(1, wait);
    },
    quota(subjects, bucket, nowMs) {
      let tight: RateQuota | null = null;
      for (const s of subjects) {
        const b = typeof s === 'string' ? bucket : s.bucket;
        const limit = perMinute[b];
        if (!limit || b !== bucket) continue;
        const prior = buckets.get(`${b}|${typeof s === 'string' ? s : s.subject}`);
        const tokens = prior ? Math.min(limit, prior.tokens + (Math.max(0, nowMs - prior.at) / 60_000) * limit) : limit;
        const q = {
          bucket: b,
          limit,
          remaining: Math.max(0, Math.floor(tokens)),
          reset: Math.ceil(((limit - tokens) * 60) / limit),
        };
        if (!tight || q.remaining < tight.remaining || (q.remaining === tight.remaining && q.reset > tight.reset))
          tight = q;
      }
      return tight;
    },
    size: () => buckets.size,
  };
}

/**
 * The subject a client address counts as: IPv4 as is (IPv4-mapped IPv6 unwrapped), IPv6 per /64,
 * since one host is routinely given a whole /64 and could otherwise use a fresh address per call.
 */
export function clientAddressKey(address: string): string {
  let a = address.trim();
  if (a.startsWith('[') && a.endsWith(']')) a = a.slice(1, -1);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) return mapped[1];
  if (isIPv4(a)) return a;
  if (!isIPv6(a)) return a;
  const [head, tail = ''] = a.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = a.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
