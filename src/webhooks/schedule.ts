/**
 * When to try a failed delivery again (spec 10.1.1): exponential backoff, the first retry after
 * 30 s, at most 3 retries and 15 minutes in all, then give up and log. Every number is a setting so
 * tests can run the whole schedule in milliseconds.
 */
export interface RetryPolicy {
  firstRetryMs: number;
  maxRetries: number;
  maxTotalMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { firstRetryMs: 30_000, maxRetries: 3, maxTotalMs: 15 * 60_000 };

/**
 * After attempt number `attempt` (1-based) failed at `nowMs`, for a delivery first tried at
 * `firstMs`: the time of the next attempt, or null to give up.
 */
export function nextAttempt(p: RetryPolicy, attempt: number, firstMs: number, nowMs: number): number | null {
  if (attempt > p.maxRetries) return null;
  const at = nowMs + p.firstRetryMs * 2 ** (attempt - 1);
  return at - firstMs <= p.maxTotalMs ? at : null;
}
