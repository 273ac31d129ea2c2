/**
 * What the registry's operations need from outside the store: an SSRF-safe fetch of JSON
 * documents (business profiles and catalog pages), and the freshness and removal rules.
 */

/** A fetch failure, as the security module reports it (its `code` names the cause). */
export interface FetchFailure extends Error {
  code: 'invalid_profile_url' | 'profile_unreachable' | 'profile_malformed' | 'profile_not_trusted';
}

export interface RegistryEnv {
  /**
   * GET a JSON object from `url` through the outbound rules (https; no special-use address unless
   * loopback is allowed for development; no redirects; a deadline and a size cap). Throws a
   * FetchFailure.
   */
  fetchJson(url: string): Promise<Record<string, unknown>>;
  /** Development: http://127.0.0.1 profile URLs are accepted (--allow-loopback-profiles). */
  allowLoopback: boolean;
  /** How long an index stays current before the business is fetched again (at most 24 h). */
  reindexIntervalMs: number;
  /** Consecutive failed re-fetches after which a registration is removed. */
  maxFailures: number;
  /**
   * Told after a registration's catalog was fetched for indexing (the write may still be
   * committing): the registry's host subscribes to the business's catalog feed from here.
   */
  /** The platform profile the registry subscribes to catalog feeds under (absent: it does not). */
  platformProfile?(): Record<string, unknown>;
  /** A warning about a refused catalog event (the call's own log line names only its outcome). */
  log?(msg: string, fields: Record<string, unknown>): void;
  indexed?(registrationId: string, business: { endpoint: string; profile: Record<string, unknown> }): void;
}

export const DAY_MS = 24 * 3600 * 1000;
