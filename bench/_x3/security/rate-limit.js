export function tokenBuckets(perMinute) {
    const buckets = new Map();
    return {
        take(principal, bucket, nowMs) {
            const limit = perMinute[bucket];
            if (!limit)
                return 0;
            const key = `${bucket}|${principal}`;
            const b = buckets.get(key) ?? { tokens: limit, at: nowMs };
            b.tokens = Math.min(limit, b.tokens + ((nowMs - b.at) / 60_000) * limit);
            b.at = nowMs;
            if (buckets.size > 100_000)
                buckets.clear();
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
//# sourceMappingURL=rate-limit.js.map