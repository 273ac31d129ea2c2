/**
 * Per-principal rate limits (spec 10.2.2): a token bucket per principal and class of operation.
 * In-memory per process; a limit is a courtesy to the business, not a correctness guarantee.
 */
export interface RateLimiter {
  /** Seconds to wait when over the limit, or 0 when the call may proceed. */
  take(principal: string, bucket: string, nowMs: number): number;
}

export function tokenBuckets(perMinute: Readonly<Record<string, number>>): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(principal, bucket, nowMs) {
      const limit = perMinute[bucket];
      if (!limit) return 0;
      const key = `${bucket}|${principal}`;
      const b = buckets.get(key) ?? { tokens: limit, at: nowMs };
      b.tokens = Math.min(limit, b.tokens + ((nowMs - b.at) / 60_000) * limit);
      b.at = nowMs;
      if (buckets.size > 100_000) buckets.clear();
      if (b.tokens >= 1) {
        b.tokens -= 1;
        buckets.set(key, b);
        return 0;
      }
      buckets.set(key, b);
      return Math.max(1, Math.ceil(((1 - b.tokens) * 60) / limit));
    },
  };
}
