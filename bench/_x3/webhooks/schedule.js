export const DEFAULT_RETRY = { firstRetryMs: 30_000, maxRetries: 3, maxTotalMs: 15 * 60_000 };
/**
 * After attempt number `attempt` (1-based) failed at `nowMs`, for a delivery first tried at
 * `firstMs`: the time of the next attempt, or null to give up.
 */
export function nextAttempt(p, attempt, firstMs, nowMs) {
    if (attempt > p.maxRetries)
        return null;
    const at = nowMs + p.firstRetryMs * 2 ** (attempt - 1);
    return at - firstMs <= p.maxTotalMs ? at : null;
}
//# sourceMappingURL=schedule.js.map